/**
 * The text a `write_file` call is about to replace, so a surface can show
 * the write as a diff (the dashboard's `tool.start` carries it as `before`).
 * Read synchronously when the call starts, before the tool runs.
 *
 * @module
 */

import { parseJsonObject } from "../../../core/_util/json.ts";
import { resolveToolPath, userHome } from "../_paths.ts";

/** Files larger than this are not read for a diff. */
export const MAX_BEFORE_WRITE_BYTES = 1_000_000;

/**
 * For a `write_file` call with JSON `args`: the file's text now (before the
 * write), null when the file does not exist yet, undefined when there is
 * nothing to show (another tool, no path, a file too large, unreadable or
 * not text).
 *
 * @example
 * ```ts
 * readBeforeWrite("write_file", '{"path":"a.txt","content":"new"}', "/work"); // "old\n"
 * ```
 */
export function readBeforeWrite(
  tool: string,
  args: string,
  cwd: string,
  home: string = userHome(),
): string | null | undefined {
  if (tool !== "write_file") return undefined;
  const path = parseJsonObject(args)?.path;
  if (typeof path !== "string" || path === "") return undefined;
  const full = resolveToolPath(path, cwd, home);
  try {
    const info = Deno.statSync(full);
    if (!info.isFile || info.size > MAX_BEFORE_WRITE_BYTES) return undefined;
    return new TextDecoder("utf-8", { fatal: true }).decode(Deno.readFileSync(full));
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? null : undefined;
  }
}
