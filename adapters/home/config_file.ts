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
import { withFileLock } from "../fs/file_lock.ts";
import { readTextOrEmpty } from "../fs/read.ts";

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
 * Edits config.yaml at `path` under its lock: reads the current text inside
 * the lock (a missing file is ""), passes it to `edit`, then writes the
 * edit's `secrets` to the `.env` at `envPath` and its `text` to config.yaml,
 * both atomically. The edit is planned from the text as it is now, so a
 * change another process made a moment ago is kept. `edit` may throw to
 * refuse (nothing is written) or return null for "nothing to do". Returns
 * what `edit` returned.
 *
 * The `.env` lock is taken first and config.yaml's second, always in that
 * order (so two writers never wait on each other forever), and secrets are
 * stored before the config that references them.
 *
 * @example
 * ```ts
 * await updateConfigText(paths.config, paths.env, (text) => {
 *   const plan = planConfigSet(text, paths.config, "agent.max_turns", 30);
 *   return plan.kind === "config" ? { text: plan.text } : null;
 * });
 * ```
 */
export function updateConfigText<T extends ConfigChange>(
  path: string,
  envPath: string,
  edit: (current: string) => T | null | Promise<T | null>,
): Promise<T | null> {
  return withFileLock(envPath, () =>
    withFileLock(path, async () => {
      const current = await readConfigText(path);
      const change = await edit(current);
      if (change === null) return null;
      const secrets = change.secrets ?? [];
      if (secrets.length > 0) await setEnvValuesHeld(envPath, secrets);
      if (change.text !== null && change.text !== current) {
        await writeFileAtomic(path, change.text, { mode: 0o600 });
      }
      return change;
    }));
}
