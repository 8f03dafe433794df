/** Small file-system helpers shared inside adapters/home. */

/** True when something (file, folder or link) exists at `path`. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
