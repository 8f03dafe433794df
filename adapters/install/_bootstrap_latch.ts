/**
 * The desktop bootstrap's files in the install folder: the latched
 * installer failure (in memory and in `<install folder>/.herald-bootstrap-failed`,
 * so the next process sees it too, until a reset) and the lock that lets
 * one process at a time bootstrap the folder
 * (`<install folder>/.install-state/.herald-bootstrap.lock`, see withFileLock).
 *
 * Private to adapters/install/bootstrap.ts.
 *
 * @module
 */

import { join } from "node:path";
import { missing } from "../fs/read.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import {
  type BootstrapFailure,
  FAILURE_FILE,
  newFailure,
  parseFailure,
} from "../../core/desktop/bootstrap.ts";

/** The latched failure of one install folder: held in memory, kept on disk. */
export class FailureLatch {
  /** The latch file's path. */
  readonly path: string;
  readonly #installDir: string;
  readonly #now: () => Date;
  #failure: BootstrapFailure | undefined;

  /** The latch of `installDir`; `now` dates a record found unreadable. */
  constructor(installDir: string, now: () => Date) {
    this.#installDir = installDir;
    this.#now = now;
    this.path = join(installDir, FAILURE_FILE);
  }

  /** The latched failure: the one in memory, else the one on disk, else undefined. */
  async get(): Promise<BootstrapFailure | undefined> {
    if (this.#failure) return this.#failure;
    let text: string;
    try {
      text = await Deno.readTextFile(this.path);
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
    this.#failure = parseFailure(text) ??
      newFailure(
        "unknown",
        `the failure record ${this.path} is unreadable`,
        [],
        this.#now(),
      );
    return this.#failure;
  }

  /** Latches `failure`: in memory at once, then on disk (the folder made when missing). */
  async record(failure: BootstrapFailure): Promise<void> {
    this.#failure = failure;
    await Deno.mkdir(this.#installDir, { recursive: true });
    await writeFileAtomic(this.path, JSON.stringify(failure, null, 2) + "\n", {
      mode: 0o644,
    });
  }

  /** Clears the latched failure (memory and disk); true when there was one. */
  async reset(): Promise<boolean> {
    const had = this.#failure !== undefined;
    this.#failure = undefined;
    try {
      await Deno.remove(this.path);
      return true;
    } catch (error) {
      if (missing(error)) return had;
      throw error;
    }
  }
}

/**
 * Runs `work` holding the bootstrap lock of `installDir`
 * (`.install-state/.herald-bootstrap.lock`; install.sh lets a git install folder
 * hold only `.install-state/` before its checkout), waiting up to
 * `timeoutMs` for another process's bootstrap.
 */
export async function withBootstrapLock<T>(
  installDir: string,
  timeoutMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const stateDir = join(installDir, ".install-state");
  await Deno.mkdir(stateDir, { recursive: true });
  return await withFileLock(join(stateDir, "herald-bootstrap"), work, { timeoutMs });
}
