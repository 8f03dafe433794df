/**
 * The `read_file` tool: a window of lines from a text file, refusing binary
 * files. A line longer than the character cap is returned in pieces: the
 * result points at the same line with `next_char_offset`, and the next call
 * passes it back as `char_offset`.
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
  /** With `next_offset`: the character of that line to continue from (a line longer than the cap). */
  next_char_offset?: number;
}

const readArgs = z.object({
  path: z.string().min(1).describe("File to read; relative to the working directory, ~ for home."),
  offset: z.number().int().min(1).optional().describe("First line to return, 1-based (default 1)."),
  limit: z.number().int().min(1).optional().describe(
    `Number of lines to return (default and maximum ${READ_MAX_LINES}).`,
  ),
  char_offset: z.number().int().min(0).optional().describe(
    "For a line longer than the character cap: the character of line `offset` to start from " +
      "(pass the `next_char_offset` a previous call returned).",
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
      " characters from `offset`; when `truncated` is true, call again with `next_offset` " +
      "(and `char_offset` set to `next_char_offset` when one is given: a very long line). " +
      "Binary files are refused.",
    schema: readArgs,
    readOnly: true,
    run: (args, context) =>
      readText(
        resolvePath(args.path, context.cwd),
        args.offset ?? 1,
        Math.min(args.limit ?? READ_MAX_LINES, READ_MAX_LINES),
        args.char_offset ?? 0,
      ),
  });
}

async function readText(
  path: string,
  offset: number,
  limit: number,
  charOffset: number,
): Promise<ReadResult> {
  const info = await statForRead(path);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const selected: string[] = [];
  let chars = 0;
  let lineNumber = 0;
  let cut = false;
  /** Set when the first line returned is a piece of a longer line: where the next piece starts. */
  let nextCharOffset: number | undefined;
  let rest = "";
  /** Characters already dropped from the start of the line in `rest` (before `char_offset`). */
  let dropped = 0;
  let sniffed = false;

  const take = (whole: string, droppedBefore: number) => {
    lineNumber++;
    if (lineNumber < offset || cut || selected.length >= limit) return;
    let line = whole;
    if (lineNumber === offset && charOffset > 0) {
      if (charOffset >= droppedBefore + whole.length) {
        throw new ToolError(
          "out_of_range",
          `char_offset ${charOffset} is past the end of line ${lineNumber} of "${path}", ` +
            `which has ${droppedBefore + whole.length} characters`,
        );
      }
      line = whole.slice(charOffset - droppedBefore);
    }
    if (chars + line.length > READ_MAX_CHARS) {
      cut = true;
      if (selected.length === 0) {
        const start = lineNumber === offset ? charOffset : 0;
        nextCharOffset = start + READ_MAX_CHARS;
        selected.push(
          line.slice(0, READ_MAX_CHARS) +
            `\n[line ${lineNumber} continues: read it on with offset ${lineNumber} and ` +
            `char_offset ${nextCharOffset}]\n`,
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
        take(combined.slice(start, nl + 1), dropped);
        dropped = 0;
        start = nl + 1;
      }
      rest = combined.slice(start);
      // The line asked for from a character on: drop what comes before that character.
      if (lineNumber + 1 === offset && charOffset > dropped) {
        const skip = Math.min(charOffset - dropped, rest.length);
        rest = rest.slice(skip);
        dropped += skip;
      }
      // A line longer than the cap is cut anyway; do not hold more of it than needed.
      if (rest.length > READ_MAX_CHARS + 1) rest = rest.slice(0, READ_MAX_CHARS + 1);
    }
    try {
      rest += decoder.decode();
    } catch {
      throw binaryError(path, new Uint8Array(), info.size);
    }
    if (rest !== "" || dropped > 0) take(rest, dropped);
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
  if (nextCharOffset !== undefined) {
    result.next_offset = offset;
    result.next_char_offset = nextCharOffset;
  } else if (truncated) {
    result.next_offset = Math.max(lastLine + 1, offset + 1);
  }
  return result;
}
