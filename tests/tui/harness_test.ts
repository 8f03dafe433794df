/**
 * The pty harness itself (tests/tui/_pty.ts), against small real programs:
 * tests/tui/fixtures/echo_keys.ts (raw mode, prints every read), bash, and
 * `herald --version` through the default command.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { findChromium, keyBytes, PtyScreen } from "./_pty.ts";
import { processRunning, REPO_ROOT, tempDir } from "../_helpers.ts";
import { versionLine } from "../../cli/version.ts";

const ECHO_KEYS = join(REPO_ROOT, "tests", "tui", "fixtures", "echo_keys.ts");
const linux = Deno.build.os === "linux";

/** Runs the key-echo fixture with `modes` in a fresh terminal. */
function echoKeys(cwd: string, modes: string[] = [], size: { cols?: number; rows?: number } = {}) {
  return PtyScreen.spawn({
    cwd,
    env: { HOME: cwd },
    args: modes,
    command: [Deno.execPath(), "run", ECHO_KEYS],
    ...size,
  });
}

/** The `key "<json>"` lines the fixture printed, decoded. */
function keysRead(screen: PtyScreen): string[] {
  return [...screen.allText().matchAll(/^key (".*")$/gm)].map((m) => JSON.parse(m[1]));
}

Deno.test({
  name: "pressed keys reach the program as a terminal encodes them",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    await using screen = echoKeys(dir.path);
    await screen.waitFor("ready>");
    const keys = [
      "enter",
      "tab",
      "up",
      "backspace",
      "ctrl-c",
      "ctrl-d",
      "escape",
      "alt-enter",
    ] as const;
    for (const [i, key] of keys.entries()) {
      screen.press(key);
      await screen.waitFor(() => keysRead(screen).length === i + 1);
    }
    assert.deepEqual(keysRead(screen), [
      "\r",
      "\t",
      "\x1b[A",
      "\x7f",
      "\x03",
      "\x04",
      "\x1b",
      "\x1b\r",
    ]);
  },
});

Deno.test({
  name: "cursor keys follow the program's application cursor keys mode",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    await using screen = echoKeys(dir.path, ["app-cursor"]);
    await screen.waitFor("ready>");
    screen.press("up");
    await screen.waitFor("key");
    assert.deepEqual(keysRead(screen), ["\x1bOA"]);
    assert.equal(keyBytes("left"), "\x1b[D");
    assert.equal(keyBytes("left", true), "\x1bOD");
    assert.equal(keyBytes("ctrl-a"), "\x01");
    assert.throws(() => keyBytes("hyper-x" as "ctrl-x"), RangeError);
  },
});

Deno.test({
  name: "a paste is bracketed when the program asked for it, with line breaks sent as CR",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    await using bracketed = echoKeys(dir.path, ["bracketed"]);
    await using plain = echoKeys(dir.path);
    await bracketed.waitFor("ready>");
    await plain.waitFor("ready>");
    bracketed.paste("one\ntwo\r\nthree");
    plain.paste("one\ntwo");
    await bracketed.waitFor("201~");
    await plain.waitFor("key");
    assert.deepEqual(keysRead(bracketed), ["\x1b[200~one\rtwo\rthree\x1b[201~"]);
    assert.deepEqual(keysRead(plain), ["one\rtwo"]);
  },
});

Deno.test({
  name: "typed text arrives character by character and the exit code is reported",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    await using screen = echoKeys(dir.path);
    await screen.waitFor("ready>");
    await screen.type("hé🙂");
    await screen.waitFor(() => keysRead(screen).join("") === "hé🙂");
    screen.write("q");
    assert.deepEqual(await screen.exited, { exitCode: 3 });
    // Input after the exit is dropped, not thrown.
    screen.press("enter");
  },
});

Deno.test({
  name: "the emulator answers the program's cursor position query",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    await using screen = echoKeys(dir.path, ["ask-cursor"]);
    await screen.waitFor("ready>");
    assert.match(screen.text(), /^cursor report "\\u001b\[1;1R"$/m);
  },
});

Deno.test({
  name: "the screen, the scrollback and the cursor are read from the emulator",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    await using screen = PtyScreen.spawn({
      cwd: dir.path,
      env: { HOME: dir.path },
      args: ["--norc", "--noprofile"],
      command: ["bash"],
      cols: 40,
      rows: 8,
    });
    assert.deepEqual(screen.size, { cols: 40, rows: 8 });
    await screen.waitFor(/[$#]$/m);
    screen.write("PS1='> '; for i in $(seq 1 30); do echo row-$i; done\r");
    await screen.waitFor(/^row-30\n>$/m);
    const lines = screen.lines();
    assert.equal(lines.length, 8);
    assert.equal(lines[7], ">", "trailing spaces are trimmed");
    assert.ok(!screen.text().includes("row-1\n"), "the first rows scrolled off the screen");
    assert.match(screen.allText(), /^row-1\nrow-2\n/m);
    assert.deepEqual(screen.cursor(), { row: 7, col: 2 });

    screen.resize(120, 40);
    screen.write("stty size\r");
    await screen.waitFor(/^40 120$/m);
    assert.deepEqual(screen.size, { cols: 120, rows: 40 });
  },
});

Deno.test({
  name: "disposing ends the program and every job of its terminal session",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    const screen = PtyScreen.spawn({
      cwd: dir.path,
      env: { HOME: dir.path, PS1: "$ " },
      args: ["--norc", "--noprofile", "-i"],
      command: ["bash"],
    });
    await screen.waitFor(/[$#]$/m);
    screen.write("sleep 300 &\r");
    screen.write("(trap '' HUP TERM; exec sleep 301) &\r");
    screen.write("echo pids=$$,$(jobs -p | paste -sd,)\r");
    await screen.waitFor(/^pids=\d+,\d+,\d+$/m);
    const pids = /^pids=(\d+),(\d+),(\d+)$/m.exec(screen.text())!.slice(1).map(Number);
    assert.equal(pids[0], screen.pid);
    for (const pid of pids) assert.ok(await processRunning(pid), `${pid} runs before dispose`);

    await screen[Symbol.asyncDispose]();
    for (const pid of pids) assert.ok(!(await processRunning(pid)), `${pid} is gone after dispose`);
    assert.ok((await screen.exited).signal !== undefined, "the shell was ended by a signal");
    await screen[Symbol.asyncDispose](); // a second dispose is harmless
  },
});

Deno.test({
  name: "waitFor fails with the screen in the message, at once when the program has exited",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    await using screen = echoKeys(dir.path);
    await screen.waitFor("ready>");
    await assert.rejects(
      screen.waitFor("never shown", 200),
      (error: Error) => {
        assert.match(
          error.message,
          /^Timed out after 200 ms waiting for the screen to show "never shown"/,
        );
        assert.match(error.message, /\|ready>\s*\|/);
        return true;
      },
    );
    screen.write("q");
    await screen.exited;
    // The default timeout is 15 s; the exit ends the wait long before it.
    await assert.rejects(screen.waitFor(/never shown/), (error: Error) => {
      assert.match(error.message, /^The program exited before the screen showed \/never shown\//);
      assert.match(error.message, /exited with code 3/);
      return true;
    });
    await screen.settle(); // resolves once the program has exited
  },
});

Deno.test({
  name: "a snapshot saves the screen as text and as HTML with colours and attributes",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    const artifacts = join(dir.path, "artifacts");
    await using screen = PtyScreen.spawn({
      cwd: dir.path,
      env: { HOME: dir.path },
      args: ["colours"],
      command: [Deno.execPath(), "run", ECHO_KEYS],
      artifactsDir: artifacts,
    });
    await screen.waitFor("ready>");
    await assert.rejects(screen.snapshot("../escape"), RangeError);
    const files = await screen.snapshot("colours");
    assert.equal(files.text, join(artifacts, "colours.txt"));
    assert.equal(files.html, join(artifacts, "colours.html"));
    assert.equal(
      await Deno.readTextFile(files.text),
      `${screen.lines().join("\n")}\n`,
    );
    const html = await Deno.readTextFile(files.html);
    assert.match(html, /<span style="color:#cc0000;font-weight:bold">bold red<\/span>/);
    assert.match(html, /<span style="color:#010203">rgb<\/span>/);
    assert.match(html, /<span style="color:#1e1e1e;background:#d3d7cf">inverse<\/span>/);
    assert.match(
      html,
      /<span style="color:#ff8700;font-style:italic;text-decoration:underline">italic underline orange/,
    );
    assert.match(html, /ready&gt;/);
    if (findChromium()) {
      assert.ok(files.png, "Chromium is installed, so a PNG was rendered");
      const bytes = await Deno.readFile(files.png);
      assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    } else {
      assert.equal(files.png, undefined);
    }
  },
});

Deno.test({
  name: "the default command is herald from this checkout",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    await using screen = PtyScreen.spawn({
      cwd: dir.path,
      env: { HOME: dir.path, HERALD_HOME: join(dir.path, ".herald") },
      args: ["--version"],
    });
    assert.deepEqual(await screen.exited, { exitCode: 0 });
    await screen.waitFor(versionLine());
  },
});
