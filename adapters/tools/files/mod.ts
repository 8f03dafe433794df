/**
 * The file tools: `read_file`, `write_file`, `patch` and `search_files`.
 * Paths are resolved against the session's working directory (`~` is the
 * user's home). Writes are atomic and report the syntax tier (`lint`) and,
 * when a language-server provider is configured and the syntax is clean,
 * its diagnostics (`lsp_diagnostics`, left out when empty).
 *
 * @module
 */

import type { TypedTool } from "../../../core/tools/types.ts";
import type { FileToolsOptions } from "./_common.ts";
import { createPatchTool, type PatchArgs, type PatchResult } from "./patch.ts";
import { createReadFileTool, type ReadFileArgs, type ReadResult } from "./read_file.ts";
import { createSearchFilesTool, type SearchFilesArgs, type SearchResult } from "./search_files.ts";
import { createWriteFileTool, type WriteFileArgs, type WriteResult } from "./write_file.ts";

export type { FileToolsOptions } from "./_common.ts";
export { globToRegExp } from "./glob.ts";
export type { PatchArgs, PatchResult } from "./patch.ts";
export { READ_MAX_CHARS, READ_MAX_LINES } from "./read_file.ts";
export type { ReadFileArgs, ReadResult } from "./read_file.ts";
export { SEARCH_MAX_RESULTS } from "./search_files.ts";
export type { SearchFilesArgs, SearchMatch, SearchResult } from "./search_files.ts";
export type { WriteFileArgs, WriteResult } from "./write_file.ts";

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
 * const files = createFileTools({ diagnostics: lsp.diagnose });
 * const result = await files.writeFile.run({ path: "a.json", content: "{}" }, ctx);
 * // { path: "/work/a.json", bytes_written: 2, lint: { status: "ok", output: "" } }
 * ```
 */
export function createFileTools(options: FileToolsOptions = {}): FileTools {
  return {
    readFile: createReadFileTool(options),
    writeFile: createWriteFileTool(options),
    patch: createPatchTool(options),
    searchFiles: createSearchFilesTool(options),
  };
}
