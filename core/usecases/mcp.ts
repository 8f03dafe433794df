/**
 * The MCP server use cases: list a profile's servers (secrets hidden), add
 * one (secret values to `.env`), remove one, turn one on or off, find one
 * to probe with its references expanded, and the catalog with what is
 * installed. Each edit is planned inside the file locks from config.yaml as
 * it is then. Talking to a server is adapters/mcp's.
 *
 * @module
 */

import {
  type ConfigWarning,
  type EnvLookup,
  parseConfig,
  type ResolvedReference,
} from "../config/mod.ts";
import { HeraldError, NotFoundError } from "../errors.ts";
import {
  describeMcpServers,
  MCP_CATALOG,
  type McpCatalogEntry,
  mcpCatalogEntry,
  type McpCatalogParam,
  type McpServerConfig,
  McpServerExistsError,
  type McpServerInput,
  type McpServerView,
  planMcpServerAdd,
  planMcpServerEnabled,
  planMcpServerRemove,
  renderMcpCatalogEntry,
} from "../mcp/mod.ts";
import { loadExpandedConfig, loadWrittenConfig } from "./config.ts";
import type { ProfileContext } from "./ports.ts";

/** A catalog entry name that is not in the catalog. */
export class McpCatalogUnknownError extends HeraldError {
  /** Creates the error for `name`. */
  constructor(readonly entry: string) {
    super(
      "mcp_catalog_unknown",
      "not_found",
      `No catalog entry "${entry}" (available: ${MCP_CATALOG.map((e) => e.name).join(", ")})`,
      { details: { entry } },
    );
  }
}

/** A profile's MCP servers (`GET /api/mcp/servers`; `mcp list --json` prints `servers`). */
export interface McpServersView {
  profile: string;
  file: string;
  servers: McpServerView[];
  warnings: ConfigWarning[];
}

/**
 * The configured servers, sorted by name, secrets hidden.
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function listMcpServers(profile: ProfileContext): Promise<McpServersView> {
  const loaded = await loadWrittenConfig(profile);
  return {
    profile: profile.name,
    file: profile.files.configPath,
    servers: describeMcpServers(loaded.config.mcp_servers),
    warnings: loaded.warnings,
  };
}

/** What adding a server did. */
export interface McpServerAdded {
  profile: string;
  file: string;
  /** The new entry as listed (secrets hidden). */
  server: McpServerView;
  /** `.env` variables its secrets were stored in (never the values). */
  secrets: string[];
}

/**
 * Adds a server: exactly one of a command (stdio) or a URL (HTTP); secret
 * environment values and credential headers go to `.env` and the entry
 * references them.
 *
 * @throws McpServerNameError, McpServerExistsError, ConfigValueError, ConfigParseError:
 *   nothing is written.
 *
 * @example
 * ```ts
 * await addMcpServer(profile, { name: "fetch", command: "uvx", args: ["mcp-server-fetch"] });
 * ```
 */
export async function addMcpServer(
  profile: ProfileContext,
  input: McpServerInput,
): Promise<McpServerAdded> {
  const file = profile.files.configPath;
  const plan =
    (await profile.files.updateConfig((current) => planMcpServerAdd(current, file, input)))!;
  const servers = describeMcpServers(parseConfig(plan.text, file).config.mcp_servers);
  return {
    profile: profile.name,
    file,
    server: servers.find((server) => server.name === input.name)!,
    secrets: plan.secrets.map((secret) => secret.name),
  };
}

/** What removing a server did. */
export interface McpServerRemoved {
  profile: string;
  removed: string;
}

/**
 * Removes server `name` (its `.env` secrets stay).
 *
 * @throws NotFoundError when no such server is configured.
 */
export async function removeMcpServer(
  profile: ProfileContext,
  name: string,
): Promise<McpServerRemoved> {
  const file = profile.files.configPath;
  await profile.files.updateConfig((current) => ({
    text: planMcpServerRemove(current, file, name),
  }));
  return { profile: profile.name, removed: name };
}

/** What turning a server on or off did. */
export interface McpServerToggled {
  profile: string;
  name: string;
  enabled: boolean;
}

/**
 * Turns server `name` on or off.
 *
 * @throws NotFoundError when no such server is configured.
 */
export async function setMcpServerEnabled(
  profile: ProfileContext,
  name: string,
  enabled: boolean,
): Promise<McpServerToggled> {
  const file = profile.files.configPath;
  await profile.files.updateConfig((current) => ({
    text: planMcpServerEnabled(current, file, name, enabled),
  }));
  return { profile: profile.name, name, enabled };
}

/** A server ready to probe: its entry with `${NAME}` references expanded, and how to start it. */
export interface McpProbeTarget {
  name: string;
  server: McpServerConfig;
  /** `terminal.env_passthrough`: names the server's process inherits. */
  envPassthrough: readonly string[];
  /** The profile's credentials (its `.env`, then the environment). */
  envLookup: EnvLookup;
  /** Values substituted for references, to hide again in anything shown. */
  resolved: readonly ResolvedReference[];
  /** Where the server starts: the profile home. */
  cwd: string;
}

/**
 * Server `name` as a session would start it (references expanded from the
 * profile's credentials), for a connection check.
 *
 * @throws NotFoundError when no such server is configured.
 */
export async function findMcpServerToProbe(
  profile: ProfileContext,
  name: string,
): Promise<McpProbeTarget> {
  const loaded = await loadExpandedConfig(profile);
  if (!Object.hasOwn(loaded.config.mcp_servers, name)) {
    throw new NotFoundError(
      "MCP server",
      name,
      `it is not configured in ${profile.files.configPath}`,
    );
  }
  return {
    name,
    server: loaded.config.mcp_servers[name],
    envPassthrough: loaded.config.terminal.env_passthrough,
    envLookup: loaded.credentials.lookup,
    resolved: loaded.resolved,
    cwd: profile.home,
  };
}

/** A catalog entry as listed, with whether the profile has it. */
export interface McpCatalogEntryView {
  name: string;
  label: string;
  description: string;
  transport: "stdio";
  command: string;
  args: readonly string[];
  params: readonly McpCatalogParam[];
  requires: string;
  homepage: string;
  installed: boolean;
}

/** The built-in catalog (`GET /api/mcp/catalog`). */
export interface McpCatalogView {
  profile: string;
  entries: McpCatalogEntryView[];
}

/** The built-in catalog, each entry marked installed when the profile has a server by its name. */
export async function listMcpCatalog(profile: ProfileContext): Promise<McpCatalogView> {
  const installed = (await loadWrittenConfig(profile)).config.mcp_servers;
  return {
    profile: profile.name,
    entries: MCP_CATALOG.map((entry) => ({
      name: entry.name,
      label: entry.label,
      description: entry.description,
      transport: "stdio",
      command: entry.command,
      args: entry.args,
      params: entry.params,
      requires: entry.requires,
      homepage: entry.homepage,
      installed: Object.hasOwn(installed, entry.name),
    })),
  };
}

/** A catalog install, checked and rendered: the `mcp add` it amounts to. */
export interface McpCatalogInstall {
  entry: McpCatalogEntry;
  /** The name the server gets in config.yaml. */
  serverName: string;
  command: string;
  args: string[];
}

/**
 * Checks a catalog install before it runs: the entry exists, its required
 * parameters are given, and the profile has no server by that name yet.
 *
 * @throws McpCatalogUnknownError, McpCatalogParamError, McpServerExistsError.
 */
export async function planMcpCatalogInstall(
  profile: ProfileContext,
  name: string,
  params: Readonly<Record<string, string>>,
  serverName?: string,
): Promise<McpCatalogInstall> {
  const entry = mcpCatalogEntry(name);
  if (!entry) throw new McpCatalogUnknownError(name);
  const rendered = renderMcpCatalogEntry(entry, params);
  const target = serverName?.trim() || entry.name;
  if (Object.hasOwn((await loadWrittenConfig(profile)).config.mcp_servers, target)) {
    throw new McpServerExistsError(target);
  }
  return { entry, serverName: target, command: rendered.command, args: rendered.args };
}
