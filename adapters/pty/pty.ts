/**
 * A program running behind a pseudo-terminal (`@lydell/node-pty`), with a
 * way to end it and everything it started.
 *
 * Permissions: loading the native addon needs `--allow-ffi`, so it is
 * loaded on the first {@link spawnPty}, never at import time (a `herald`
 * run without `--allow-ffi` works as long as it opens no terminal);
 * {@link PtyProcess.terminate} needs `--allow-run` (signals) and, on Linux,
 * `--allow-read` of /proc.
 *
 * @module
 */

import { importLazily } from "../lazy.ts";
import { HeraldError } from "../../core/errors.ts";
import { killProcessTree, type SignalSender } from "../process/mod.ts";

/** What to run in the terminal. */
export interface PtySpawnOptions {
  /** Program to run (looked up on PATH). */
  file: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment. */
  env: Record<string, string | undefined>;
  cols?: number;
  rows?: number;
  /** `$TERM` for the child; defaults to `xterm-256color`. */
  term?: string;
  /** How {@link PtyProcess.terminate} sends signals (default `Deno.kill`); tests record them. */
  kill?: SignalSender;
}

/** How the program ended. */
export interface PtyExit {
  exitCode: number;
  /** The signal number that ended it, when one did. */
  signal?: number;
}

/** A running pseudo-terminal program. */
export interface PtyProcess {
  /** Process id of the program (the session leader). */
  readonly pid: number;
  /** Types `data` into the terminal. Ignored once the program has exited. */
  write(data: string): void;
  /** Changes the terminal size. Ignored once the program has exited. */
  resize(cols: number, rows: number): void;
  /** Output of the terminal, decoded as UTF-8. */
  onData(listener: (data: string) => void): void;
  /** Called once when the program has exited. */
  onExit(listener: (exit: PtyExit) => void): void;
  /**
   * Ends the program and every process of its terminal session: hang-up and
   * SIGTERM, then SIGKILL after `graceMs`, always through process groups
   * (adapters/process/kill_tree.ts); once the program has exited, its own
   * pid and group are never signalled again. Resolves once none of them
   * runs and the terminal is closed. Safe to call more than once.
   */
  terminate(graceMs?: number): Promise<void>;
}

/** Default grace between SIGTERM and SIGKILL. */
export const PTY_KILL_GRACE_MS = 2000;
/** How long {@link PtyProcess.terminate} waits for the terminal to report the exit. */
const EXIT_WAIT_MS = 1000;

/** The pseudo-terminal addon could not be loaded (usually: no `--allow-ffi`). */
export class PtyUnavailableError extends HeraldError {
  /** Creates the error with the loader's `reason`. */
  constructor(readonly reason: string, options?: ErrorOptions) {
    super(
      "pty_unavailable",
      "unavailable",
      `The terminal is not available: ${reason}. Run Herald with --allow-ffi (or -A) to use it`,
      { ...options, details: { reason } },
    );
  }
}

async function loadAddon(): Promise<typeof import("@lydell/node-pty")> {
  try {
    return await importLazily<typeof import("@lydell/node-pty")>("@lydell/node-pty");
  } catch (error) {
    throw new PtyUnavailableError((error as Error).message, { cause: error });
  }
}

/**
 * Starts `file` behind a pseudo-terminal.
 *
 * @throws PtyUnavailableError when the pty addon cannot be loaded.
 *
 * @example
 * ```ts
 * const term = await spawnPty({ file: "bash", args: [], cwd: "/tmp", env: { PATH: "/usr/bin:/bin" } });
 * term.onData((text) => console.log(text));
 * term.write("echo hi\r");
 * await term.terminate();
 * ```
 */
export async function spawnPty(options: PtySpawnOptions): Promise<PtyProcess> {
  const pty = await loadAddon();
  const term = pty.spawn(options.file, [...options.args], {
    name: options.term ?? "xterm-256color",
    cols: options.cols ?? 80,
    rows: options.rows ?? 24,
    cwd: options.cwd,
    env: options.env,
  });
  let exited: PtyExit | undefined;
  const exitListeners: ((exit: PtyExit) => void)[] = [];
  const exitedPromise = new Promise<void>((resolve) => {
    term.onExit((exit) => {
      exited = { exitCode: exit.exitCode, ...(exit.signal ? { signal: exit.signal } : {}) };
      for (const listener of exitListeners) listener(exited);
      resolve();
    });
  });
  let terminating: Promise<void> | undefined;
  return {
    pid: term.pid,
    write(data) {
      if (exited) return;
      try {
        term.write(data);
      } catch {
        // The terminal closed between the check and the write.
      }
    },
    resize(cols, rows) {
      if (exited) return;
      try {
        term.resize(cols, rows);
      } catch {
        // The terminal closed between the check and the resize.
      }
    },
    onData(listener) {
      term.onData(listener);
    },
    onExit(listener) {
      if (exited) listener(exited);
      else exitListeners.push(listener);
    },
    terminate(graceMs = PTY_KILL_GRACE_MS) {
      terminating ??= (async () => {
        if (Deno.build.os === "windows") {
          if (!exited) term.kill();
        } else {
          await killProcessTree({ pid: term.pid, exited: () => exited !== undefined }, {
            graceMs,
            // What a closed terminal sends; interactive shells ignore SIGTERM but not SIGHUP.
            ask: ["SIGHUP", "SIGTERM"],
            session: true,
            kill: options.kill,
          });
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          exitedPromise,
          new Promise((resolve) => timer = setTimeout(resolve, EXIT_WAIT_MS)),
        ]);
        clearTimeout(timer);
      })();
      return terminating;
    },
  };
}
