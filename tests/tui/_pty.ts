/**
 * Driving a terminal program the way a person sees it: the program runs
 * behind a real pseudo-terminal (`@lydell/node-pty`) and its output is fed
 * into a headless terminal emulator (`@xterm/headless`), so tests read the
 * screen (text, cursor, colours) rather than the raw byte stream.
 *
 * ```ts
 * await using screen = PtyScreen.spawn({ cwd: home, env: { HERALD_HOME: home }, args: ["chat"] });
 * await screen.waitFor(/^› /m);
 * await screen.type("/bun");
 * screen.press("tab");
 * await screen.waitFor("/bundles");
 * await screen.snapshot("tab-completes-bundles");
 * ```
 *
 * Permissions: `-A` (the pty addon needs `--allow-ffi`; ending the process
 * tree needs `--allow-run` and `/proc`).
 *
 * @module
 */

import { join } from "node:path";
import * as pty from "@lydell/node-pty";
import xterm from "@xterm/headless";
import { killProcessTree } from "../../adapters/process/mod.ts";
import { REPO_ROOT } from "../_helpers.ts";
import { renderPng, screenHtml } from "./_snapshot.ts";

export { findChromium, renderPng } from "./_snapshot.ts";

/** What to run behind the terminal. */
export interface PtyOptions {
  /** Working directory of the program. */
  cwd: string;
  /**
   * Environment of the program, on top of a small base: `PATH` (the
   * parent's), `TERM=xterm-256color`, `LANG=C.UTF-8`, and `DENO_DIR` (the
   * parent's cache, so a temporary `HOME` does not make Deno download
   * again). Nothing else of the parent's environment is passed on.
   */
  env: Record<string, string>;
  /** Columns of the terminal (default 100). */
  cols?: number;
  /** Rows of the terminal (default 30). */
  rows?: number;
  /** Arguments of `herald` (appended to `command`). */
  args: string[];
  /** The program; default `[Deno.execPath(), "run", "--allow-all", "<repo>/cli/main.ts"]`. */
  command?: string[];
  /** Where {@link PtyScreen.snapshot} writes (default `<repo>/.artifacts/tui`). */
  artifactsDir?: string;
}

/** How the program ended. */
export interface PtyExit {
  exitCode: number;
  /** The signal that ended it, when one did. */
  signal?: number;
}

/** The files one {@link PtyScreen.snapshot} wrote. */
export interface Snapshot {
  text: string;
  html: string;
  /** The screenshot, when Chromium is installed. */
  png?: string;
}

/** A screen position, both counted from 0 (row 0 is the top row of the screen). */
export interface CursorPosition {
  row: number;
  col: number;
}

/** The characters of `S`, as a union. */
type Chars<S extends string> = S extends `${infer C}${infer Rest}` ? C | Chars<Rest> : never;
type Letter = Chars<"abcdefghijklmnopqrstuvwxyz">;

/** A key {@link PtyScreen.press} knows. */
export type KeyName =
  | "enter"
  | "tab"
  | "shift-tab"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "delete"
  | "pageup"
  | "pagedown"
  | "backspace"
  | "escape"
  | "space"
  | "alt-enter"
  | `ctrl-${Letter}`;

/** Keys whose bytes do not depend on a terminal mode. */
const PLAIN_KEYS: Record<string, string> = {
  enter: "\r",
  tab: "\t",
  "shift-tab": "\x1b[Z",
  delete: "\x1b[3~",
  pageup: "\x1b[5~",
  pagedown: "\x1b[6~",
  backspace: "\x7f",
  escape: "\x1b",
  space: " ",
  "alt-enter": "\x1b\r",
};

/** Cursor keys: final byte after `CSI` (normal mode) or `SS3` (application cursor keys mode). */
const CURSOR_KEYS: Record<string, string> = {
  up: "A",
  down: "B",
  right: "C",
  left: "D",
  home: "H",
  end: "F",
};

const DEFAULT_COLS = 100;
const DEFAULT_ROWS = 30;
const POLL_MS = 25;
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_QUIET_MS = 150;
const TYPING_PAUSE_MS = 8;
const KILL_GRACE_MS = 2000;
/** How long dispose waits for the terminal to report the exit after the tree is gone. */
const EXIT_WAIT_MS = 3000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The bytes a terminal sends for `key`, in normal or application cursor keys mode. */
export function keyBytes(key: KeyName, applicationCursorKeys = false): string {
  const plain = PLAIN_KEYS[key];
  if (plain !== undefined) return plain;
  const cursor = CURSOR_KEYS[key];
  if (cursor !== undefined) return `${applicationCursorKeys ? "\x1bO" : "\x1b["}${cursor}`;
  const ctrl = /^ctrl-([a-z])$/.exec(key);
  if (ctrl) return String.fromCharCode(ctrl[1].charCodeAt(0) - 96);
  throw new RangeError(`Unknown key "${key}"`);
}

function describeMatch(match: string | RegExp | ((s: PtyScreen) => boolean)): string {
  if (typeof match === "string") return JSON.stringify(match);
  if (match instanceof RegExp) return String(match);
  return match.name ? `the condition ${match.name}` : "the condition";
}

/** Row `y` of `buffer` with trailing spaces trimmed (written spaces too, not only empty cells). */
function rowText(buffer: xterm.IBuffer, y: number): string {
  return (buffer.getLine(y)?.translateToString(true) ?? "").replace(/ +$/, "");
}

/** Whether a process of session `sid` still runs (exited, unreaped ones do not count; Linux). */
async function sessionRuns(sid: number): Promise<boolean> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    // Fields after the command name: state, ppid, pgrp, session.
    const [state, , , session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(session) === sid && state !== "Z" && state !== "X") return true;
  }
  return false;
}

/** Waits up to `timeoutMs` for every process of session `sid` to end (Linux; elsewhere returns). */
async function sessionEnded(sid: number, timeoutMs: number): Promise<void> {
  if (Deno.build.os !== "linux") return;
  const deadline = performance.now() + timeoutMs;
  while (await sessionRuns(sid) && performance.now() < deadline) await sleep(POLL_MS);
}

function parentDenoDir(): string {
  return Deno.env.get("DENO_DIR") ??
    join(Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/root", ".cache"), "deno");
}

/**
 * A program running behind a pseudo-terminal, with the screen a person
 * would see. Dispose it (`await using`) to end the program, its whole
 * process tree, and the emulator.
 */
export class PtyScreen implements AsyncDisposable {
  /** Resolves with the exit code once the program ended. */
  readonly exited: Promise<PtyExit>;
  readonly #term: xterm.Terminal;
  readonly #proc: pty.IPty;
  readonly #artifactsDir: string;
  readonly #checks = new Set<() => void>();
  #exit: PtyExit | undefined;
  /** Output chunks handed to the emulator and not parsed yet. */
  #pending = 0;
  #lastOutputAt = performance.now();
  #disposing: Promise<void> | undefined;

  private constructor(options: PtyOptions) {
    const cols = options.cols ?? DEFAULT_COLS;
    const rows = options.rows ?? DEFAULT_ROWS;
    const [file, ...commandArgs] = options.command ??
      [Deno.execPath(), "run", "--allow-all", join(REPO_ROOT, "cli", "main.ts")];
    this.#artifactsDir = options.artifactsDir ?? join(REPO_ROOT, ".artifacts", "tui");
    this.#term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 10_000 });
    this.#proc = pty.spawn(file, [...commandArgs, ...options.args], {
      name: "xterm-256color",
      cols,
      rows,
      cwd: options.cwd,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        TERM: "xterm-256color",
        LANG: "C.UTF-8",
        DENO_DIR: parentDenoDir(),
        ...options.env,
      },
    });
    // Answers the emulator gives to the program's queries (cursor position, device attributes).
    this.#term.onData((data) => this.write(data));
    this.#proc.onData((data) => {
      this.#lastOutputAt = performance.now();
      this.#pending++;
      this.#term.write(data, () => {
        this.#pending--;
        this.#runChecks();
      });
    });
    this.exited = new Promise((resolve) => {
      this.#proc.onExit(({ exitCode, signal }) => {
        this.#exit = { exitCode, ...(signal ? { signal } : {}) };
        resolve(this.#exit);
        this.#runChecks();
      });
    });
  }

  /** Starts the program (by default `herald <args>` from this checkout) behind a new terminal. */
  static spawn(options: PtyOptions): PtyScreen {
    return new PtyScreen(options);
  }

  /** Process id of the program (the leader of the terminal's session). */
  get pid(): number {
    return this.#proc.pid;
  }

  /** Terminal size. */
  get size(): { cols: number; rows: number } {
    return { cols: this.#term.cols, rows: this.#term.rows };
  }

  /** The visible screen as text lines, one per row, trailing spaces trimmed. */
  lines(): string[] {
    const buffer = this.#term.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < this.#term.rows; row++) {
      lines.push(rowText(buffer, buffer.baseY + row));
    }
    return lines;
  }

  /** The visible screen as one string (rows joined by "\n", trailing blank rows left out). */
  text(): string {
    return this.lines().join("\n").replace(/\n+$/, "");
  }

  /** Scrollback and screen as one string, one buffer row per line, trailing blank rows left out. */
  allText(): string {
    const buffer = this.#term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) {
      lines.push(rowText(buffer, y));
    }
    return lines.join("\n").replace(/\n+$/, "");
  }

  /** The cursor, counted from 0 on the visible screen. */
  cursor(): CursorPosition {
    const buffer = this.#term.buffer.active;
    return { row: buffer.cursorY, col: buffer.cursorX };
  }

  /** Sends raw bytes to the program, e.g. `"\r"` or `"\x1b[A"`. Ignored once it has exited. */
  write(data: string): void {
    if (this.#exit || this.#disposing) return;
    try {
      this.#proc.write(data);
    } catch {
      // The terminal closed between the check and the write.
    }
  }

  /**
   * Presses keys, back to back, as a terminal encodes them (cursor keys
   * follow the program's application cursor keys mode). Keys written
   * together may reach the program in one read; await {@link settle} or
   * {@link waitFor} between presses that must arrive apart.
   */
  press(...keys: KeyName[]): void {
    const application = this.#term.modes.applicationCursorKeysMode;
    for (const key of keys) this.write(keyBytes(key, application));
  }

  /**
   * Pastes `text` as a terminal does: line breaks become CR and, when the
   * program enabled bracketed paste (`ESC[?2004h`), the text is wrapped in
   * `ESC[200~` … `ESC[201~`. `bracketed` forces either way.
   */
  paste(text: string, options: { bracketed?: boolean } = {}): void {
    const body = text.replace(/\r?\n/g, "\r");
    const bracketed = options.bracketed ?? this.#term.modes.bracketedPasteMode;
    this.write(bracketed ? `\x1b[200~${body}\x1b[201~` : body);
  }

  /** Types `text` one character per write with a short pause between, like a person typing. */
  async type(text: string): Promise<void> {
    for (const char of text) {
      this.write(char);
      await sleep(TYPING_PAUSE_MS);
    }
  }

  /** Resizes the terminal (the program gets SIGWINCH) and the emulator alike. */
  resize(cols: number, rows: number): void {
    this.#term.resize(cols, rows);
    if (this.#exit || this.#disposing) return;
    try {
      this.#proc.resize(cols, rows);
    } catch {
      // The terminal closed between the check and the resize.
    }
  }

  /**
   * Resolves once the screen matches: a string is looked for in
   * {@link text}, a RegExp is tested on it, a function gets this screen.
   * Checked whenever output has been drawn and every 25 ms. Rejects after
   * `timeoutMs` (default 15 s), or as soon as the program has exited with
   * everything drawn and the screen still does not match; the error shows
   * the screen.
   */
  waitFor(
    match: string | RegExp | ((s: PtyScreen) => boolean),
    timeoutMs: number = DEFAULT_TIMEOUT_MS,
  ): Promise<void> {
    const matches = () =>
      typeof match === "string"
        ? this.text().includes(match)
        : match instanceof RegExp
        ? (match.lastIndex = 0, match.test(this.text()))
        : match(this);
    return this.#poll(
      timeoutMs,
      (done) => {
        if (matches()) return done();
        if (this.#exit && this.#pending === 0) {
          done(
            this.#failure(`The program exited before the screen showed ${describeMatch(match)}`),
          );
        }
      },
      () =>
        `Timed out after ${timeoutMs} ms waiting for the screen to show ${describeMatch(match)}`,
    );
  }

  /**
   * Resolves once the program has written nothing for `quietMs` (default
   * 150) and all of it is drawn, or once it has exited and all is drawn.
   * Rejects after `timeoutMs` (default 15 s) of steady output (a spinner).
   */
  settle(
    quietMs: number = DEFAULT_QUIET_MS,
    timeoutMs: number = DEFAULT_TIMEOUT_MS,
  ): Promise<void> {
    return this.#poll(timeoutMs, (done) => {
      if (this.#pending > 0) return;
      if (this.#exit || performance.now() - this.#lastOutputAt >= quietMs) done();
    }, () => `The screen did not settle for ${quietMs} ms within ${timeoutMs} ms`);
  }

  /**
   * Saves the screen as `<name>.txt` and, with colours and text attributes,
   * `<name>.html` in the artifacts folder (default `<repo>/.artifacts/tui`);
   * also `<name>.png` when Chromium is installed. Returns the paths.
   */
  async snapshot(name: string): Promise<Snapshot> {
    if (!/^[\w.-]+$/.test(name) || name.startsWith(".")) {
      throw new RangeError(`Snapshot name "${name}" must be letters, digits, "_", "-" or "."`);
    }
    await this.#drained();
    await Deno.mkdir(this.#artifactsDir, { recursive: true });
    const paths: Snapshot = {
      text: join(this.#artifactsDir, `${name}.txt`),
      html: join(this.#artifactsDir, `${name}.html`),
    };
    await Deno.writeTextFile(paths.text, `${this.lines().join("\n")}\n`);
    await Deno.writeTextFile(paths.html, screenHtml(this.#term, name));
    const png = await renderPng(paths.html, join(this.#artifactsDir, `${name}.png`), this.size);
    return png ? { ...paths, png } : paths;
  }

  /**
   * Ends the program and every process of its terminal session (SIGHUP and
   * SIGTERM, SIGKILL after 2 s), waits for the terminal to close, and
   * disposes the emulator. Safe to call more than once.
   */
  [Symbol.asyncDispose](): Promise<void> {
    this.#disposing ??= (async () => {
      const pid = this.#proc.pid;
      await killProcessTree({ pid, exited: () => this.#exit !== undefined }, {
        graceMs: KILL_GRACE_MS,
        ask: ["SIGHUP", "SIGTERM"],
        session: true,
      });
      // killProcessTree returns once SIGKILL is sent; a killed process takes a moment to end.
      await sessionEnded(pid, EXIT_WAIT_MS);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.exited,
        new Promise((resolve) => timer = setTimeout(resolve, EXIT_WAIT_MS)),
      ]);
      clearTimeout(timer);
      await this.#drained();
      this.#term.dispose();
    })();
    return this.#disposing;
  }

  /** Resolves once every chunk of output so far has been drawn. */
  #drained(): Promise<void> {
    return new Promise((resolve) => this.#term.write("", resolve));
  }

  #runChecks(): void {
    for (const check of [...this.#checks]) check();
  }

  /** Runs `step` on output, on exit and every 25 ms until it calls `done`, or the time is up. */
  #poll(
    timeoutMs: number,
    step: (done: (error?: Error) => void) => void,
    timeoutMessage: () => string,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      let finished = false;
      const done = (error?: Error) => {
        if (finished) return;
        finished = true;
        clearInterval(interval);
        clearTimeout(deadline);
        this.#checks.delete(check);
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        try {
          step(done);
        } catch (error) {
          done(error as Error);
        }
      };
      const interval = setInterval(check, POLL_MS);
      const deadline = setTimeout(() => done(this.#failure(timeoutMessage())), timeoutMs);
      this.#checks.add(check);
      check();
    });
  }

  #failure(message: string): Error {
    const { cols, rows } = this.size;
    const { row, col } = this.cursor();
    const exit = this.#exit
      ? `, exited with code ${this.#exit.exitCode}${
        this.#exit.signal ? ` (signal ${this.#exit.signal})` : ""
      }`
      : "";
    const border = `+${"-".repeat(cols)}+`;
    const screen = this.lines().map((line) => `|${line.padEnd(cols)}|`);
    return new Error(
      `${message}. Screen (${cols}x${rows}, cursor row ${row} col ${col}${exit}):\n` +
        [border, ...screen, border].join("\n"),
    );
  }
}
