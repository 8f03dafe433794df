/**
 * Slash commands shared by every surface.
 *
 * @module
 */

export * from "./registry.ts";
export * from "./builtin.ts";

import { builtinCommands } from "./builtin.ts";
import { SlashRegistry } from "./registry.ts";

/** A registry holding the built-in commands. */
export function createSlashRegistry(): SlashRegistry {
  const registry: SlashRegistry = new SlashRegistry();
  for (const command of builtinCommands(() => registry)) registry.register(command);
  return registry;
}
