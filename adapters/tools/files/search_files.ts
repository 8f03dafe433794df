/**
 * The `search_files` tool: matching lines (content mode) or matching paths
 * (files mode) under a folder, skipping version-control and dependency
 * folders, big files and binary files.
 *
 * @module
 */

import { join, relative } from "node:path";
import { z } from "zod";
import { defineTypedTool, ToolError, type TypedTool } from "../../../core/tools/types.ts";
import { displayPath } from "../_paths.ts";
import { type FileToolsOptions, fsError, looksBinary, pathResolver } from "./_common.ts";
import { globToRegExp } from "./glob.ts";

/** Results `search_files` returns at most per call. */
export const SEARCH_MAX_RESULTS = 500;
const SEARCH_DEFAULT_LIMIT = 50;
/** Files larger than this are not searched. */
const SEARCH_MAX_FILE_BYTES = 10 * 1024 * 1024;
const SEARCH_MAX_LINE_CHARS = 400;
const SKIPPED_DIRS = new Set([".git", "node_modules", ".hg", ".svn"]);

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

/** Arguments of `search_files`. */
export type SearchFilesArgs = z.infer<typeof searchArgs>;

/**
 * Creates the `search_files` tool.
 *
 * @example
 * ```ts
 * const searchFiles = createSearchFilesTool();
 * await searchFiles.run({ pattern: "TODO", glob: "*.ts" }, ctx);
 * // { mode: "content", matches: [{ file: "a.ts", line: 3, text: "// TODO" }], count: 1, ... }
 * ```
 */
export function createSearchFilesTool(
  options: FileToolsOptions = {},
): TypedTool<SearchFilesArgs, SearchResult> {
  const resolvePath = pathResolver(options);
  return defineTypedTool({
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
}

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
