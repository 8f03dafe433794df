/**
 * Helpers shared by the command families: how paths and catalog warnings
 * are shown on a terminal, asking for one answer, and repeatable options.
 *
 * @module
 */

import type { CatalogWarning } from "../../core/skills/mod.ts";
import { LineReader } from "../chat/lines.ts";
import type { CliContext } from "../context.ts";

/**
 * Asks `question` on standard error and reads one answer from standard
 * input: the line typed, trimmed, or "" when input ended first.
 */
export async function readAnswer(c: CliContext, question: string): Promise<string> {
  c.io.err(question);
  const lines = new LineReader(c.input());
  try {
    return (await lines.next())?.trim() ?? "";
  } finally {
    await lines.close();
  }
}

/** Commander's collector for an option given once per value (`--arg a --arg b`). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

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
