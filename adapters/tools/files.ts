/**
 * The file tools: `read_file`, `write_file`, `patch` and `search_files`.
 * Paths are resolved against the session's working directory (`~` is the
 * user's home). Writes are atomic and report the syntax tier (`lint`) and,
 * when a language-server provider is configured and the syntax is clean,
 * its diagnostics (`lsp_diagnostics`, left out when empty).
 *
 * @module
 */

import { dirname, join, relative } from "node:path";
import { closest } from "../../core/_util/suggest.ts";
import { type LintResult, ToolError } from "../../core/tools/types.ts";
import { defineTypedTool, type TypedTool } from "./_typed.ts";
import { z } from "zod";
import { writeFileAtomic } from "../home/atomic.ts";
import { lintFile } from "./lint.ts";
import { displayPath, resolveToolPath, userHome } from "./_paths.ts";

/** Lines `read_file` returns at most per call. */
export const READ_MAX_LINES = 2000;
/** Characters `read_file` returns at most per call. */
export const READ_MAX_CHARS = 100_000;
/** Results `search_files` returns at most per call. */
export const SEARCH_MAX_RESULTS = 500;
const SEARCH_DEFAULT_LIMIT = 50;
/** Files larger than this are not searched. */
const SEARCH_MAX_FILE_BYTES = 10 * 1024 * 1024;
const SEARCH_MAX_LINE_CHARS = 400;
const SKIPPED_DIRS = new Set([".git", "node_modules", ".hg", ".svn"]);
const BINARY_SNIFF_BYTES = 8192;

/** Options of {@link createFileTools}. */
export interface FileToolsOptions {
  /**
   * Semantic diagnostics for a file just written (the language-server seam).
   * Called only when the syntax check is clean; an empty string or a thrown
   * error means "nothing to report".
   */
  diagnostics?: (path: string) => Promise<string>;
  /** Folder that `~` expands to; defaults to the user's home (`HOME`). */
  homeDir?: string;
}

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

/** Result of `patch`: its inner write plus the number of replacements. */
export interface PatchResult extends WriteResult {
  replacements: number;
}

/** Result of `read_file`. */
export interface ReadResult {
  path: string;
  content: string;
  total_lines: number;
  truncated: boolean;
  /** Where to continue reading when `truncated`. */
  next_offset?: number;
}

/** One content match of `search_files`. */
export interface SearchMatch {
  file: string;
  line: number;
  text: string;
}

/** Result of `search_files`. */
export type SearchResult =
  | { mode: "content"; matches: SearchMatch[]; count: number; truncated: boolean }
  | { mode: "files"; files: string[]; count: number; truncated: boolean };

const readArgs = z.object({
  path: z.string().min(1).describe("File to read; relative to the working directory, ~ for home."),
  offset: z.number().int().min(1).optional().describe("First line to return, 1-based (default 1)."),
  limit: z.number().int().min(1).optional().describe(
    `Number of lines to return (default and maximum ${READ_MAX_LINES}).`,
  ),
});

const writeArgs = z.object({
  path: z.string().min(1).describe(
    "File to create or overwrite; relative to the working directory, ~ for home. Parent folders are created.",
  ),
  content: z.string().describe("The complete new content of the file, written exactly as given."),
});

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

const searchArgs = z.object({
  pattern: z.string().describe(
    "JavaScript regular expression. In content mode it is matched against each line; in files " +
      "mode against each file's path relative to the search folder (a glob like *.ts also works).",
  ),
  path: z.string().optional().describe(
    "Folder (or single file) to search; default the working directory.",
  ),
  glob: z.string().optional().describe(
    "Only search files whose name matches this glob, e.g. *.ts or src/**/*.py.",
  ),
  mode: z.enum(["content", "files"]).optional().describe(
    "content (default): matching lines as {file, line, text}; files: matching file paths.",
  ),
  limit: z.number().int().min(1).optional().describe(
    `Maximum results (default ${SEARCH_DEFAULT_LIMIT}, at most ${SEARCH_MAX_RESULTS}).`,
  ),
});

/** Arguments of `read_file`. */
export type ReadFileArgs = z.infer<typeof readArgs>;
/** Arguments of `write_file`. */
export type WriteFileArgs = z.infer<typeof writeArgs>;
/** Arguments of `patch`. */
export type PatchArgs = z.infer<typeof patchArgs>;
/** Arguments of `search_files`. */
export type SearchFilesArgs = z.infer<typeof searchArgs>;

/** The four file tools, sharing one set of options. */
export interface FileTools {
  readFile: TypedTool<ReadFileArgs, ReadResult>;
  writeFile: TypedTool<WriteFileArgs, WriteResult>;
  patch: TypedTool<PatchArgs, PatchResult>;
  searchFiles: TypedTool<SearchFilesArgs, SearchResult>;
}

/**
 * Creates the file tools.
 *
 * @example
 * ```ts
 * const files = createFileTools({ diagnostics: (path) => lsp.diagnose(path) });
 * const result = await files.writeFile.run({ path: "a.json", content: "{}" }, ctx);
 * // { path: "/work/a.json", bytes_written: 2, lint: { status: "ok", output: "" } }
 * ```
 */
export function createFileTools(options: FileToolsOptions = {}): FileTools {
  const home = () => options.homeDir ?? userHome();
  const resolvePath = (path: string, cwd: string) => resolveToolPath(path, cwd, home());

  /** Writes atomically, then runs the syntax tier and (when clean) the diagnostics provider. */
  async function write(path: string, content: string): Promise<WriteResult> {
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
      lint: await lintFile(target, content).catch((error) => ({
        status: "skipped" as const,
        output: `the syntax check failed to run: ${error instanceof Error ? error.message : error}`,
      })),
    };
    if (options.diagnostics && result.lint.status === "ok") {
      const diagnostics = await options.diagnostics(target).catch(() => "");
      if (diagnostics) result.lsp_diagnostics = diagnostics;
    }
    return result;
  }

  const readFile = defineTypedTool({
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

  const writeFile = defineTypedTool({
    name: "write_file",
    description:
      "Create or overwrite a file with exactly the given content (parent folders are created). " +
      "Returns bytes_written and a syntax check (`lint`) for JSON, YAML, TypeScript/JavaScript and Python. " +
      "Prefer `patch` for small edits to an existing file.",
    schema: writeArgs,
    run: (args, context) => write(resolvePath(args.path, context.cwd), args.content),
    mutatedPath: (args, context) => resolvePath(args.path, context.cwd),
  });

  const patch = defineTypedTool({
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
      return { ...(await write(path, next)), replacements: args.replace_all ? count : 1 };
    },
    mutatedPath: (args, context) => resolvePath(args.path, context.cwd),
  });

  const searchFiles = defineTypedTool({
    name: "search_files",
    description: "Search files under a folder, skipping .git, node_modules and binary files. " +
      "mode content (default) returns lines matching the regular expression as {file, line, text}; " +
      "mode files returns paths whose relative path matches it. Narrow with `glob` (e.g. *.ts).",
    schema: searchArgs,
    readOnly: true,
    run: (args, context) =>
      search({
        root: resolvePath(args.path ?? ".", context.cwd),
        cwd: context.cwd,
        pattern: args.pattern,
        glob: args.glob,
        mode: args.mode ?? "content",
        limit: Math.min(args.limit ?? SEARCH_DEFAULT_LIMIT, SEARCH_MAX_RESULTS),
        signal: context.signal,
      }),
  });

  return { readFile, writeFile, patch, searchFiles };
}

// --- reading -------------------------------------------------------------------

/** Stats a path for reading; refuses missing files, folders and devices with a clear error. */
async function statForRead(path: string): Promise<Deno.FileInfo> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError("not_found", `File "${path}" not found${await suggestSibling(path)}`);
    }
    throw fsError(error, path, "read");
  }
  if (info.isDirectory) {
    throw new ToolError(
      "is_directory",
      `"${path}" is a directory; use search_files with mode "files" to list it`,
    );
  }
  if (!info.isFile) {
    throw new ToolError("not_regular_file", `"${path}" is not a regular file (a device or socket)`);
  }
  return info;
}

/** `; did you mean "x"?` for a missing file whose folder has a similarly named entry. */
async function suggestSibling(path: string): Promise<string> {
  try {
    const names: string[] = [];
    for await (const entry of Deno.readDir(dirname(path))) names.push(entry.name);
    const name = path.slice(dirname(path).length + 1);
    const match = closest(name, names);
    return match ? `; did you mean "${dirname(path)}/${match}"?` : "";
  } catch {
    return "";
  }
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

/** Reads a whole text file for patching; refuses binary files. */
async function readWholeText(path: string): Promise<string> {
  const info = await statForRead(path);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    throw fsError(error, path, "read");
  }
  if (looksBinary(bytes)) throw binaryError(path, bytes, info.size);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw binaryError(path, bytes, info.size);
  }
}

function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

const MAGIC: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image"],
  [[0xff, 0xd8, 0xff], "JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "GIF image"],
  [[0x25, 0x50, 0x44, 0x46], "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "ZIP archive"],
  [[0x1f, 0x8b], "gzip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], "SQLite database"],
];

function binaryError(path: string, head: Uint8Array, size: number): ToolError {
  const kind = MAGIC.find(([magic]) => magic.every((byte, i) => head[i] === byte))?.[1] ??
    "binary data";
  return new ToolError(
    "binary_file",
    `"${path}" is a binary file (${kind}, ${formatSize(size)}); read_file only shows text`,
  );
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// --- writing -------------------------------------------------------------------

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

/** Maps a file-system error to a ToolError the model can act on. */
function fsError(error: unknown, path: string, verb: "read" | "write"): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof Deno.errors.PermissionDenied) {
    return new ToolError("permission_denied", `Cannot ${verb} "${path}": permission denied`);
  }
  if (error instanceof Deno.errors.NotFound) {
    return new ToolError("not_found", `Cannot ${verb} "${path}": a parent folder does not exist`);
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new ToolError(`${verb}_failed`, `Cannot ${verb} "${path}": ${reason}`);
}

// --- searching -----------------------------------------------------------------

interface SearchRequest {
  root: string;
  cwd: string;
  pattern: string;
  glob?: string;
  mode: "content" | "files";
  limit: number;
  signal: AbortSignal;
}

async function search(request: SearchRequest): Promise<SearchResult> {
  const { root, cwd, mode, limit, signal } = request;
  const regex = compilePattern(request.pattern, mode);
  const glob = request.glob ? globToRegExp(request.glob) : undefined;
  const globOnPath = request.glob?.includes("/") ?? false;

  let rootInfo: Deno.FileInfo;
  try {
    rootInfo = await Deno.stat(root);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError("not_found", `Search path "${root}" not found`);
    }
    throw fsError(error, root, "read");
  }

  const files: string[] = [];
  const matches: SearchMatch[] = [];
  let truncated = false;
  const walker = rootInfo.isDirectory ? walk(root) : single(root);
  for await (const path of walker) {
    if (signal.aborted) break;
    const rel = rootInfo.isDirectory
      ? relative(root, path).replaceAll("\\", "/")
      : basenameOf(path);
    if (glob && !glob.test(globOnPath ? rel : basenameOf(path))) continue;
    if (mode === "files") {
      if (!regex.test(rel)) continue;
      if (files.length >= limit) {
        truncated = true;
        break;
      }
      files.push(displayPath(path, cwd));
      continue;
    }
    const text = await readSearchable(path);
    if (text === undefined) continue;
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
      if (!regex.test(line)) continue;
      if (matches.length >= limit) {
        truncated = true;
        break;
      }
      matches.push({
        file: displayPath(path, cwd),
        line: i + 1,
        text: line.length > SEARCH_MAX_LINE_CHARS
          ? line.slice(0, SEARCH_MAX_LINE_CHARS) + "…"
          : line,
      });
    }
    if (truncated) break;
  }
  return mode === "files"
    ? { mode, files, count: files.length, truncated }
    : { mode, matches, count: matches.length, truncated };
}

function compilePattern(pattern: string, mode: "content" | "files"): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    if (mode === "files" && /[*?]/.test(pattern)) {
      const glob = globToRegExp(pattern);
      return pattern.includes("/") ? glob : new RegExp(`(^|/)${glob.source.slice(1)}`);
    }
    throw new ToolError(
      "invalid_pattern",
      `Invalid regular expression ${JSON.stringify(pattern)}: ${
        error instanceof Error ? error.message : error
      }`,
    );
  }
}

/** Converts a file glob (`*`, `**`, `?`, `[...]`, `{a,b}`) to an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        out += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) out += "\\[";
      else {
        out += "[" + glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\") + "]";
        i = end;
      }
    } else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) out += "|";
    else out += c.replace(/[.+^${}()|\\\/]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

function basenameOf(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

async function* single(path: string): AsyncGenerator<string> {
  yield path;
}

/** Files under `dir` in name order, skipping version-control and dependency folders and symlinked folders. */
async function* walk(dir: string): AsyncGenerator<string> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch {
    return; // unreadable folder: skip it
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walk(path);
    } else if (entry.isFile) {
      yield path;
    } else if (entry.isSymlink) {
      const info = await Deno.stat(path).catch(() => undefined);
      if (info?.isFile) yield path;
    }
  }
}

/** The text of a file worth searching, or undefined for big, binary or unreadable files. */
async function readSearchable(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > SEARCH_MAX_FILE_BYTES) return undefined;
    const bytes = await Deno.readFile(path);
    if (looksBinary(bytes)) return undefined;
    return new TextDecoder().decode(bytes);
  } catch {
    return undefined;
  }
}
