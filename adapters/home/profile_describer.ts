/**
 * The files behind describing a profile: its `profile.yaml`, installed
 * skills, config and credentials, as the ports of core's
 * `describeProfile` (core/profiles/describe_profile.ts).
 *
 * @module
 */

import type { ModelClientFactory } from "../../core/models/settings.ts";
import type { ProfileDescriberPorts } from "../../core/profiles/mod.ts";
import { loadConfigFile } from "./config_file.ts";
import { readProfileCredentials } from "./credentials.ts";
import { ensureProfileHome } from "./home.ts";
import type { ProfilePaths } from "./layout.ts";
import { readProfileMeta, updateProfileMeta } from "./profile_meta.ts";
import { listInstalledSkills } from "./profile_skills.ts";

/** What {@link profileDescriberPorts} needs besides the profile. */
export interface ProfileDescriberOptions {
  /** The process environment (credentials fallback after `.env`). */
  env: Readonly<Record<string, string | undefined>>;
  createClient: ModelClientFactory;
  /** Reports a problem in a file that did not stop reading it (corrupt profile.yaml, config keys). */
  onWarning(message: string): void;
}

/**
 * The ports of core's `describeProfile` for the profile at `paths`.
 *
 * @example
 * ```ts
 * const ports = profileDescriberPorts(paths, { env, createClient, onWarning: console.warn });
 * const result = await describeProfile(ports, { mode: "show" });
 * ```
 */
export function profileDescriberPorts(
  paths: ProfilePaths,
  options: ProfileDescriberOptions,
): ProfileDescriberPorts {
  return {
    profile: paths.name,
    async readMeta() {
      const read = await readProfileMeta(paths.profileYaml);
      if (read.warning) options.onWarning(read.warning);
      return read.meta;
    },
    async writeDescription(description, auto) {
      await ensureProfileHome(paths);
      return await updateProfileMeta(paths.profileYaml, {
        description,
        description_auto: auto,
      });
    },
    listSkills: () => listInstalledSkills(paths.home),
    async loadConfig() {
      const credentials = (await readProfileCredentials(paths, options.env)).lookup;
      const loaded = await loadConfigFile(paths.config, credentials);
      for (const warning of loaded.warnings) {
        options.onWarning(`${paths.config}: ${warning.message}`);
      }
      return { config: loaded.config, credentials };
    },
    createClient: options.createClient,
  };
}
