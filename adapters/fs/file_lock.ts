/**
 * One lock per profile file, held across processes and within one process,
 * so every read-modify-write of `config.yaml`, `.env`, `profile.yaml` and
 * the like sees the latest file and no change is lost to a concurrent writer
 * (the CLI, the dashboard, a gateway, another `herald` run).
 *
 * Two layers, taken in this order and released in reverse:
 *
 * 1. An in-process queue per resolved path: callers in one process wait
 *    their turn on a promise chain, so at most one of them touches the OS
 *    lock of a path at a time.
 * 2. An OS advisory lock (`Deno.FsFile.tryLock(true)`, which is `flock(2)`
 *    with `LOCK_EX|LOCK_NB` on Linux and macOS, `LockFileEx` on Windows) on a
 *    sidecar file beside the target: `.config.yaml.lock` for `config.yaml`,
 *    `.env.lock` for `.env` (one leading dot of the name is dropped). The
 *    target itself is never locked, since atomic writes rename a new file
 *    over it and a lock on the old inode would guard nothing. The sidecar is
 *    created 0600 and removed by its holder just before unlocking, so a
 *    profile folder keeps no lock files; a waiter that then gets the lock of
 *    the removed file sees (by inode) that it is no longer the file at that
 *    path and starts over with the current one, so two processes never hold
 *    locks on two different sidecars of one path. A crashed holder leaves
 *    its (unlocked) sidecar behind, which the next holder reuses and removes.
 *
 * What was verified on Deno 2.9.6 / Linux (strace and two real processes):
 * `lock(true)` is `flock(LOCK_EX|LOCK_NB)` and, when busy, a blocking
 * `flock(LOCK_EX)` on a worker thread (the event loop keeps running);
 * `tryLock(true)` is `flock(LOCK_EX|LOCK_NB)` and answers false while
 * another process holds the lock; two descriptors of the same file in one
 * process also exclude each other (flock locks belong to the open file,
 * not the process); closing the file releases the lock; a holder that exits
 * without unlocking, or is killed with SIGKILL, releases it at once. The
 * lock interoperates with util-linux `flock(1)`.
 *
 * Waiting polls `tryLock` with a short backoff instead of calling the
 * blocking `lock()`, so the wait can end after `timeoutMs` without leaving
 * a blocked thread and a pending operation behind: a `lock()` that lost a
 * race against a timer still keeps the process from exiting until the
 * holder lets go (verified: the process exited 2.4 s later, when the other
 * process released). A holder only keeps the lock for one
 * read, edit and atomic write, and a crashed holder frees it, so the
 * timeout only fires when a live process is stuck (stopped with Ctrl-Z,
 * say); it then fails with {@link FileLockTimeoutError} naming the file.
 *
 * The lock is not re-entrant: taking the lock of a path again inside its
 * own `fn` throws a `TypeError` rather than waiting forever. Code that needs
 * two locks takes them in one fixed order (`.env` before `config.yaml`).
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { basename, dirname, join, resolve } from "node:path";
import { FileLockTimeoutError } from "../../core/errors.ts";

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Milliseconds to wait for another process to release the lock (default 30 000). */
  timeoutMs?: number;
}

/** How long {@link withFileLock} waits for another process by default. */
export const DEFAULT_FILE_LOCK_TIMEOUT_MS = 30_000;

const FIRST_POLL_MS = 2;
const MAX_POLL_MS = 40;

/** Tail of the in-process queue per resolved path. */
const queues = new Map<string, Promise<void>>();
/** The paths whose lock the current async context holds (to refuse re-entry). */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * The sidecar lock file of `path`: `.<name>.lock` in the same folder, with
 * one leading dot of the name dropped (`.env` → `.env.lock`).
 *
 * @example
 * ```ts
 * lockFilePath("/home/me/.herald/config.yaml"); // "/home/me/.herald/.config.yaml.lock"
 * ```
 */
export function lockFilePath(path: string): string {
  const absolute = resolve(path);
  return join(dirname(absolute), `.${basename(absolute).replace(/^\./, "")}.lock`);
}

/**
 * Runs `fn` while holding the lock of `path`, for this process and for every
 * other process that locks the same path, and returns what `fn` returns.
 * Read the file inside `fn`: what was read before may be stale. The lock is
 * released when `fn` settles, whether it returns or throws.
 *
 * The folder of `path` must exist (the sidecar lock file is created there).
 *
 * @throws FileLockTimeoutError when another process holds the lock longer than `timeoutMs`.
 * @throws TypeError when called for a path whose lock the caller already holds.
 *
 * @example
 * ```ts
 * const count = await withFileLock("/home/me/.herald/counter.txt", async () => {
 *   const text = await Deno.readTextFile("/home/me/.herald/counter.txt").catch(() => "0");
 *   const next = Number(text) + 1;
 *   await writeFileAtomic("/home/me/.herald/counter.txt", `${next}`);
 *   return next;
 * });
 * ```
 */
export async function withFileLock<T>(
  path: string,
  fn: () => T | Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const key = resolve(path);
  const outer = held.getStore();
  if (outer?.has(key)) {
    throw new TypeError(
      `The lock of ${key} is already held by this caller; it is not re-entrant (read and write ` +
        "inside the one locked section)",
    );
  }
  const previous = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((settle) => done = settle);
  const tail = previous.then(() => mine);
  queues.set(key, tail);
  try {
    await previous;
    const lock = await lockAcrossProcesses(key, options.timeoutMs ?? DEFAULT_FILE_LOCK_TIMEOUT_MS);
    try {
      return await held.run(new Set([...(outer ?? []), key]), fn);
    } finally {
      await release(lock);
    }
  } finally {
    done();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

/**
 * Takes the exclusive OS lock on the sidecar of `target`, polling until
 * `timeoutMs`. A sidecar that its holder removed while this process waited
 * on it is stale (this process now holds a lock on an unlinked file): it is
 * closed and the current one tried instead.
 */
async function lockAcrossProcesses(target: string, timeoutMs: number): Promise<HeldLock> {
  const path = lockFilePath(target);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o600 });
    try {
      let wait = FIRST_POLL_MS;
      while (!(await file.tryLock(true))) {
        if (performance.now() >= deadline) throw new FileLockTimeoutError(target, timeoutMs);
        await new Promise((done) => setTimeout(done, wait * (0.5 + Math.random())));
        wait = Math.min(wait * 2, MAX_POLL_MS);
      }
      const identity = await sameFile(file, path);
      if (identity !== "moved") return { file, path, removable: identity === "same" };
    } catch (error) {
      file.close();
      throw error;
    }
    file.close();
  }
}

/** A sidecar whose OS lock this process holds. */
interface HeldLock {
  file: Deno.FsFile;
  path: string;
  /** True when the sidecar can be removed on release (its identity could be checked). */
  removable: boolean;
}

/**
 * Releases a lock: removes the sidecar while still holding it (so the
 * profile folder keeps no lock litter; a waiter on the removed file sees it
 * is stale and retries), then unlocks and closes. Closing releases the lock
 * even when unlocking fails.
 */
async function release(lock: HeldLock): Promise<void> {
  try {
    if (lock.removable) await Deno.remove(lock.path).catch(() => {});
    await lock.file.unlock().catch(() => {});
  } finally {
    lock.file.close();
  }
}

/**
 * Whether the open `file` is still the file at `path`: `same`, `moved`
 * (removed or replaced since it was opened), or `unknown` where the
 * platform gives no inode numbers (then the sidecar is never removed, so
 * it cannot have moved).
 */
async function sameFile(file: Deno.FsFile, path: string): Promise<"same" | "moved" | "unknown"> {
  const open = await file.stat();
  let current: Deno.FileInfo;
  try {
    current = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "moved";
    throw error;
  }
  if (open.ino === null || current.ino === null) return "unknown";
  return open.ino === current.ino && open.dev === current.dev ? "same" : "moved";
}
