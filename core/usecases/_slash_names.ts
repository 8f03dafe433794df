/**
 * The names of the built-in slash commands, which win over a skill or a
 * bundle of the same name. Shared by the skill and bundle use cases.
 *
 * @module
 */

import { createSlashRegistry } from "../commands/mod.ts";

/** The names and aliases of the built-in slash commands. */
export function builtinCommandNames(): ReadonlySet<string> {
  return createSlashRegistry().names();
}
