/**
 * The `patch` tool: replaces an exact string in a text file, then writes it
 * the way `write_file` does. A patch that would change nothing (the same
 * text, or the new text already in place) succeeds with `no_change` and
 * leaves the file alone; failures on one file in a session get sharper
 * hints each time (read it again, then write it whole).
 *
 * @module
 */

import { z } from "zod";
import {
  defineTypedTool,
  type ToolContext,
  ToolError,
  type TypedTool,
} from "../../../core/tools/types.ts";
import { type FileToolsOptions, guardOptions, pathResolver, readWholeText } from "./_common.ts";
import { guardWrite } from "./_write_guard.ts";
import { writeChecked, type WriteResult } from "./write_file.ts";

/** Result of `patch`: its inner write plus the number of replacements. */
export interface PatchResult extends WriteResult {
  replacements: number;
  /** True when the file already said what the patch asked for; it was not touched. */
  no_change?: true;
}

const patchArgs = z.object({
  path: z.string().min(1).describe("File to edit; relative to the working directory, ~ for home."),
  old_string: z.string().describe(
    "Exact text to find, including whitespace and line breaks. Must occur once unless replace_all is set.",
  ),
  new_string: z.string().describe("Text to put in its place (empty to delete)."),
  replace_all: z.boolean().optional().describe(
    "Replace every occurrence instead of requiring exactly one (default false).",
  ),
});

/** Arguments of `patch`. */
export type PatchArgs = z.infer<typeof patchArgs>;

/**
 * Creates the `patch` tool.
 *
 * @example
 * ```ts
 * const patch = createPatchTool();
 * await patch.run({ path: "a.ts", old_string: "let x", new_string: "const x" }, ctx);
 * // { path: "/work/a.ts", bytes_written: 42, lint: ..., replacements: 1 }
 * ```
 */
export function createPatchTool(options: FileToolsOptions = {}): TypedTool<PatchArgs, PatchResult> {
  const resolvePath = pathResolver(options);
  const failures = new FailureCounter();
  return defineTypedTool({
    name: "patch",
    description:
      "Edit a file by replacing an exact string. old_string must match the file exactly " +
      "(whitespace, indentation, line breaks) and occur once, unless replace_all is true. " +
      "Returns the same result as write_file plus `replacements`; `no_change: true` when the " +
      "file already holds the new text (nothing was written).",
    schema: patchArgs,
    async run(args, context): Promise<PatchResult> {
      const path = resolvePath(args.path, context.cwd);
      const key = `${context.sessionId}\0${path}`;
      try {
        const result = await patchFile(path, args, context, options);
        failures.clear(key);
        return result;
      } catch (error) {
        if (!(error instanceof ToolError) || !RETRYABLE.has(error.code)) throw error;
        throw escalate(error, failures.add(key), args.path);
      }
    },
    mutatedPath: (args, context) => resolvePath(args.path, context.cwd),
  });
}

/** Failure codes a model fixes by looking at the file again. */
const RETRYABLE = new Set(["not_found", "not_unique"]);

/** Failed patches per session and file, forgotten on the next success. */
class FailureCounter {
  readonly #counts = new Map<string, number>();
  add(key: string): number {
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    return count;
  }
  clear(key: string): void {
    this.#counts.delete(key);
  }
}

/** The error of the `count`th failed patch of a file in a row, with the hint for that stage. */
function escalate(error: ToolError, count: number, path: string): ToolError {
  if (count < 2) return error;
  const hint = count === 2
    ? ` This is the second failed patch of "${path}" in a row: read_file it again now and ` +
      "copy old_string from what it shows."
    : ` This is failed patch number ${count} of "${path}" in a row: stop patching it; read it ` +
      "whole and write the complete new content with write_file.";
  return new ToolError(error.code, error.message + hint);
}

async function patchFile(
  path: string,
  args: PatchArgs,
  context: ToolContext,
  options: FileToolsOptions,
): Promise<PatchResult> {
  if (args.old_string === "") {
    throw new ToolError(
      "invalid_argument",
      "old_string is empty; give the exact text to replace, or use write_file to write a whole file",
    );
  }
  await guardWrite("patch", path, context, guardOptions(options));
  const text = await readWholeText(path);
  const unchanged: PatchResult = {
    path,
    bytes_written: 0,
    lint: { status: "skipped", output: "" },
    replacements: 0,
    no_change: true,
  };
  if (args.old_string === args.new_string) return unchanged;
  const count = countOccurrences(text, args.old_string);
  // Already applied (a retry after a lost answer, say): the new text is there, the old is not.
  if (count === 0 && args.new_string !== "" && text.includes(args.new_string)) {
    return unchanged;
  }
  if (count === 0) {
    const lineEndings = text.includes("\r\n") && /(^|[^\r])\n/.test(args.old_string)
      ? ` The file uses CRLF line endings; old_string must contain "\\r\\n".`
      : "";
    throw new ToolError(
      "not_found",
      `Could not find ${excerpt(args.old_string)} in "${args.path}". Use read_file to check ` +
        `the current text; whitespace and line breaks must match exactly.${lineEndings}`,
    );
  }
  if (count > 1 && !args.replace_all) {
    throw new ToolError(
      "not_unique",
      `${excerpt(args.old_string)} was found ${count} times in "${args.path}"; ` +
        "add surrounding context to old_string or set replace_all",
    );
  }
  let next: string;
  if (args.replace_all) {
    next = text.split(args.old_string).join(args.new_string);
  } else {
    const at = text.indexOf(args.old_string);
    next = text.slice(0, at) + args.new_string + text.slice(at + args.old_string.length);
  }
  const written = await writeChecked(path, next, options.diagnostics, text);
  return { ...written, replacements: args.replace_all ? count : 1 };
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
    count++;
  }
  return count;
}

/** A short quoted excerpt of searched text for error messages. */
function excerpt(text: string, max = 120): string {
  const short = text.length > max ? text.slice(0, max) + "…" : text;
  return JSON.stringify(short);
}
