/**
 * A small built-in catalog of well-known MCP servers, each a command
 * template that becomes an `mcp_servers.<name>` entry when installed.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** A value the user supplies when installing a catalog entry (`{path}` in the args). */
export interface McpCatalogParam {
  name: string;
  description: string;
  required: boolean;
}

/** One catalog entry. */
export interface McpCatalogEntry {
  /** Catalog name, also the default server name. */
  name: string;
  label: string;
  description: string;
  command: string;
  /** Arguments; `{param}` placeholders are filled in at install time. */
  args: readonly string[];
  params: readonly McpCatalogParam[];
  /** What must be installed on the machine for the command to run. */
  requires: string;
  homepage: string;
}

/** The built-in catalog. */
export const MCP_CATALOG: readonly McpCatalogEntry[] = [
  {
    name: "filesystem",
    label: "Filesystem",
    description: "Read, write and search files inside the folders you allow",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-filesystem", "{path}"],
    params: [{ name: "path", description: "Folder the server may access", required: true }],
    requires: "Node.js (npx)",
    homepage: "https://github.com/modelcontextprotocol/servers/tree/main/src/filesystem",
  },
  {
    name: "fetch",
    label: "Fetch",
    description: "Fetch web pages and convert them to Markdown",
    command: "uvx",
    args: ["mcp-server-fetch"],
    params: [],
    requires: "uv (uvx)",
    homepage: "https://github.com/modelcontextprotocol/servers/tree/main/src/fetch",
  },
  {
    name: "everything",
    label: "Everything (reference server)",
    description: "The MCP reference server: sample tools, prompts and resources for testing",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-everything", "stdio"],
    params: [],
    requires: "Node.js (npx)",
    homepage: "https://github.com/modelcontextprotocol/servers/tree/main/src/everything",
  },
  {
    name: "memory",
    label: "Memory",
    description: "A knowledge graph the agent keeps across sessions",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-memory"],
    params: [],
    requires: "Node.js (npx)",
    homepage: "https://github.com/modelcontextprotocol/servers/tree/main/src/memory",
  },
  {
    name: "git",
    label: "Git",
    description: "Read and search a Git repository",
    command: "uvx",
    args: ["mcp-server-git", "--repository", "{path}"],
    params: [{ name: "path", description: "The repository folder", required: true }],
    requires: "uv (uvx)",
    homepage: "https://github.com/modelcontextprotocol/servers/tree/main/src/git",
  },
];

/** The catalog entry named `name`, or undefined. */
export function mcpCatalogEntry(name: string): McpCatalogEntry | undefined {
  return MCP_CATALOG.find((entry) => entry.name === name);
}

/** A catalog install that is missing a value it needs. */
export class McpCatalogParamError extends HeraldError {
  /** Creates the error for entry `entry` and parameter `param`. */
  constructor(readonly entry: string, readonly param: string, description: string) {
    super(
      "mcp_catalog_param_missing",
      "usage",
      `Catalog entry "${entry}" needs "${param}" (${description.toLowerCase()}); pass it in params`,
      { details: { entry, param } },
    );
  }
}

/**
 * The command and arguments of a catalog entry with its `{param}`
 * placeholders filled in.
 *
 * @throws McpCatalogParamError when a required parameter is missing.
 *
 * @example
 * ```ts
 * renderMcpCatalogEntry(mcpCatalogEntry("filesystem")!, { path: "/srv/notes" }).args;
 * // ["-y", "@modelcontextprotocol/server-filesystem", "/srv/notes"]
 * ```
 */
export function renderMcpCatalogEntry(
  entry: McpCatalogEntry,
  params: Readonly<Record<string, string>> = {},
): { command: string; args: string[] } {
  for (const param of entry.params) {
    if (param.required && !params[param.name]?.trim()) {
      throw new McpCatalogParamError(entry.name, param.name, param.description);
    }
  }
  const args = entry.args.map((arg) =>
    arg.replace(/\{(\w+)\}/g, (_, name: string) => params[name]?.trim() ?? "")
  ).filter((arg) => arg !== "");
  return { command: entry.command, args };
}
