/**
 * Running one child of the installer code (the desktop bootstrap's
 * `--version` probe, `install.sh --manifest` and stages; `herald update`'s
 * start probe, `deno install` and gateway restarts): in its own process group,
 * standard input closed, with a timeout that ends the whole group, stdout
 * kept up to a cap, stderr handed on as text, and streams that a process
 * left behind holds open never waited on for long.
 *
 * Private to adapters/install/.
 *
 * @module
 */

import { spawnProcessGroup } from "../process/spawn_group.ts";
import { endLeftovers } from "./_group.ts";

/** The most stdout kept from a probe or a stage (bytes); a frame is one short line. */
const STDOUT_MAX = 256 * 1024;

/**
 * How long the streams may stay open after the program exited (ms): a
 * process it left behind may hold them; then they are no longer read.
 */
export const EOF_GRACE_MS = 500;
/** How long a timed-out group, or what a probe left behind, gets between SIGTERM and SIGKILL (ms). */
const KILL_GRACE_MS = 2000;

/** What a finished child process left. */
export interface ChildResult {
  code: number;
  stdout: string;
  timedOut: boolean;
}

/** Options of {@link runChild}. */
export interface ChildOptions {
  /** Gets stderr as text (else it is dropped). */
  onStderr?: (text: string) => void;
  /** End what the program left in its group even when it did not time out (a probe leaves nothing). */
  endLeftoversAlways?: boolean;
  /** The working folder (default: this process's). */
  cwd?: string;
}

/** The environment a child gets: `env` without its unset entries. */
function childEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) kept[key] = value;
  return kept;
}

/** A stream being read to its end, which can be cut short. */
interface Drain {
  /** Settles when the stream ended or was cancelled. */
  done: Promise<void>;
  /** Stops reading (what was read stays). */
  cancel(): void;
}

/** Reads `stream` chunk by chunk into `onChunk` until it ends or is cancelled. */
function drain(stream: ReadableStream<Uint8Array>, onChunk: (chunk: Uint8Array) => void): Drain {
  const reader = stream.getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        onChunk(value);
      }
    } catch {
      // The process is gone: what was read stays.
    } finally {
      reader.releaseLock();
    }
  })();
  return { done, cancel: () => void reader.cancel().catch(() => {}) };
}

/** Keeps at most {@link STDOUT_MAX} bytes of the chunks it is given. */
class CappedText {
  #chunks: Uint8Array[] = [];
  #size = 0;

  /** Adds `chunk`, cut at the cap. */
  add(chunk: Uint8Array): void {
    if (this.#size < STDOUT_MAX) this.#chunks.push(chunk.subarray(0, STDOUT_MAX - this.#size));
    this.#size += chunk.length;
  }

  /** What was kept, as text. */
  text(): string {
    const all = new Uint8Array(Math.min(this.#size, STDOUT_MAX));
    let at = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return new TextDecoder().decode(all);
  }
}

/** Whether `promise` settles within `ms` (its timer is cleared either way). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((done) => timer = setTimeout(() => done(false), ms));
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `command` + `args` in its own process group with exactly `env`,
 * standard input closed, and ends the whole group after `timeoutMs`. Once
 * the program exited the streams get {@link EOF_GRACE_MS} to end, then are
 * cancelled, so a process it left holding them cannot stall the caller.
 * What is left in the group is ended after a timeout, and always with
 * `options.endLeftoversAlways`.
 *
 * @throws Deno.errors.NotFound (or another spawn error) when the program cannot be started.
 */
export async function runChild(
  command: readonly string[],
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
  options: ChildOptions = {},
): Promise<ChildResult> {
  const { onStderr, endLeftoversAlways = false } = options;
  const group = spawnProcessGroup(command[0], {
    args: [...command.slice(1), ...args],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: childEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  let timedOut = false;
  let terminating: Promise<void> | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    terminating = group.terminate({ graceMs: KILL_GRACE_MS }).catch(() => {});
  }, timeoutMs);
  const stdout = new CappedText();
  const decoder = new TextDecoder();
  const streams = [
    drain(group.child.stdout, (chunk) => stdout.add(chunk)),
    drain(group.child.stderr, (chunk) => onStderr?.(decoder.decode(chunk, { stream: true }))),
  ];
  let status: Deno.CommandStatus;
  try {
    status = await group.status;
  } finally {
    clearTimeout(timer);
  }
  await terminating;
  if (timedOut || endLeftoversAlways) await endLeftovers(group.pid, KILL_GRACE_MS);
  const ended = Promise.all(streams.map((s) => s.done));
  if (!await within(ended, EOF_GRACE_MS)) {
    for (const stream of streams) stream.cancel();
    await ended;
  }
  const tail = decoder.decode();
  if (tail) onStderr?.(tail);
  return { code: status.code, stdout: stdout.text(), timedOut };
}
