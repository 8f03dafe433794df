/**
 * Helpers shared by `herald skills` and `herald bundles`.
 *
 * @module
 */

import type { CatalogWarning } from "../../core/skills/mod.ts";
import { createSlashRegistry } from "../../core/commands/mod.ts";
import type { CliContext } from "../context.ts";

/** `path` with the user's home folder shown as `~`. */
export function displayPath(c: CliContext, path: string): string {
  const home = c.env.HOME || c.env.USERPROFILE;
  if (!home) return path;
  const base = home.replace(/[\\/]+$/, "");
  if (path === base) return "~";
  if (path.startsWith(`${base}/`) || path.startsWith(`${base}\\`)) {
    return `~${path.slice(base.length)}`;
  }
  return path;
}

/** Prints catalog warnings on standard error, one line each. */
export function printWarnings(c: CliContext, warnings: readonly CatalogWarning[]): void {
  for (const warning of warnings) {
    c.io.err(`herald: warning: ${warning.file}: ${warning.message}\n`);
  }
}

/** The names and aliases of the built-in slash commands. */
export function builtinCommandNames(): ReadonlySet<string> {
  return createSlashRegistry().names();
}
