/**
 * Slash commands shared by every surface.
 *
 * @module
 */

export * from "./registry.ts";
export * from "./builtin.ts";
export { readSnapshot, runCatalogCommand } from "./skills.ts";

import { builtinCommands } from "./builtin.ts";
import { SlashRegistry, type SlashRegistryOptions } from "./registry.ts";

/**
 * A registry holding the built-in commands and, with a catalog, the skills
 * and bundles as `/<name>`.
 *
 * @example
 * ```ts
 * const registry = createSlashRegistry({ catalog });
 * const outcome = await registry.dispatch("/review check the diff", context);
 * ```
 */
export function createSlashRegistry(options: SlashRegistryOptions = {}): SlashRegistry {
  const registry: SlashRegistry = new SlashRegistry([], options);
  for (const command of builtinCommands(() => registry)) registry.register(command);
  return registry;
}
