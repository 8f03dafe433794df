/**
 * Reading and writing a profile's `.env` (secrets). Writes are atomic and
 * always leave the file at mode 0600.
 *
 * @module
 */

import { EnvFileError } from "../../core/errors.ts";
import { type ParsedEnv, parseEnv, removeEnvValue, setEnvValue } from "../../core/config/mod.ts";
import { writeFileAtomic } from "./atomic.ts";

async function readText(path: string): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new EnvFileError(path, "permission denied; check the file's owner and mode (0600)");
    }
    if (error instanceof Deno.errors.IsADirectory || (await isDir(path))) {
      throw new EnvFileError(path, "it is a directory, not a file; move it away");
    }
    throw new EnvFileError(path, (error as Error).message);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new EnvFileError(path, "it is not UTF-8 text; fix or remove the file");
  }
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Reads `.env`; a missing file is empty.
 *
 * @throws EnvFileError when the file exists but cannot be read as text.
 */
export async function readEnvFile(path: string): Promise<ParsedEnv> {
  return parseEnv((await readText(path)) ?? "");
}

/** Sets one variable in `.env`, keeping every other line, and leaves the file at 0600. */
export async function writeEnvValue(path: string, name: string, value: string): Promise<void> {
  const current = (await readText(path)) ?? "";
  await writeFileAtomic(path, setEnvValue(current, name, value), { mode: 0o600, forceMode: true });
}

/**
 * Removes variables from `.env`, keeping every other line, and leaves the
 * file at 0600. Returns the names that were there (nothing is written when none was).
 */
export async function removeEnvValues(path: string, names: readonly string[]): Promise<string[]> {
  let text = (await readText(path)) ?? "";
  const present = parseEnv(text).values;
  const removed = names.filter((name) => present.has(name));
  if (removed.length === 0) return [];
  for (const name of removed) text = removeEnvValue(text, name);
  await writeFileAtomic(path, text, { mode: 0o600, forceMode: true });
  return removed;
}
