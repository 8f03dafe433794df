/**
 * Changing a text file under its lock: read inside the lock, change, write
 * atomically.
 *
 * @module
 */

import { type AtomicWriteOptions, writeFileAtomic } from "./atomic.ts";
import { type FileLockOptions, withFileLock } from "./file_lock.ts";
import { readTextOrEmpty } from "./read.ts";

/** Options of {@link updateTextFile}. */
export interface TextFileUpdateOptions extends AtomicWriteOptions, FileLockOptions {
  /** How to read the current text (default {@link readTextOrEmpty}: a missing file is ""). */
  read?: (path: string) => Promise<string>;
}

/**
 * Changes the text file at `path` under its lock ({@link withFileLock}):
 * reads it inside the lock, passes the text to `change`, and writes what
 * `change` returns atomically. `null`, or the same text, writes nothing.
 * Returns the text the file now holds.
 *
 * @example
 * ```ts
 * await updateTextFile(paths.config, (text) =>
 *   text.includes("plugins:") ? null : text + "plugins: []\n"
 * );
 * ```
 */
export function updateTextFile(
  path: string,
  change: (current: string) => string | null | Promise<string | null>,
  options: TextFileUpdateOptions = {},
): Promise<string> {
  const { read = readTextOrEmpty, timeoutMs, ...write } = options;
  return withFileLock(path, async () => {
    const current = await read(path);
    const next = await change(current);
    if (next === null || next === current) return current;
    await writeFileAtomic(path, next, write);
    return next;
  }, { timeoutMs });
}
