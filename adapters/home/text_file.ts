/**
 * Reading a text file that may not exist yet.
 *
 * @module
 */

/** The file's text, or "" when there is no file; other failures are thrown. */
export async function readTextOrEmpty(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
}
