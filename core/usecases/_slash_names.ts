/**
 * The names of the built-in slash commands, which win over a skill or a
 * bundle of the same name. Shared by the skill and bundle use cases.
 *
 * @module
 */

import { createSlashRegistry } from "../commands/mod.ts";

let names: ReadonlySet<string> | undefined;

/** The names and aliases of the built-in slash commands (the registry is built once). */
export function builtinCommandNames(): ReadonlySet<string> {
  names ??= createSlashRegistry().names();
  return names;
}
