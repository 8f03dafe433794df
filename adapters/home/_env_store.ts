/**
 * `.env` text I/O shared by env_file.ts and config_file.ts. The writers
 * here expect the caller to hold the lock of the `.env` file.
 *
 * @module
 */

import { EnvFileError } from "../../core/errors.ts";
import type { EnvWrite } from "../../core/usecases/ports.ts";
import { setEnvValue } from "../../core/config/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { isDirectory } from "../fs/read.ts";

/**
 * The text of `.env`, or undefined when there is none.
 *
 * @throws EnvFileError when the file exists but cannot be read as UTF-8 text.
 */
export async function readEnvText(path: string): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new EnvFileError(path, "permission denied; check the file's owner and mode (0600)");
    }
    if (error instanceof Deno.errors.IsADirectory || (await isDirectory(path).catch(() => false))) {
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

/** Writes `.env` text atomically at mode 0600. The caller holds the `.env` lock. */
export async function writeEnvTextHeld(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text, { mode: 0o600, forceMode: true });
}

/**
 * Sets `values` in `.env` (re-read here), keeping every other line, and
 * leaves the file at 0600. The caller holds the `.env` lock.
 */
export async function setEnvValuesHeld(path: string, values: readonly EnvWrite[]): Promise<void> {
  let text = (await readEnvText(path)) ?? "";
  for (const { name, value } of values) text = setEnvValue(text, name, value);
  await writeEnvTextHeld(path, text);
}
