/**
 * A profile's files as the management routes use them: credentials looked
 * up the way a session does (the profile's `.env`, then the server's
 * environment), config loading, and writes that put secrets in `.env`
 * before the config that references them.
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
  writeConfigText,
  writeEnvValue,
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

/**
 * Writes `.env` values first, then the new config text (when there is one),
 * so the config never references a secret that is not stored yet. Both
 * writes are atomic; the home is created when missing.
 */
export async function writeProfileFiles(
  paths: ProfilePaths,
  change: { text: string | null; secrets: readonly EnvWrite[] },
): Promise<void> {
  await ensureProfileHome(paths);
  for (const secret of change.secrets) await writeEnvValue(paths.env, secret.name, secret.value);
  if (change.text !== null) await writeConfigText(paths.config, change.text);
}

/** Removes variables from the profile's `.env` (atomic, 0600); returns the names that were there. */
export function removeEnvVariables(
  paths: ProfilePaths,
  names: readonly string[],
): Promise<string[]> {
  return removeEnvValues(paths.env, names);
}
