/**
 * The text a `write_file` call is about to replace, so a surface can show
 * the write as a diff. The tool reads it itself, after the write guard
 * allowed the write (a refused or unapproved write reads nothing), and
 * hands it to the surfaces with the call's result (`tool_end`'s `before`).
 *
 * The read is bounded: at most {@link MAX_BEFORE_WRITE_BYTES} + 1 bytes
 * through the opened file (a size that `stat` reports is not trusted), and
 * nothing is read from a device, a pipe or a pseudo-filesystem.
 *
 * @module
 */

import { looksBinary } from "./_common.ts";

/** Files larger than this are not shown as a diff. */
export const MAX_BEFORE_WRITE_BYTES = 256 * 1024;

/** Pseudo-filesystems: their files report sizes that are not theirs, and some never end. */
const PSEUDO_ROOTS = ["/proc", "/sys", "/dev"];

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/**
 * The text of the file at `path` (absolute) before a write: null when it
 * does not exist yet, undefined when there is nothing to show (not a
 * regular file, on /proc, /sys or /dev, over `limit` bytes, unreadable, or
 * not UTF-8 text). Call it only for a write the guard allowed.
 *
 * @example
 * ```ts
 * await guardWrite("write_file", path, context, options);
 * const before = await readBeforeWrite(path); // "old\n", or null for a new file
 * ```
 */
export async function readBeforeWrite(
  path: string,
  limit: number = MAX_BEFORE_WRITE_BYTES,
): Promise<string | null | undefined> {
  let file: Deno.FsFile;
  try {
    // Links resolved, so a link to /proc/self/environ is judged as that file.
    const real = await Deno.realPath(path);
    if (PSEUDO_ROOTS.some((root) => inside(real, root))) return undefined;
    // Checked before opening: opening a pipe waits for a writer.
    if (!(await Deno.stat(real)).isFile) return undefined;
    file = await Deno.open(real, { read: true });
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? null : undefined;
  }
  try {
    if (!(await file.stat()).isFile) return undefined;
    const bytes = await readAtMost(file, limit + 1);
    if (bytes.length > limit || looksBinary(bytes)) return undefined;
    // The byte-order mark is kept: a write without it changes the first line.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  } finally {
    file.close();
  }
}

/** The first `max` bytes of `file` (fewer when it ends sooner). */
async function readAtMost(file: Deno.FsFile, max: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(max);
  let filled = 0;
  while (filled < max) {
    const read = await file.read(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}
