/**
 * Helpers shared by `herald skills` and `herald bundles`: how paths and
 * catalog warnings are shown on a terminal.
 *
 * @module
 */

import type { CatalogWarning } from "../../core/skills/mod.ts";
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
