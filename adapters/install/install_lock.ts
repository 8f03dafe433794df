/**
 * One install, update, bootstrap or uninstall of an install folder at a
 * time, across processes: the lock the desktop bootstrap takes
 * (`<install folder>/.install-state/.herald-bootstrap.lock`).
 *
 * @module
 */

import { FileLockTimeoutError, HeraldError } from "../../core/errors.ts";
import { withBootstrapLock } from "./_bootstrap_latch.ts";

/** How long a caller waits for another holder of the install lock by default (ms). */
export const INSTALL_LOCK_WAIT_MS = 30_000;

/**
 * Runs `work` holding the install lock of `dir`; another process holding it
 * past `waitMs` is a `install_busy` error naming the folder and saying to
 * run `again` once it is done.
 */
export async function withInstallLock<T>(
  dir: string,
  again: string,
  work: () => Promise<T>,
  waitMs = INSTALL_LOCK_WAIT_MS,
): Promise<T> {
  try {
    return await withBootstrapLock(dir, waitMs, work);
  } catch (error) {
    if (!(error instanceof FileLockTimeoutError)) throw error;
    throw new HeraldError(
      "install_busy",
      "conflict",
      `Another update or install of ${dir} is running; wait for it to finish, then run ` +
        `${again} again`,
    );
  }
}
