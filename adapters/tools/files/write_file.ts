/**
 * The `write_file` tool, and the checked write it shares with `patch`:
 * atomic, then the syntax tier (`lint`) and, when the syntax is clean, the
 * language-server diagnostics (`lsp_diagnostics`, left out when empty).
 *
 * @module
 */

import { dirname } from "node:path";
import { z } from "zod";
import {
  defineTypedTool,
  type LintResult,
  ToolError,
  type TypedTool,
} from "../../../core/tools/types.ts";
import { writeFileAtomic } from "../../fs/atomic.ts";
import { lintFile } from "../lint.ts";
import { type FileToolsOptions, fsError, guardOptions, pathResolver } from "./_common.ts";
import { guardWrite } from "./_write_guard.ts";
import { readBeforeWrite } from "./before_write.ts";

/** Result of `write_file`. */
export interface WriteResult {
  /** Absolute path written. */
  path: string;
  /** UTF-8 byte count of the content. */
  bytes_written: number;
  lint: LintResult;
  /** Language-server diagnostics; present only when non-empty. */
  lsp_diagnostics?: string;
}

const writeArgs = z.object({
  path: z.string().min(1).describe(
    "File to create or overwrite; relative to the working directory, ~ for home. Parent folders are created.",
  ),
  content: z.string().describe("The complete new content of the file, written exactly as given."),
});

/** Arguments of `write_file`. */
export type WriteFileArgs = z.infer<typeof writeArgs>;

/**
 * Creates the `write_file` tool. A write that went ahead hands the file's
 * text before it to the surfaces (`context.display({ before })`, see
 * before_write.ts), never to the model.
 *
 * @example
 * ```ts
 * const writeFile = createWriteFileTool({ diagnostics: lsp.diagnose });
 * await writeFile.run({ path: "a.json", content: "{}" }, ctx);
 * // { path: "/work/a.json", bytes_written: 2, lint: { status: "ok", output: "" } }
 * ```
 */
export function createWriteFileTool(
  options: FileToolsOptions = {},
): TypedTool<WriteFileArgs, WriteResult> {
  const resolvePath = pathResolver(options);
  return defineTypedTool({
    name: "write_file",
    description:
      "Create or overwrite a file with exactly the given content (parent folders are created). " +
      "Returns bytes_written and a syntax check (`lint`) for JSON, YAML, TypeScript/JavaScript and Python. " +
      "Prefer `patch` for small edits to an existing file.",
    schema: writeArgs,
    async run(args, context) {
      const path = resolvePath(args.path, context.cwd);
      await guardWrite("write_file", path, context, guardOptions(options));
      // Read only now that the write may go ahead; shown once it went.
      const before = await readBeforeWrite(path);
      const result = await writeChecked(path, args.content, options.diagnostics, before);
      if (before !== undefined) context.display?.({ before });
      return result;
    },
    mutatedPath: (args, context) => resolvePath(args.path, context.cwd),
  });
}

/**
 * Writes atomically, then runs the syntax tier and, when it found no error,
 * the diagnostics provider. `before` is the file's text before the write
 * (null: a new file; undefined: unknown): both tiers then report only what
 * the write introduced.
 *
 * @example
 * ```ts
 * await writeChecked("/work/a.json", "{}"); // { path: "/work/a.json", bytes_written: 2, lint: ... }
 * ```
 */
export async function writeChecked(
  path: string,
  content: string,
  diagnostics?: FileToolsOptions["diagnostics"],
  before?: string | null,
): Promise<WriteResult> {
  const target = await writeTarget(path);
  try {
    await Deno.mkdir(dirname(target), { recursive: true });
    await writeFileAtomic(target, content, { mode: 0o644 });
  } catch (error) {
    throw fsError(error, target, "write");
  }
  const result: WriteResult = {
    path: target,
    bytes_written: new TextEncoder().encode(content).length,
    lint: await lintFile(target, content, before).catch((error) => ({
      status: "skipped" as const,
      output: `the syntax check failed to run: ${error instanceof Error ? error.message : error}`,
    })),
  };
  // "skipped" counts as clean: a language without a syntax checker may still have a server.
  if (diagnostics && result.lint.status !== "error") {
    const found = await diagnostics(target, before).catch(() => "");
    if (found) result.lsp_diagnostics = found;
  }
  return result;
}

/** The file a write should replace: follows a symlink, refuses a directory. */
async function writeTarget(path: string): Promise<string> {
  try {
    const info = await Deno.stat(path);
    if (info.isDirectory) {
      throw new ToolError("is_directory", `"${path}" is a directory; give a file path to write`);
    }
    return await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return path;
    if (error instanceof ToolError) throw error;
    throw fsError(error, path, "write");
  }
}
