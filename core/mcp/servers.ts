/**
 * MCP servers in config.yaml (`mcp_servers.<name>`): adding, removing and
 * enabling entries with the user's comments kept, and describing them with
 * secrets hidden. Secret values (environment variables named like keys or
 * tokens, credential headers) go to `.env`; the entry only references them.
 * Pure: callers read and write the files.
 *
 * @module
 */

import YAML from "yaml";
import { parseConfigDocument } from "../config/load.ts";
import { type HeraldConfig, McpServerSchema } from "../config/schema.ts";
import { redactConfigValue } from "../config/redact.ts";
import { ConfigValueError, HeraldError, NotFoundError } from "../errors.ts";
import { isHttpUrl } from "../_util/url.ts";

/** Names a server may have: it becomes a config key. */
export const MCP_SERVER_NAME: RegExp = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A configured server as stored (after defaults). */
export type McpServerConfig = HeraldConfig["mcp_servers"][string];

/** What a new server entry is made from. */
export interface McpServerInput {
  name: string;
  command?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  url?: string;
  headers?: Readonly<Record<string, string>>;
  timeout?: number;
  enabled?: boolean;
}

/** A secret moved out of the entry into `.env`. */
export interface McpSecret {
  name: string;
  value: string;
}

/** The edit an add amounts to. */
export interface McpAddPlan {
  /** The new config.yaml text. */
  text: string;
  /** Variables to set in `.env` before the new text is written. */
  secrets: McpSecret[];
}

/** An add for a server name that is already configured. */
export class McpServerExistsError extends HeraldError {
  /** Creates the error for server `server`. */
  constructor(readonly server: string) {
    super(
      "mcp_server_exists",
      "conflict",
      `MCP server "${server}" is already configured; remove it first or choose another name`,
      { details: { server } },
    );
  }
}

/** A server name that cannot be a config key. */
export class McpServerNameError extends HeraldError {
  /** Creates the error for `input`. */
  constructor(readonly input: string) {
    super(
      "mcp_server_name_invalid",
      "usage",
      `Invalid MCP server name ${JSON.stringify(input)}: use 1-64 letters, digits, "_" or "-", ` +
        "starting with a letter or digit",
      { details: { input } },
    );
  }
}

/** True when config/redact.ts would hide `value` at `path`: it belongs in `.env`. */
function isSecretValue(path: string, value: string): boolean {
  return redactConfigValue(path, value) !== value;
}

function envNameFor(server: string, header: string): string {
  return `HERALD_MCP_${server}_${header}`.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
}

function checkName(name: string): string {
  if (!MCP_SERVER_NAME.test(name)) throw new McpServerNameError(name);
  return name;
}

/**
 * Works out adding server `input.name`: exactly one of `command` or `url`,
 * secrets moved to `.env`.
 *
 * @throws McpServerNameError, McpServerExistsError, ConfigValueError, ConfigParseError.
 */
export function planMcpServerAdd(text: string, file: string, input: McpServerInput): McpAddPlan {
  const name = checkName(input.name);
  const command = input.command?.trim();
  const url = input.url?.trim();
  const key = `mcp_servers.${name}`;
  if (!command === !url) {
    throw new ConfigValueError(
      key,
      null,
      "give either a command (stdio) or a url (HTTP), not both",
    );
  }
  if (url && !isHttpUrl(url)) {
    throw new ConfigValueError(`${key}.url`, url, "must be an http:// or https:// address");
  }
  const doc = parseConfigDocument(text, file);
  if (YAML.isMap(doc.get("mcp_servers")) && doc.hasIn(["mcp_servers", name])) {
    throw new McpServerExistsError(name);
  }
  const secrets: McpSecret[] = [];
  const entry: Record<string, unknown> = {};
  if (command) {
    entry.command = command;
    if (input.args?.length) entry.args = [...input.args];
    if (input.env && Object.keys(input.env).length > 0) {
      const env: Record<string, string> = {};
      for (const [variable, value] of Object.entries(input.env)) {
        if (isSecretValue(`${key}.env.${variable}`, value)) {
          secrets.push({ name: variable, value });
          env[variable] = `\${${variable}}`;
        } else {
          env[variable] = value;
        }
      }
      entry.env = env;
    }
  } else {
    entry.url = url;
    if (input.headers && Object.keys(input.headers).length > 0) {
      const headers: Record<string, string> = {};
      for (const [header, value] of Object.entries(input.headers)) {
        if (isSecretValue(`${key}.headers.${header}`, value)) {
          const variable = envNameFor(name, header);
          secrets.push({ name: variable, value });
          headers[header] = `\${${variable}}`;
        } else {
          headers[header] = value;
        }
      }
      entry.headers = headers;
    }
  }
  if (input.timeout !== undefined) entry.timeout = input.timeout;
  if (input.enabled === false) entry.enabled = false;
  const checked = McpServerSchema.safeParse(entry);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const path = [key, ...issue.path.map(String)].join(".");
    throw new ConfigValueError(path, entry, issue.message);
  }
  if (!YAML.isMap(doc.get("mcp_servers"))) doc.set("mcp_servers", doc.createNode({}));
  doc.setIn(["mcp_servers", name], doc.createNode(entry));
  return { text: doc.toString(), secrets };
}

function requireServer(doc: YAML.Document, name: string): void {
  if (!YAML.isMap(doc.get("mcp_servers")) || !doc.hasIn(["mcp_servers", name])) {
    throw new NotFoundError("MCP server", name, "list them with `herald mcp list`");
  }
}

/**
 * The config text without server `name`.
 *
 * @throws NotFoundError when no such server is configured.
 */
export function planMcpServerRemove(text: string, file: string, name: string): string {
  const doc = parseConfigDocument(text, file);
  requireServer(doc, name);
  doc.deleteIn(["mcp_servers", name]);
  return doc.toString();
}

/**
 * The config text with server `name` turned on or off.
 *
 * @throws NotFoundError when no such server is configured.
 */
export function planMcpServerEnabled(
  text: string,
  file: string,
  name: string,
  enabled: boolean,
): string {
  const doc = parseConfigDocument(text, file);
  requireServer(doc, name);
  doc.setIn(["mcp_servers", name, "enabled"], enabled);
  return doc.toString();
}

/** A server as surfaces show it: secrets hidden, `${NAME}` references kept. */
export interface McpServerView {
  name: string;
  transport: "stdio" | "http";
  command: string | null;
  args: string[];
  url: string | null;
  env: Record<string, string>;
  headers: Record<string, string>;
  timeout: number;
  enabled: boolean;
}

function hideSecrets(
  values: Readonly<Record<string, string>> | undefined,
  path: string,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values ?? {}).map(([name, value]) => [
      name,
      redactConfigValue(`${path}.${name}`, value),
    ]),
  );
}

/**
 * Describes configured servers, sorted by name, with every secret hidden
 * as config/redact.ts decides (`${NAME}` references are kept).
 */
export function describeMcpServers(servers: HeraldConfig["mcp_servers"]): McpServerView[] {
  return Object.entries(servers).sort(([a], [b]) => a.localeCompare(b)).map(([name, server]) => {
    const at = `mcp_servers.${name}`;
    return {
      name,
      transport: server.url ? "http" : "stdio",
      command: server.command ? redactConfigValue(`${at}.command`, server.command) : null,
      args: (server.args ?? []).map((arg, i) => redactConfigValue(`${at}.args.${i}`, arg)),
      url: server.url ? redactConfigValue(`${at}.url`, server.url) : null,
      env: hideSecrets(server.env, `${at}.env`),
      headers: hideSecrets(server.headers, `${at}.headers`),
      timeout: server.timeout,
      enabled: server.enabled,
    };
  });
}
