/**
 * Starting a program as the head of a process tree that can be ended whole
 * (see kill_tree.ts). On Unix the program runs under an anchor: a POSIX
 * `sh` that leads a new process group and session, runs the program as its
 * child with the same standard streams, and exits with its status. The
 * anchor survives SIGHUP, SIGINT, SIGQUIT and SIGTERM sent to the group (its
 * program gets them with their default actions), and after SIGUSR1 it stops
 * itself when the program ends instead of exiting, so the group's id stays
 * this process's to signal until the whole tree is gone. On Windows the
 * program is started directly and ending it kills only that process.
 *
 * @module
 */

import { isAbsolute, join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { missing as nothingThere } from "../fs/read.ts";
import { killProcessTree, type SignalSender } from "./kill_tree.ts";

/**
 * The anchor. Its own messages (such as "Terminated" for a program killed by
 * a signal) go to /dev/null; the program gets the original standard error.
 */
const ANCHOR = `trap 'held=1' USR1
trap : HUP INT QUIT TERM
exec 3>&2 2>/dev/null
(exec 2>&3 3>&-; exec "$@")
code=$?
if [ -n "$held" ]; then kill -STOP $$; fi
exit $code`;

/** What to run: `Deno.CommandOptions` without `detached`, which is implied. */
export type ProcessGroupOptions = Omit<Deno.CommandOptions, "detached">;

/** A running program that leads its own process tree. */
export interface ProcessGroup {
  /** The spawned child (its streams are the program's). */
  readonly child: Deno.ChildProcess;
  /** Pid of the group's leader (the anchor on Unix), which is also the group's id. */
  readonly pid: number;
  /** How the program ended (`code` 128+n when a signal ended it on Unix). */
  readonly status: Promise<Deno.CommandStatus>;
  /** Whether the leader's exit has been observed. */
  exited(): boolean;
  /**
   * Ends the program and everything it started in its group: SIGTERM, then
   * SIGKILL after `graceMs` for whatever still runs; nothing is signalled
   * once the leader has exited. Safe to call more than once.
   */
  terminate(options: { graceMs: number; kill?: SignalSender }): Promise<void>;
}

/**
 * Starts `program` at the head of a new process group.
 *
 * @throws Deno.errors.NotFound when `program` is not found (on PATH, or at its path).
 *
 * @example
 * ```ts
 * const group = spawnProcessGroup("bash", { args: ["-c", "make test"], stdout: "piped" });
 * setTimeout(() => group.terminate({ graceMs: 2000 }), 60_000);
 * console.log((await group.status).code);
 * ```
 */
export function spawnProcessGroup(
  program: string,
  options: ProcessGroupOptions = {},
): ProcessGroup {
  const windows = Deno.build.os === "windows";
  const args = options.args ?? [];
  const child = windows
    ? new Deno.Command(program, { ...options, args }).spawn()
    : new Deno.Command("/bin/sh", {
      ...options,
      args: ["-c", ANCHOR, "herald-group", resolveProgram(program, options), ...args],
      detached: true,
    }).spawn();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  let terminating: Promise<void> | undefined;
  return {
    child,
    pid: child.pid,
    status,
    exited: () => exited,
    terminate({ graceMs, kill }) {
      terminating ??= windows
        ? (async () => {
          try {
            if (!exited) child.kill("SIGKILL");
          } catch {
            // Already gone.
          }
          await status;
        })()
        : killProcessTree({ pid: child.pid, exited: () => exited, anchored: true }, {
          graceMs,
          kill,
        });
      return terminating;
    },
  };
}

/**
 * The path the anchor runs: `program` found the way `Deno.Command` finds it
 * (the child's PATH), so a missing program fails here, as a direct spawn
 * would, rather than as exit code 127. When the file system cannot be read,
 * `program` is passed on as it is.
 */
function resolveProgram(program: string, options: ProcessGroupOptions): string {
  const cwd = options.cwd instanceof URL ? fromFileUrl(options.cwd) : options.cwd;
  const runnable = (path: string) => {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  };
  const missing = () =>
    new Deno.errors.NotFound(`Failed to spawn '${program}': No such file or directory`);
  try {
    if (program.includes("/")) {
      const path = isAbsolute(program) || cwd === undefined ? program : join(cwd, program);
      if (!runnable(path)) throw missing();
      return program;
    }
    const path = options.env?.PATH ??
      (options.clearEnv ? undefined : Deno.env.get("PATH")) ??
      "/usr/local/bin:/usr/bin:/bin";
    for (const dir of path.split(":")) {
      const candidate = join(dir === "" ? (cwd ?? ".") : dir, program);
      try {
        if (runnable(candidate)) return candidate;
      } catch (error) {
        // Not in this folder; anything else (no permission to look) is decided below.
        if (!nothingThere(error)) throw error;
      }
    }
    throw missing();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw missing();
    // Permission to look was refused: let the anchor's shell find it.
    return program;
  }
}
