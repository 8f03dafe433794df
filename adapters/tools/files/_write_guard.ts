/**
 * The check before every write of `write_file` and `patch`: the target and
 * the folders that judge it are resolved to real paths (symbolic links
 * followed, as far as they exist), then core's {@link judgeWrite} decides.
 * A refusal is a tool error that says why; a write outside the working
 * directory is asked about like a dangerous command.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { judgeWrite } from "../../../core/tools/write_guard.ts";
import { type ToolContext, ToolError } from "../../../core/tools/types.ts";

/** What the guard needs beyond the tool's context. */
export interface WriteGuardOptions {
  /** The user's home folder (`~`). */
  userHome: string;
  /** Nothing outside this folder is written (`HERALD_WRITE_SAFE_ROOT`, `tools.write_safe_root`). */
  writeSafeRoot?: string;
}

/** `path` with every link in its existing part resolved; the missing rest is appended as is. */
async function realPath(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = await Deno.realPath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Herald's root home, from a profile home (`<root>` or `<root>/profiles/<name>`). */
function heraldRootOf(profileHome: string): string {
  const parent = dirname(profileHome);
  return basename(parent) === "profiles" ? dirname(parent) : profileHome;
}

/**
 * Refuses or asks about a write to `path` (absolute) by `tool`; returns
 * when it may go ahead.
 *
 * @throws ToolError `protected_path` or `outside_write_root` (never asked),
 *   `denied` when the user did not approve a write outside the working directory.
 */
export async function guardWrite(
  tool: string,
  path: string,
  context: ToolContext,
  options: WriteGuardOptions,
): Promise<void> {
  const [target, cwd, userHome, heraldRoot] = await Promise.all([
    realPath(path),
    realPath(context.cwd),
    realPath(options.userHome),
    realPath(heraldRootOf(context.home)),
  ]);
  const safeRoot = options.writeSafeRoot ? await realPath(options.writeSafeRoot) : undefined;
  const verdict = judgeWrite({ path: target, cwd, userHome, heraldRoot, safeRoot });
  if (verdict.kind === "allow") return;
  if (verdict.kind === "refuse") throw new ToolError(verdict.code, verdict.reason);
  const approved = await context.approve({
    tool,
    command: `${tool} ${path}`,
    reason: verdict.reason,
    ruleKey: verdict.ruleKey,
  });
  if (!approved) {
    throw new ToolError(
      "denied",
      `The write was not approved: ${verdict.reason}. Write inside the working directory or ask ` +
        "the user",
    );
  }
}
