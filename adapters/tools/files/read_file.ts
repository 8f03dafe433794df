/**
 * The `read_file` tool: a window of lines from a text file, refusing binary
 * files and cutting very long lines.
 *
 * @module
 */

import { z } from "zod";
import { defineTypedTool, ToolError, type TypedTool } from "../../../core/tools/types.ts";
import {
  binaryError,
  type FileToolsOptions,
  fsError,
  looksBinary,
  pathResolver,
  statForRead,
} from "./_common.ts";

/** Lines `read_file` returns at most per call. */
export const READ_MAX_LINES = 2000;
/** Characters `read_file` returns at most per call. */
export const READ_MAX_CHARS = 100_000;

/** Result of `read_file`. */
export interface ReadResult {
  path: string;
  content: string;
  total_lines: number;
  truncated: boolean;
  /** Where to continue reading when `truncated`. */
  next_offset?: number;
}

const readArgs = z.object({
  path: z.string().min(1).describe("File to read; relative to the working directory, ~ for home."),
  offset: z.number().int().min(1).optional().describe("First line to return, 1-based (default 1)."),
  limit: z.number().int().min(1).optional().describe(
    `Number of lines to return (default and maximum ${READ_MAX_LINES}).`,
  ),
});

/** Arguments of `read_file`. */
export type ReadFileArgs = z.infer<typeof readArgs>;

/**
 * Creates the `read_file` tool.
 *
 * @example
 * ```ts
 * const readFile = createReadFileTool({ homeDir: "/home/me" });
 * await readFile.run({ path: "notes.md", offset: 10, limit: 5 }, ctx);
 * ```
 */
export function createReadFileTool(
  options: FileToolsOptions = {},
): TypedTool<ReadFileArgs, ReadResult> {
  const resolvePath = pathResolver(options);
  return defineTypedTool({
    name: "read_file",
    description: "Read a text file. Returns up to " + READ_MAX_LINES + " lines or " +
      READ_MAX_CHARS.toLocaleString("en-US") +
      " characters from `offset`; when `truncated` is true, call again with `next_offset`. " +
      "Binary files are refused.",
    schema: readArgs,
    readOnly: true,
    run: (args, context) =>
      readText(
        resolvePath(args.path, context.cwd),
        args.offset ?? 1,
        Math.min(args.limit ?? READ_MAX_LINES, READ_MAX_LINES),
      ),
  });
}

async function readText(path: string, offset: number, limit: number): Promise<ReadResult> {
  const info = await statForRead(path);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const selected: string[] = [];
  let chars = 0;
  let lineNumber = 0;
  let cut = false;
  let rest = "";
  let sniffed = false;

  const take = (line: string) => {
    lineNumber++;
    if (lineNumber < offset || cut || selected.length >= limit) return;
    if (chars + line.length > READ_MAX_CHARS) {
      cut = true;
      if (selected.length === 0) {
        selected.push(
          line.slice(0, READ_MAX_CHARS) +
            `\n[line ${lineNumber} cut after ${
              READ_MAX_CHARS.toLocaleString("en-US")
            } characters]\n`,
        );
      }
      return;
    }
    selected.push(line);
    chars += line.length;
  };

  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    throw fsError(error, path, "read");
  }
  try {
    for await (const chunk of file.readable) {
      if (!sniffed) {
        sniffed = true;
        if (looksBinary(chunk)) throw binaryError(path, chunk, info.size);
      }
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        throw binaryError(path, chunk, info.size);
      }
      let start = 0;
      const combined = rest + text;
      for (let nl = combined.indexOf("\n"); nl >= 0; nl = combined.indexOf("\n", start)) {
        take(combined.slice(start, nl + 1));
        start = nl + 1;
      }
      rest = combined.slice(start);
      // A line longer than the cap is cut anyway; do not hold more of it than needed.
      if (rest.length > READ_MAX_CHARS + 1) rest = rest.slice(0, READ_MAX_CHARS + 1);
    }
    try {
      rest += decoder.decode();
    } catch {
      throw binaryError(path, new Uint8Array(), info.size);
    }
    if (rest !== "") take(rest);
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw fsError(error, path, "read");
  }

  const totalLines = lineNumber;
  if (offset > 1 && offset > totalLines) {
    throw new ToolError(
      "out_of_range",
      `offset ${offset} is past the end of "${path}", which has ${totalLines} lines`,
    );
  }
  const lastLine = offset + selected.length - 1;
  const truncated = cut || lastLine < totalLines;
  const result: ReadResult = {
    path,
    content: selected.join(""),
    total_lines: totalLines,
    truncated,
  };
  if (truncated) result.next_offset = Math.max(lastLine + 1, offset + 1);
  return result;
}
