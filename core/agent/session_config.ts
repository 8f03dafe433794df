/**
 * The configuration a profile's sessions run with: its config.yaml (or the
 * defaults in safe mode) with `${VAR}` references resolved from its
 * credentials, read through the profile's ports. Outside safe mode it is
 * `loadExpandedConfig`, which the dashboard's runtime check reads too, so a
 * check says exactly what a session would do.
 *
 * @module
 */

import {
  type ConfigWarning,
  type EnvLookup,
  type HeraldConfig,
  parseConfig,
} from "../config/mod.ts";
import { loadExpandedConfig } from "../usecases/config.ts";
import type { ProfileContext } from "../usecases/ports.ts";

/** A profile's configuration and the credentials a session would use. */
export interface SessionConfig {
  config: HeraldConfig;
  /** The profile's `.env` first, then the process environment. */
  credentials: EnvLookup;
  /** Problems in config.yaml that did not stop loading (unknown keys, bad values). */
  warnings: readonly ConfigWarning[];
}

/**
 * Reads the configuration of `profile`'s sessions. In safe mode config.yaml
 * is not read (the defaults apply); credentials still are. Resolve the model
 * with `resolveModelSettings(config, credentials, overrides)`.
 *
 * @throws ConfigParseError when config.yaml is not valid YAML.
 */
export async function loadSessionConfig(
  profile: ProfileContext,
  options: { safeMode: boolean },
): Promise<SessionConfig> {
  if (!options.safeMode) {
    const loaded = await loadExpandedConfig(profile);
    return {
      config: loaded.config,
      credentials: loaded.credentials.lookup,
      warnings: loaded.warnings,
    };
  }
  const credentials = (await profile.files.credentials()).lookup;
  const loaded = parseConfig("", profile.files.configPath);
  return { config: loaded.config, credentials, warnings: loaded.warnings };
}
