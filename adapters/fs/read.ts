/**
 * Asking the file system what is there: text that may not exist yet, and
 * whether a path is a folder or a file. A missing path is an answer
 * (`""`, `false`); any other failure (permissions, I/O) is thrown.
 *
 * @module
 */

/** True when `error` says nothing is at the path (`NotFound`, or a file where a folder was expected). */
export function missing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/** The file's text, or "" when there is no file; other failures are thrown. */
export async function readTextOrEmpty(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (missing(error)) return "";
    throw error;
  }
}

/** True when `path` is a folder (following a symbolic link); false when nothing is there. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (missing(error)) return false;
    throw error;
  }
}

/** True when `path` is a file (following a symbolic link); false when nothing is there. */
export async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    if (missing(error)) return false;
    throw error;
  }
}

/** True when something (a file, a folder or a link, even a broken one) is at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (missing(error)) return false;
    throw error;
  }
}
