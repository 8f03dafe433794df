/**
 * A profile's credentials as every surface resolves them: the profile's
 * `.env` first, then the process environment.
 *
 * @module
 */

import type { Credentials } from "../../core/usecases/ports.ts";
import { readEnvFile } from "./env_file.ts";
import type { ProfilePaths } from "./layout.ts";

/**
 * Reads the profile's credentials.
 *
 * @throws EnvFileError when `.env` exists but cannot be read as text.
 */
export async function readProfileCredentials(
  paths: ProfilePaths,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Credentials> {
  const dotenv = (await readEnvFile(paths.env)).values;
  const set = (value: string | undefined) => value !== undefined && value.trim() !== "";
  return {
    dotenv,
    lookup: (name) => dotenv.get(name) ?? env[name],
    source: (name) => set(dotenv.get(name)) ? "env_file" : set(env[name]) ? "environment" : null,
  };
}
