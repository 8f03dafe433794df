/**
 * Reading and writing a profile's `config.yaml`.
 *
 * @module
 */

import { type EnvLookup, type LoadedConfig, parseConfig } from "../../core/config/mod.ts";
import { writeFileAtomic } from "./atomic.ts";
import { readTextOrEmpty } from "./text_file.ts";

/** Reads config.yaml text; a missing file reads as empty (all defaults). */
export function readConfigText(path: string): Promise<string> {
  return readTextOrEmpty(path);
}

/**
 * Loads and validates config.yaml.
 *
 * @throws ConfigParseError when the file is not valid YAML.
 */
export async function loadConfigFile(path: string, env?: EnvLookup): Promise<LoadedConfig> {
  return parseConfig(await readConfigText(path), path, env);
}

/** Replaces config.yaml atomically (a new file is created 0600). */
export async function writeConfigText(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text, { mode: 0o600 });
}
