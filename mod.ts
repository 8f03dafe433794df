/**
 * Herald as a library: the core contracts and the factories that implement them.
 *
 * @example
 * ```ts
 * import { openStateStore, profilePaths, resolveRoot } from "./mod.ts";
 * const paths = profilePaths(resolveRoot({ HERALD_HOME: "/tmp/h" }), "default");
 * const store = openStateStore(paths.stateDb);
 * ```
 *
 * @module
 */

export * from "./core/errors.ts";
export * from "./core/version.ts";
export * from "./core/profiles/mod.ts";
export * from "./core/config/mod.ts";
export type * from "./core/sessions/store.ts";
export { MESSAGE_ROLES } from "./core/sessions/store.ts";
export { newSessionId, openStateStore } from "./adapters/sqlite/mod.ts";
export {
  createProfile,
  ensureProfileHome,
  listProfiles,
  loadConfigFile,
  type ProfilePaths,
  profilePaths,
  readEnvFile,
  requireProfile,
  resolveRoot,
  writeFileAtomic,
} from "./adapters/home/mod.ts";
