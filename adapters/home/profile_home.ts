/**
 * The root home and its profiles on disk, as core's {@link ProfileHome}
 * port: the profile homes (create, clone, delete, list), `active_profile`,
 * each profile's `profile.yaml`, skills and config, and the model client
 * the describer calls. The profile use cases (core/usecases/profiles.ts)
 * run over it.
 *
 * @module
 */

import type { ProcessEnv } from "../../core/config/mod.ts";
import { isUserAuthored } from "../../core/profiles/mod.ts";
import type { ModelClientFactory } from "../../core/models/settings.ts";
import type { HomeProfile, ProfileHome } from "../../core/usecases/ports_home.ts";
import { createModelClient } from "../models/mod.ts";
import { clearActiveProfile, readActiveProfileSync, writeActiveProfile } from "./active_profile.ts";
import { loadConfigFile } from "./config_file.ts";
import { readProfileCredentials } from "./credentials.ts";
import {
  createProfile,
  deleteProfile,
  ensureProfileHome,
  listProfiles,
  requireProfile,
} from "./home.ts";
import type { ProfilePaths } from "./layout.ts";
import { readProfileMeta, updateProfileMeta } from "./profile_meta.ts";
import { listInstalledSkills } from "./profile_skills.ts";

/** Options of {@link openProfileHome}. */
export interface ProfileHomeOptions {
  /** Makes model clients; defaults to the real OpenAI-compatible and Anthropic clients. */
  createClient?: ModelClientFactory;
}

/** The profile at `paths` as the profile use cases see it. */
function homeProfile(paths: ProfilePaths, env: ProcessEnv): HomeProfile {
  return {
    name: paths.name,
    home: paths.home,
    readMeta: () => readProfileMeta(paths.profileYaml),
    async writeDescription(description, { auto, keepUserAuthored = false }) {
      await ensureProfileHome(paths);
      return await updateProfileMeta(
        paths.profileYaml,
        { description, description_auto: auto },
        { keep: keepUserAuthored ? isUserAuthored : undefined },
      );
    },
    listSkills: () => listInstalledSkills(paths.home),
    async mainModel() {
      try {
        const { config } = await loadConfigFile(paths.config);
        return { model: config.model.default ?? null, provider: config.model.provider ?? null };
      } catch {
        // A broken config.yaml is reported by the commands that use it (and `herald doctor`).
        return { model: null, provider: null };
      }
    },
    async loadConfig() {
      const credentials = (await readProfileCredentials(paths, env)).lookup;
      const loaded = await loadConfigFile(paths.config, credentials);
      return {
        config: loaded.config,
        credentials,
        warnings: loaded.warnings.map((warning) => `${paths.config}: ${warning.message}`),
      };
    },
  };
}

/**
 * The root home at `root` and its profiles. `env` is the process
 * environment: the credentials fallback after a profile's `.env`. Cheap to
 * open; nothing is read until a use case asks.
 *
 * @example
 * ```ts
 * const home = openProfileHome(resolveRoot(env), env);
 * const names = await home.listNames(); // ["default", "work"]
 * ```
 */
export function openProfileHome(
  root: string,
  env: ProcessEnv,
  options: ProfileHomeOptions = {},
): ProfileHome {
  const open = async (name: string) => homeProfile(await requireProfile(root, name), env);
  return {
    root,
    listNames: () => listProfiles(root),
    open,
    async create(name, profile) {
      const clone = profile.clone
        ? {
          from: await requireProfile(root, profile.clone.from),
          mode: profile.clone.mode,
          keepChannels: profile.clone.keepChannels,
        }
        : undefined;
      const { strippedSecrets, ...paths } = await createProfile(root, name, {
        clone,
        description: profile.description,
        bundledSkills: profile.bundledSkills,
      });
      return { ...homeProfile(paths, env), strippedSecrets };
    },
    async remove(name) {
      const { clearedSticky } = await deleteProfile(root, name);
      return { clearedSticky };
    },
    // deno-lint-ignore require-await
    readSticky: async () => readActiveProfileSync(root),
    async writeSticky(name) {
      if (name === undefined) await clearActiveProfile(root);
      else await writeActiveProfile(root, name);
    },
    createClient: options.createClient ?? createModelClient,
  };
}
