/**
 * Herald's MCP servers (`mcp_servers:` in config.yaml) as Codex's
 * `mcp_servers.<name> = {...}` lines, and Herald's own tool server
 * (`herald mcp serve`) registered beside them as `mcp_servers.herald`.
 *
 * No secret value is ever written into config.toml. A `${VAR}` reference
 * becomes a variable Codex forwards by name (stdio `env_vars`; HTTP
 * `bearer_token_env_var` for `Authorization: Bearer ${VAR}`, else
 * `env_http_headers`), and the name is returned so the runtime passes that
 * variable to codex's process. A literal value that looks secret is left out
 * with a warning (put it in `.env` and reference it). Codex does not expand
 * `${VAR}` in a command, its arguments or a URL, so a server with one there
 * is skipped.
 *
 * @module
 */

import type { McpServerConfig } from "../mcp/servers.ts";
import { REFERENCE_SOURCE, referenceName } from "../config/secrets.ts";
import { redactConfigValue, redactUrl } from "../config/redact.ts";
import { isSecretEnvName } from "../config/secret_names.ts";
import type { TomlEntry, TomlValue, UserSettings } from "./config_toml.ts";

/** Codex's name for Herald's own tool server. */
export const HERALD_TOOL_SERVER = "herald";

/** How Herald's tool server is started (`herald mcp serve` for the profile). */
export interface ToolServerCommand {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
}

/** The MCP part of the managed block. */
export interface McpMigration {
  entries: TomlEntry[];
  /** Herald's servers written (Herald's own tool server not counted). */
  migrated: string[];
  /** Variables codex's process needs in its environment (forwarded to the servers by name). */
  forwardedEnv: string[];
  warnings: string[];
}

const BEARER = new RegExp(`^Bearer\\s+${REFERENCE_SOURCE}$`, "i");
const ANY_REFERENCE = new RegExp(REFERENCE_SOURCE);

function isSecretLiteral(path: string, value: string): boolean {
  return redactConfigValue(path, value) !== value;
}

/** Prefixes of well-known credentials (OpenAI, GitHub, Slack, AWS, GitLab, Google). */
const TOKEN_PREFIX =
  /^(sk-|ghp_|gho_|ghs_|ghu_|github_pat_|xox[abposr]-|AKIA[0-9A-Z]{12}|glpat-|AIza)/;

/** A file path (`--api-key-file ~/.keys/x` names where a key is, not the key). */
const PATH_LIKE = /^(~|\.{1,2})?\//;

/** A command-line flag and its name: `--api-key` or `--api-key=value`. */
const FLAG = /^--?([A-Za-z][\w-]*)(=.*)?$/;

/**
 * The position (0-based) of the first argument that holds a credential (a
 * known token, the value of a flag named like a secret: `--api-key X`,
 * `--token=X`), or undefined.
 */
export function secretArgument(args: readonly string[]): number | undefined {
  for (const [index, arg] of args.entries()) {
    if (TOKEN_PREFIX.test(arg)) return index;
    const flag = FLAG.exec(arg);
    if (!flag || !isSecretEnvName(flag[1].replaceAll("-", "_"))) continue;
    if (flag[2] !== undefined && flag[2].length > 1 && !PATH_LIKE.test(flag[2].slice(1))) {
      return index;
    }
    const next = args[index + 1];
    if (
      flag[2] === undefined && next !== undefined && !next.startsWith("-") && !PATH_LIKE.test(next)
    ) {
      return index + 1;
    }
  }
  return undefined;
}

/** One server's entry, or the reason it cannot be written. */
function translate(
  name: string,
  server: McpServerConfig,
  forwarded: Set<string>,
  warnings: string[],
): Record<string, TomlValue> | string {
  const at = `mcp_servers.${name}`;
  const entry: Record<string, TomlValue> = {};
  const command = server.command?.trim();
  const url = server.url?.trim();
  if (command) {
    const args = server.args ?? [];
    if ([command, ...args].some((part) => ANY_REFERENCE.test(part))) {
      return "its command or arguments hold a ${VAR} reference, which Codex does not expand";
    }
    const secret = secretArgument(args);
    if (secret !== undefined) {
      return `its argument ${secret + 1} looks like a credential, and config.toml never holds ` +
        "one; give the server the value through env with a ${VAR} reference instead";
    }
    entry.command = command;
    if (args.length > 0) entry.args = [...args];
    const env: Record<string, string> = {};
    const envVars: string[] = [];
    for (const [variable, value] of Object.entries(server.env ?? {})) {
      const reference = referenceName(value);
      if (reference === variable) {
        envVars.push(variable);
        forwarded.add(variable);
      } else if (reference !== undefined || ANY_REFERENCE.test(value)) {
        warnings.push(
          `MCP server "${name}": env ${variable} is not passed to Codex (Codex forwards a ` +
            `variable only under its own name; write it as ${variable}: \${${variable}})`,
        );
      } else if (isSecretLiteral(`${at}.env.${variable}`, value)) {
        warnings.push(
          `MCP server "${name}": env ${variable} looks secret and is not written to ` +
            `config.toml; store it in .env and reference it as \${${variable}}`,
        );
      } else {
        env[variable] = value;
      }
    }
    if (Object.keys(env).length > 0) entry.env = env;
    if (envVars.length > 0) entry.env_vars = envVars;
  } else if (url) {
    if (ANY_REFERENCE.test(url)) {
      return "its URL holds a ${VAR} reference, which Codex does not expand";
    }
    if (redactUrl(url) !== url) {
      return "its URL holds a credential, which is never written to config.toml";
    }
    entry.url = url;
    const literal: Record<string, string> = {};
    const fromEnv: Record<string, string> = {};
    for (const [header, value] of Object.entries(server.headers ?? {})) {
      const bearer = BEARER.exec(value)?.[1];
      const whole = referenceName(value);
      if (bearer && header.toLowerCase() === "authorization" && !entry.bearer_token_env_var) {
        entry.bearer_token_env_var = bearer;
        forwarded.add(bearer);
      } else if (whole) {
        fromEnv[header] = whole;
        forwarded.add(whole);
      } else if (ANY_REFERENCE.test(value)) {
        warnings.push(
          `MCP server "${name}": header ${header} mixes text and a \${VAR} reference, which ` +
            "Codex cannot send; it is left out",
        );
      } else if (isSecretLiteral(`${at}.headers.${header}`, value)) {
        warnings.push(
          `MCP server "${name}": header ${header} looks secret and is not written to ` +
            "config.toml; store it in .env (`herald mcp add` does) and migrate again",
        );
      } else {
        literal[header] = value;
      }
    }
    if (Object.keys(literal).length > 0) entry.http_headers = literal;
    if (Object.keys(fromEnv).length > 0) entry.env_http_headers = fromEnv;
  } else {
    return "it has neither a command nor a url";
  }
  entry.tool_timeout_sec = server.timeout;
  if (!server.enabled) entry.enabled = false;
  return entry;
}

/**
 * The `mcp_servers.*` lines of the managed block: Herald's tool server
 * first, then Herald's configured servers by name. A name the user already
 * defines in config.toml is skipped with a warning (theirs is kept), as is
 * everything when the user's config.toml defines `mcp_servers` as one table.
 *
 * @example
 * ```ts
 * migrateMcpServers({ fetch: { command: "uvx", args: ["mcp-server-fetch"], timeout: 300, enabled: true } },
 *   { command: "herald", args: ["mcp", "serve"], env: {} }, userSettings("")).migrated; // ["fetch"]
 * ```
 */
export function migrateMcpServers(
  servers: Readonly<Record<string, McpServerConfig>>,
  toolServer: ToolServerCommand,
  user: UserSettings,
): McpMigration {
  const result: McpMigration = { entries: [], migrated: [], forwardedEnv: [], warnings: [] };
  if (user.mcpServersTable) {
    result.warnings.push(
      "config.toml defines mcp_servers as one table ([mcp_servers] or mcp_servers = {...}), " +
        "so no MCP server can be added; write each server as its own [mcp_servers.<name>] " +
        "table and migrate again",
    );
    return result;
  }
  const forwarded = new Set<string>();
  if (user.mcpServers.has(HERALD_TOOL_SERVER)) {
    result.warnings.push(
      `config.toml already defines an MCP server named "${HERALD_TOOL_SERVER}"; Herald's ` +
        "tool server is not registered (rename or remove yours to get Herald's tools in Codex)",
    );
  } else {
    const herald: Record<string, TomlValue> = {
      command: toolServer.command,
      args: [...toolServer.args],
    };
    if (Object.keys(toolServer.env).length > 0) herald.env = { ...toolServer.env };
    herald.startup_timeout_sec = 30;
    herald.tool_timeout_sec = 600;
    result.entries.push({ key: ["mcp_servers", HERALD_TOOL_SERVER], value: herald });
  }
  for (const name of Object.keys(servers).sort()) {
    if (name === HERALD_TOOL_SERVER) {
      result.warnings.push(
        `MCP server "${name}" is not migrated: the name is Herald's own tool server's in Codex`,
      );
      continue;
    }
    if (user.mcpServers.has(name)) {
      result.warnings.push(
        `MCP server "${name}" is not migrated: config.toml already defines it (yours is kept)`,
      );
      continue;
    }
    const entry = translate(name, servers[name], forwarded, result.warnings);
    if (typeof entry === "string") {
      result.warnings.push(`MCP server "${name}" is not migrated: ${entry}`);
      continue;
    }
    result.entries.push({ key: ["mcp_servers", name], value: entry });
    result.migrated.push(name);
  }
  result.forwardedEnv = [...forwarded].sort();
  return result;
}
