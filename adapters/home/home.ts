/**
 * Creating and finding profile homes. A home is made on first use with
 * directories 0700 and `.env` 0600; nothing existing is ever replaced.
 *
 * @module
 */

import { join } from "node:path";
import { HomeError, ProfileExistsError, ProfileNotFoundError } from "../../core/errors.ts";
import { DEFAULT_PROFILE, parseProfileName } from "../../core/profiles/mod.ts";
import { PROFILE_DIRS, type ProfilePaths, profilePaths } from "./layout.ts";

const ENV_HEADER =
  "# Secrets for this Herald profile (API keys, tokens). Keep this file private.\n";

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function makeDir(path: string): Promise<void> {
  try {
    await Deno.mkdir(path, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    if (!(await isDirectory(path))) {
      throw new HomeError(path, "exists but is not a directory; move it away and try again");
    }
  }
}

/**
 * Creates whatever is missing of a profile home: the folder (0700), its
 * sub-folders and an empty `.env` (0600). Existing files are left alone.
 */
export async function ensureProfileHome(paths: ProfilePaths): Promise<void> {
  if (!(await isDirectory(paths.home))) {
    try {
      await Deno.mkdir(paths.home, { recursive: true, mode: 0o700 });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      throw new HomeError(paths.home, "exists but is not a directory; move it away and try again");
    }
  }
  for (const dir of PROFILE_DIRS) await makeDir(join(paths.home, dir));
  try {
    const file = await Deno.open(paths.env, { write: true, createNew: true, mode: 0o600 });
    try {
      await file.write(new TextEncoder().encode(ENV_HEADER));
    } finally {
      file.close();
    }
    await Deno.chmod(paths.env, 0o600);
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
}

/** True when the profile's home folder exists. */
export function profileExists(paths: ProfilePaths): Promise<boolean> {
  return isDirectory(paths.home);
}

/**
 * Paths of an existing profile: `default` always resolves (its home is made
 * on first use); a named profile must already exist.
 *
 * @throws ProfileNotFoundError for a named profile with no home.
 */
export async function requireProfile(root: string, name: string): Promise<ProfilePaths> {
  const paths = profilePaths(root, name);
  if (name !== DEFAULT_PROFILE && !(await profileExists(paths))) {
    throw new ProfileNotFoundError(name, paths.home);
  }
  return paths;
}

/**
 * Creates a new named profile home.
 *
 * @throws ProfileNameError for an invalid or reserved name.
 * @throws ProfileExistsError when the profile already exists.
 */
export async function createProfile(root: string, input: string): Promise<ProfilePaths> {
  const paths = profilePaths(root, parseProfileName(input));
  await Deno.mkdir(join(root, "profiles"), { recursive: true, mode: 0o700 });
  try {
    await Deno.mkdir(paths.home, { mode: 0o700 });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new ProfileExistsError(paths.name, paths.home);
    }
    throw error;
  }
  await ensureProfileHome(paths);
  return paths;
}

/** Names of every profile on disk: `default` first, then named profiles sorted. */
export async function listProfiles(root: string): Promise<string[]> {
  const names: string[] = [DEFAULT_PROFILE];
  try {
    for await (const entry of Deno.readDir(join(root, "profiles"))) {
      if (entry.isDirectory) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return [DEFAULT_PROFILE, ...names.slice(1).sort()];
}
