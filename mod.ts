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
export * from "./core/sessions/mod.ts";
export * from "./core/skills/mod.ts";
export * from "./core/agent/mod.ts";
export * from "./core/commands/mod.ts";
export type * from "./core/models/types.ts";
export * from "./core/providers.ts";
export * from "./core/models/settings.ts";
export * from "./core/models/auxiliary.ts";
export { type ToolOutcome, ToolRegistry } from "./core/tools/registry.ts";
export * from "./core/tools/types.ts";
export * from "./core/tools/approval_policy.ts";
export { newSessionId, openStateStore } from "./adapters/sqlite/mod.ts";
export { createModelClient } from "./adapters/models/mod.ts";
export { builtinTools } from "./adapters/tools/mod.ts";
export { createSkillCatalog, seedBundledSkills } from "./adapters/skills/mod.ts";
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
} from "./adapters/home/mod.ts";
export { writeFileAtomic } from "./adapters/fs/mod.ts";
export * from "./core/events/mod.ts";
export * from "./core/rpc/mod.ts";
export type * from "./core/usecases/ports.ts";
export { openProfileContext } from "./adapters/runtime/profile_context.ts";
