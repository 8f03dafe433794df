/**
 * The one composition point for a profile: its config.yaml and `.env` under
 * their file locks, its credentials, its state database and session files,
 * its pairing store and its messaging platforms, wired into core's {@link ProfileContext}. Every
 * surface (the CLI, the dashboard's routes and gateway, later channels,
 * workers and cron runs) gets a profile through {@link openProfileContext}
 * and hands it to the use cases in core/usecases/. Cheap to open: nothing
 * is read until a use case asks, and a session store is opened only for the
 * work that needs it.
 *
 * @module
 */

import type { ProcessEnv } from "../../core/config/mod.ts";
import type { ProfileContext } from "../../core/usecases/ports.ts";
import {
  ensureProfileHome,
  type ProfilePaths,
  profileSessionFiles,
  readConfigText,
  readEnvFile,
  readProfileCredentials,
  removeEnvValues,
  updateConfigText,
  writeEnvValue,
} from "../home/mod.ts";
import { openStateStore } from "../sqlite/mod.ts";
import { isFile } from "../fs/read.ts";
import { openPairingStore } from "../channels/pairing_store.ts";
import { openMessagingLinks } from "./messaging_links.ts";
import { openCronFiles } from "../cron/outputs.ts";

/**
 * The profile at `paths` as core's use cases see it. `env` is the process
 * environment: the credentials fallback after the profile's `.env`.
 *
 * @example
 * ```ts
 * const profile = openProfileContext(profilePaths(root, "work"), Deno.env.toObject());
 * const shown = await showConfig(profile);
 * ```
 */
export function openProfileContext(paths: ProfilePaths, env: ProcessEnv): ProfileContext {
  return {
    name: paths.name,
    home: paths.home,
    files: {
      configPath: paths.config,
      envPath: paths.env,
      readConfigText: () => readConfigText(paths.config),
      async updateConfig(edit) {
        await ensureProfileHome(paths);
        return await updateConfigText(paths.config, paths.env, edit);
      },
      readEnv: () => readEnvFile(paths.env),
      async setEnv(name, value) {
        await ensureProfileHome(paths);
        await writeEnvValue(paths.env, name, value);
      },
      removeEnv: (names) => removeEnvValues(paths.env, names),
      credentials: () => readProfileCredentials(paths, env),
    },
    sessions: {
      async withStore(work, options = {}) {
        if (!options.create && !(await isFile(paths.stateDb))) return await work(undefined);
        if (options.create) await ensureProfileHome(paths);
        const store = openStateStore(paths.stateDb);
        try {
          return await work(store);
        } finally {
          store.close();
        }
      },
      files: profileSessionFiles(paths),
    },
    pairing: () => openPairingStore(paths.home),
    messaging: () => openMessagingLinks(paths, env),
    cron: () => openCronFiles(paths.cron),
  };
}
