/**
 * `/api/pty` over a real socket: a real pseudo-terminal running the shell
 * (terminal mode) or `herald chat`, typed input, resize, and that closing
 * the socket leaves no process of the terminal behind.
 */

import assert from "node:assert/strict";
import {
  assertNoPlantedSecret,
  parseEnvDump,
  PLANTED_DOTENV_TEXT,
  PLANTED_PARENT_SECRETS,
} from "../_planted_secrets.ts";
import { join } from "node:path";
import { createProfile } from "../../adapters/home/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { processRunning, tempDir } from "../_helpers.ts";
import { TEST_TOKEN } from "./_app.ts";
import { closeSocket, openSocket, startLiveServer, until, upgradeStatus } from "./_live.ts";

/** A client of the pty endpoint: binary frames are terminal bytes, text frames control JSON. */
class PtyClient implements AsyncDisposable {
  output = "";
  readonly controls: Record<string, unknown>[] = [];
  closeCode?: number;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  constructor(readonly socket: WebSocket) {
    socket.onmessage = (event) => {
      if (typeof event.data === "string") this.controls.push(JSON.parse(event.data));
      else this.output += this.#decoder.decode(new Uint8Array(event.data), { stream: true });
    };
    socket.addEventListener("close", (event) => this.closeCode = event.code);
  }

  static async open(url: string): Promise<PtyClient> {
    return new PtyClient(await openSocket(url));
  }

  type(text: string): void {
    this.socket.send(this.#encoder.encode(text));
  }

  control(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Waits until the output after `from` matches `pattern`; returns the match. */
  async waitFor(pattern: RegExp, from = 0, timeoutMs = 10_000): Promise<RegExpExecArray> {
    let match: RegExpExecArray | null = null;
    await until(
      () => (match = pattern.exec(this.output.slice(from))) !== null,
      `${pattern}`,
      timeoutMs,
    )
      .catch((error) => {
        throw new Error(`${error.message}; output so far: ${JSON.stringify(this.output)}`);
      });
    return match!;
  }

  /** Runs a shell command and returns the output line that `pattern` matches. */
  async run(command: string, pattern: RegExp): Promise<RegExpExecArray> {
    const from = this.output.length;
    this.type(`${command}\r`);
    return await this.waitFor(pattern, from);
  }

  close(): Promise<void> {
    return closeSocket(this.socket);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function shellServer(home: string) {
  return startLiveServer(home, {
    deps: {
      env: {
        HOME: home,
        PATH: Deno.env.get("PATH"),
        SHELL: "/bin/bash",
        HERALD_DASHBOARD_SESSION_TOKEN: TEST_TOKEN,
      },
      ptyMode: "shell",
    },
  });
}

Deno.test({
  name: "terminal mode: typed input reaches the shell, resize applies, and closing kills every job",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using server = shellServer(home.path);
    const term = await PtyClient.open(server.wsUrl("/api/pty"));
    // Input sent before the first prompt is echoed twice; wait for the prompt.
    await term.waitFor(/\S/);

    await term.run("echo hi", /[\r\n]hi\r?\n/);
    term.control({ type: "resize", cols: 120, rows: 40 });
    await term.run("stty size", /[\r\n]40 120\r?\n/);
    const [, token] = await term.run(
      'echo "token=[${HERALD_DASHBOARD_SESSION_TOKEN:-none}]"',
      /token=\[(\w+)\]\r?\n/,
    );
    assert.equal(token, "none", "the session token is not passed to the terminal");
    assert.equal(
      (await term.run('echo "home=[$HERALD_HOME]"', /home=\[(.*)\]\r?\n/))[1],
      home.path,
    );

    const shellPid = Number((await term.run("echo pid=$$", /pid=(\d+)\r?\n/))[1]);
    term.type("sleep 300 &\r");
    const sleepPid = Number((await term.run("echo job=$!", /job=(\d+)\r?\n/))[1]);
    // A job that ignores hang-up and SIGTERM needs the SIGKILL after the grace.
    term.type("(trap '' HUP TERM; exec sleep 301) &\r");
    const stubbornPid = Number((await term.run("echo job=$!", /job=(\d+)\r?\n/))[1]);
    const pids = [shellPid, sleepPid, stubbornPid];
    for (const pid of pids) assert.ok(await processRunning(pid), `${pid} runs before the close`);

    term.control({ type: "teleport" });
    await until(() => term.controls.length > 0, "the error frame");
    assert.equal(term.controls[0].type, "error");

    await term.close();
    await until(
      async () => {
        for (const pid of pids) if (await processRunning(pid)) return false;
        return true;
      },
      "every process of the terminal to end",
      8000,
    );
  },
});

Deno.test({
  name: "terminal mode: the program exiting sends an exit frame and closes the socket",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using server = shellServer(home.path);
    await using term = await PtyClient.open(server.wsUrl("/api/pty"));
    await term.waitFor(/\S/);
    term.type("exit 3\r");
    await until(() => term.closeCode !== undefined, "the socket to close");
    assert.equal(term.closeCode, 1000);
    assert.deepEqual(term.controls, [{ type: "exit", exit_code: 3, signal: null }]);
  },
});

Deno.test({
  name: "terminal mode: the shell gets the allowlist and the profile's passthrough names only",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await Deno.writeTextFile(
      join(home.path, ".env"),
      PLANTED_DOTENV_TEXT,
    );
    await Deno.writeTextFile(
      join(home.path, "config.yaml"),
      "terminal:\n  env_passthrough: [PASSED_ON, DOTENV_PASSED]\n",
    );
    await using server = startLiveServer(home.path, {
      deps: {
        env: {
          HOME: home.path,
          PATH: Deno.env.get("PATH"),
          LANG: "C.UTF-8",
          SHELL: "/bin/bash",
          HERALD_DASHBOARD_SESSION_TOKEN: TEST_TOKEN,
          ...PLANTED_PARENT_SECRETS,
          PASSED_ON: "from-the-environment",
        },
        ptyMode: "shell",
      },
    });
    await using term = await PtyClient.open(server.wsUrl("/api/pty"));
    await term.waitFor(/\S/);
    const dump = join(home.path, "env.txt");
    await term.run(`env > ${dump}; echo "dumped=$?"`, /dumped=0\r?\n/);
    const text = await Deno.readTextFile(dump);
    const env = parseEnvDump(text);
    assertNoPlantedSecret(text, "the shell", [TEST_TOKEN]);
    assert.equal(env.PATH, Deno.env.get("PATH"));
    assert.equal(env.HOME, home.path);
    assert.equal(env.LANG, "C.UTF-8");
    assert.equal(env.HERALD_HOME, home.path);
    assert.equal(env.PASSED_ON, "from-the-environment");
    assert.equal(env.DOTENV_PASSED, "dotenv-passed");
  },
});

Deno.test("an unknown profile is 404 and a malformed resume id 400, before any upgrade", async () => {
  await using home = await tempDir();
  await using server = shellServer(home.path);
  const base = `/api/pty?token=${TEST_TOKEN}`;
  assert.equal(await upgradeStatus(server.port, `${base}&profile=ghost`), 404);
  assert.equal(await upgradeStatus(server.port, `${base}&resume=--help`), 400);
  const plain = await fetch(`http://127.0.0.1:${server.port}/api/pty?profile=ghost`, {
    headers: { "X-Herald-Session-Token": TEST_TOKEN },
  });
  assert.equal(plain.status, 404);
  assert.equal((await plain.json()).error.code, "profile_not_found");
});

Deno.test({
  name: "chat mode runs herald chat with HERALD_HOME at the selected profile",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using model = await startModelServer({ replies: [{ text: "pong from the model" }] });
    const work = await createProfile(home.path, "work", { bundledSkills: false });
    await configureModel(work.home, model.openaiBaseUrl);
    await using server = startLiveServer(home.path);
    const term = await PtyClient.open(server.wsUrl("/api/pty", { profile: "work" }));
    // The terminal UI's status line names the model once the conversation is open.
    await term.waitFor(/custom\/test-model · ctx/, 0, 30_000);
    term.type("ping\r");
    await term.waitFor(/pong from the model/);
    await term.close();
    const store = join(work.home, "state.db");
    assert.ok((await Deno.stat(store)).isFile, "the session was stored in the profile's home");
    assert.equal(model.requests.length, 1);
    await until(() => term.closeCode !== undefined, "the socket to close");
  },
});
