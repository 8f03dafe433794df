/**
 * Reading and writing a profile's `config.yaml`. Edits go through
 * {@link updateConfigText}, which re-reads the file under its lock, so a
 * concurrent writer (the CLI, the dashboard, another process) never loses
 * a change.
 *
 * @module
 */

import { type EnvLookup, type LoadedConfig, parseConfig } from "../../core/config/mod.ts";
import type { ConfigChange } from "../../core/usecases/ports.ts";
import { setEnvValuesHeld } from "./_env_store.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { type FileLockOptions, withFileLock } from "../fs/file_lock.ts";
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

/**
 * Replaces config.yaml atomically (a new file is created 0600), under its
 * lock. Only for callers that truly replace the whole file; an edit of the
 * current text goes through {@link updateConfigText}.
 */
export function writeConfigText(path: string, text: string): Promise<void> {
  return withFileLock(path, () => writeFileAtomic(path, text, { mode: 0o600 }));
}

/** What an edit of config.yaml amounts to (see {@link updateConfigText}); core's `ConfigChange`. */
export type ConfigTextChange = ConfigChange;

/** Options of {@link updateConfigText}. */
export interface ConfigUpdateOptions extends FileLockOptions {
  /** The profile's `.env`; required when an edit can return `secrets`. */
  envPath?: string;
}

/**
 * Edits config.yaml under its lock: reads the current text inside the lock
 * (a missing file is ""), passes it to `edit`, then writes the edit's
 * `secrets` to `.env` and its `text` to config.yaml, both atomically. The
 * edit is planned from the text as it is now, so a change another process
 * made a moment ago is kept. `edit` may throw to refuse (nothing is
 * written) or return null for "nothing to do". Returns what `edit` returned.
 *
 * With `envPath`, the `.env` lock is taken first and config.yaml's second,
 * always in that order (so two writers never wait on each other forever),
 * and secrets are stored before the config that references them.
 *
 * @throws TypeError when the edit returns secrets and no `envPath` was given.
 *
 * @example
 * ```ts
 * await updateConfigText(paths.config, (text) => {
 *   const plan = planConfigSet(text, paths.config, "agent.max_turns", 30);
 *   return plan.kind === "config" ? { text: plan.text } : null;
 * });
 * ```
 */
export function updateConfigText<T extends ConfigTextChange>(
  path: string,
  edit: (current: string) => T | null | Promise<T | null>,
  options: ConfigUpdateOptions = {},
): Promise<T | null> {
  const { envPath, timeoutMs } = options;
  const locked = async () => {
    const current = await readConfigText(path);
    const change = await edit(current);
    if (change === null) return null;
    const secrets = change.secrets ?? [];
    if (secrets.length > 0) {
      if (envPath === undefined) {
        throw new TypeError(
          `An edit of ${path} returned secrets but no .env path was given to store them`,
        );
      }
      await setEnvValuesHeld(envPath, secrets);
    }
    if (change.text !== null && change.text !== current) {
      await writeFileAtomic(path, change.text, { mode: 0o600 });
    }
    return change;
  };
  if (envPath === undefined) return withFileLock(path, locked, { timeoutMs });
  return withFileLock(envPath, () => withFileLock(path, locked, { timeoutMs }), { timeoutMs });
}
