/**
 * The built-in tools: terminal, file tools, memory and todo.
 *
 * @module
 */

import { createTodoTool } from "../../core/tools/todo.ts";
import type { Tool } from "../../core/tools/types.ts";
import { createFileTools, type FileToolsOptions } from "./files/mod.ts";
import { createMemoryTool, type MemoryToolOptions } from "./memory.ts";
import { createTerminalTool, type TerminalOptions } from "./terminal.ts";

export * from "./files/mod.ts";
export * from "./lint.ts";
export * from "./memory.ts";
export * from "./terminal.ts";
export { resolveToolPath } from "./_paths.ts";
export type { TypedTool } from "../../core/tools/types.ts";

/** Options of {@link builtinTools}. */
export interface BuiltinToolsOptions {
  /** Language-server diagnostics for written files (see {@link FileToolsOptions.diagnostics}). */
  diagnostics?: FileToolsOptions["diagnostics"];
  /** Folder that `~` expands to; defaults to the user's home. */
  homeDir?: string;
  /** Nothing outside this folder is written by the file tools (see {@link FileToolsOptions.writeSafeRoot}). */
  writeSafeRoot?: string;
  terminal?: Omit<TerminalOptions, "homeDir">;
  memory?: MemoryToolOptions;
}

/**
 * The built-in tools in their fixed order: terminal, read_file, write_file,
 * patch, search_files, memory, todo. Each call creates fresh instances (the
 * todo lists live in the returned tool).
 *
 * @example
 * ```ts
 * const tools = builtinTools({ diagnostics: lsp.diagnose });
 * tools.map((tool) => tool.name);
 * ```
 */
export function builtinTools(options: BuiltinToolsOptions = {}): Tool[] {
  const files = createFileTools({
    diagnostics: options.diagnostics,
    homeDir: options.homeDir,
    writeSafeRoot: options.writeSafeRoot,
  });
  return [
    erase(createTerminalTool({ ...options.terminal, homeDir: options.homeDir })),
    erase(files.readFile),
    erase(files.writeFile),
    erase(files.patch),
    erase(files.searchFiles),
    erase(createMemoryTool(options.memory)),
    erase(createTodoTool()),
  ];
}

/** Forgets a tool's argument type; the registry validates arguments with its schema before `run`. */
function erase<Args>(tool: Tool<Args>): Tool {
  return tool as unknown as Tool;
}
