/**
 * The `patch` tool: replaces an exact string in a text file, then writes it
 * the way `write_file` does.
 *
 * @module
 */

import { z } from "zod";
import { defineTypedTool, ToolError, type TypedTool } from "../../../core/tools/types.ts";
import { type FileToolsOptions, guardOptions, pathResolver, readWholeText } from "./_common.ts";
import { guardWrite } from "./_write_guard.ts";
import { writeChecked, type WriteResult } from "./write_file.ts";

/** Result of `patch`: its inner write plus the number of replacements. */
export interface PatchResult extends WriteResult {
  replacements: number;
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
  return defineTypedTool({
    name: "patch",
    description:
      "Edit a file by replacing an exact string. old_string must match the file exactly " +
      "(whitespace, indentation, line breaks) and occur once, unless replace_all is true. " +
      "Returns the same result as write_file plus `replacements`.",
    schema: patchArgs,
    async run(args, context): Promise<PatchResult> {
      const path = resolvePath(args.path, context.cwd);
      if (args.old_string === "") {
        throw new ToolError(
          "invalid_argument",
          "old_string is empty; give the exact text to replace, or use write_file to write a whole file",
        );
      }
      await guardWrite("patch", path, context, guardOptions(options));
      const text = await readWholeText(path);
      const count = countOccurrences(text, args.old_string);
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
      const written = await writeChecked(path, next, options.diagnostics);
      return { ...written, replacements: args.replace_all ? count : 1 };
    },
    mutatedPath: (args, context) => resolvePath(args.path, context.cwd),
  });
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
