/**
 * The sticky default profile on disk: `<root>/active_profile`.
 *
 * @module
 */

import { join } from "node:path";
import { ACTIVE_PROFILE_FILE, parseActiveProfile } from "../../core/profiles/active.ts";
import { writeFileAtomic } from "../fs/atomic.ts";

/** Path of the sticky-default file under `root`. */
export function activeProfilePath(root: string): string {
  return join(root, ACTIVE_PROFILE_FILE);
}

/**
 * The profile `<root>/active_profile` names, or undefined when there is no
 * such file (or it names `default`). Synchronous, so the CLI can settle the
 * profile before any command runs.
 *
 * @throws ActiveProfileError when the file does not hold a valid profile name.
 */
export function readActiveProfileSync(root: string): string | undefined {
  const file = activeProfilePath(root);
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  return parseActiveProfile(text, file);
}

/** Makes `name` the sticky default (atomically); `root` is created when missing. */
export async function writeActiveProfile(root: string, name: string): Promise<void> {
  await Deno.mkdir(root, { recursive: true, mode: 0o700 });
  await writeFileAtomic(activeProfilePath(root), `${name}\n`, { mode: 0o600 });
}

/** Removes the sticky default; true when there was one to remove. */
export async function clearActiveProfile(root: string): Promise<boolean> {
  try {
    await Deno.remove(activeProfilePath(root));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
