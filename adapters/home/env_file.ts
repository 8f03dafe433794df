/**
 * Reading and writing a profile's `.env` (secrets). Every change re-reads
 * the file under its lock ({@link withFileLock}), so concurrent writers in
 * any process keep each other's variables; writes are atomic and always
 * leave the file at mode 0600.
 *
 * @module
 */

import { type ParsedEnv, parseEnv, removeEnvValuesFromText } from "../../core/config/mod.ts";
import { readEnvText, setEnvValuesHeld, writeEnvTextHeld } from "./_env_store.ts";
import { withFileLock } from "../fs/file_lock.ts";

/**
 * Reads `.env`; a missing file is empty.
 *
 * @throws EnvFileError when the file exists but cannot be read as text.
 */
export async function readEnvFile(path: string): Promise<ParsedEnv> {
  return parseEnv((await readEnvText(path)) ?? "");
}

/**
 * Sets one variable in `.env`, keeping every other line (including ones
 * another process wrote a moment ago), and leaves the file at 0600.
 *
 * @example
 * ```ts
 * await writeEnvValue(paths.env, "OPENROUTER_API_KEY", "sk-or-...");
 * ```
 */
export function writeEnvValue(path: string, name: string, value: string): Promise<void> {
  return withFileLock(path, () => setEnvValuesHeld(path, [{ name, value }]));
}

/**
 * Removes variables from `.env`, keeping every other line, and leaves the
 * file at 0600. Returns the names that were there (nothing is written when none was).
 */
export function removeEnvValues(path: string, names: readonly string[]): Promise<string[]> {
  return withFileLock(path, async () => {
    const { text, removed } = removeEnvValuesFromText((await readEnvText(path)) ?? "", names);
    if (removed.length > 0) await writeEnvTextHeld(path, text);
    return removed;
  });
}
