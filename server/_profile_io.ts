/**
 * A profile's files as the management routes use them: credentials looked
 * up the way a session does (the profile's `.env`, then the server's
 * environment), config loading, and edits planned under the files' locks
 * that put secrets in `.env` before the config that references them.
 *
 * @module
 */

import type { EnvLookup, LoadedConfig } from "../core/config/mod.ts";
import {
  ensureProfileHome,
  loadConfigFile,
  type ProfileCredentials,
  type ProfilePaths,
  readProfileCredentials,
  removeEnvValues,
  updateConfigText,
} from "../adapters/home/mod.ts";
import type { ServerDeps } from "./deps.ts";

export type { ProfileCredentials } from "../adapters/home/mod.ts";

/** Reads the profile's credentials, with the server's environment as the fallback. */
export function profileCredentials(
  paths: ProfilePaths,
  deps: ServerDeps,
): Promise<ProfileCredentials> {
  return readProfileCredentials(paths, deps.env);
}

/** Loads config.yaml as written (`${NAME}` kept), defaults filled in. */
export function loadProfileConfig(paths: ProfilePaths, env?: EnvLookup): Promise<LoadedConfig> {
  return loadConfigFile(paths.config, env);
}

/** A secret to store in `.env`. */
export interface EnvWrite {
  name: string;
  value: string;
}

/** What an edit of a profile's config amounts to: new config text and secrets for `.env`. */
export interface ProfileFilesChange {
  /** The new config.yaml text, or null when config.yaml does not change. */
  text: string | null;
  secrets: readonly EnvWrite[];
}

/**
 * Edits the profile's config under the locks of `.env` and config.yaml
 * (taken in that order): `edit` gets config.yaml as it is now, inside the
 * locks, and plans the change from it, so a change another process or
 * request made meanwhile is kept. Its `.env` values are written first, then
 * the new config text (when there is one), so the config never references a
 * secret that is not stored yet. Both writes are atomic; the home is created
 * when missing. `edit` may throw to refuse (nothing is written). Returns
 * what `edit` returned.
 *
 * @example
 * ```ts
 * const result = await updateProfileFiles(paths, (text) =>
 *   applyConfigEdits(text, paths.config, [["agent.max_turns", 30]])
 * );
 * ```
 */
export async function updateProfileFiles<T extends ProfileFilesChange>(
  paths: ProfilePaths,
  edit: (currentText: string) => T | Promise<T>,
): Promise<T> {
  await ensureProfileHome(paths);
  return (await updateConfigText(paths.config, edit, { envPath: paths.env }))!;
}

/** Removes variables from the profile's `.env` (atomic, 0600); returns the names that were there. */
export function removeEnvVariables(
  paths: ProfilePaths,
  names: readonly string[],
): Promise<string[]> {
  return removeEnvValues(paths.env, names);
}
