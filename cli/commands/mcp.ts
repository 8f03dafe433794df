/**
 * `herald mcp list|add|remove|test|enable|disable|serve`: the MCP servers of a profile
 * (`mcp_servers:` in config.yaml). Secret environment values and
 * credential headers go to `.env`; the entry references them. The work is
 * core's (core/usecases/mcp.ts).
 *
 * @module
 */

import { type Command, InvalidArgumentError } from "commander";
import { HeraldError } from "../../core/errors.ts";
import type { McpServerView } from "../../core/mcp/mod.ts";
import { checkMcpServer } from "../../adapters/mcp/check.ts";
import {
  addMcpServer,
  listMcpServers,
  removeMcpServer,
  setMcpServerEnabled,
} from "../../core/usecases/mcp.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { collect } from "./_common.ts";
import { registerMcpServe } from "./mcp_serve.ts";

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new InvalidArgumentError(`expected a number of seconds above 0, got "${value}"`);
  }
  return seconds;
}

function pairs(values: readonly string[], separator: string, what: string) {
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    const name = at > 0 ? value.slice(0, at).trim() : "";
    if (name === "") {
      throw new InvalidArgumentError(`expected ${what}, got "${value.split(separator)[0]}..."`);
    }
    out[name] = value.slice(at + separator.length).trim();
  }
  return out;
}

function describe(server: McpServerView): string {
  const target = server.transport === "http"
    ? server.url
    : [server.command, ...server.args].join(" ");
  return `${server.name}  ${server.transport}  ${target}${server.enabled ? "" : "  (disabled)"}`;
}

interface AddOptions {
  command?: string;
  arg: string[];
  url?: string;
  env: string[];
  header: string[];
  timeout?: number;
  disabled?: boolean;
  json?: boolean;
}

/** Adds the `mcp` command family to `program`. */
export function registerMcp(program: Command, ctx: () => CliContext): void {
  const mcp = program.command("mcp").description("MCP servers the agent of this profile can use");

  mcp.command("list")
    .description("list the configured MCP servers (secrets hidden)")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      const { file, servers, warnings } = await listMcpServers(await c.profileContext());
      c.warn(file, warnings);
      if (options.json) return printJson(c.io, servers);
      if (servers.length === 0) {
        return c.io.out(
          "No MCP servers yet. Add one with `herald mcp add <name> --command <program> --arg <arg>`.\n",
        );
      }
      for (const server of servers) c.io.out(describe(server) + "\n");
    });

  mcp.command("add <name>")
    .description("add a server started as a command (stdio) or reached at a URL (HTTP)")
    .option("--command <program>", "program to start (stdio transport)")
    .option(
      "--arg <value>",
      "an argument for the program (repeat for each; --arg=-y for dashes)",
      collect,
      [],
    )
    .option("--url <url>", "Streamable HTTP endpoint instead of a command")
    .option(
      "--env <NAME=value>",
      "environment for the program (repeat); secrets go to .env",
      collect,
      [],
    )
    .option("--header <Name: value>", "HTTP header (repeat); credentials go to .env", collect, [])
    .option("--timeout <seconds>", "seconds before a call gives up (default 300)", parseSeconds)
    .option("--disabled", "add it turned off")
    .option("--json", "print JSON")
    .action(async (name: string, options: AddOptions) => {
      const c = ctx();
      const input = {
        name,
        command: options.command,
        args: options.arg,
        url: options.url,
        env: pairs(options.env, "=", "NAME=value"),
        headers: pairs(options.header, ":", "Name: value"),
        timeout: options.timeout,
        enabled: options.disabled ? false : undefined,
      };
      const profile = await c.profileContext();
      const added = await addMcpServer(profile, input);
      if (options.json) return printJson(c.io, added);
      c.io.out(`Added MCP server ${describe(added.server)} to ${added.file}\n`);
      for (const secret of added.secrets) {
        c.io.out(`Stored ${secret} in ${profile.files.envPath}\n`);
      }
    });

  mcp.command("remove <name>")
    .alias("rm")
    .description("remove a server (its .env secrets stay)")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      const c = ctx();
      const profile = await c.profileContext();
      const removed = await removeMcpServer(profile, name);
      if (options.json) return printJson(c.io, removed);
      c.io.out(`Removed MCP server ${name} from ${profile.files.configPath}\n`);
    });

  mcp.command("test <name>")
    .description("start the server (or reach its URL) and check that it answers initialize")
    .option(
      "--timeout <seconds>",
      "how long to wait (default: its timeout, at most 30)",
      parseSeconds,
    )
    .option("--json", "print JSON")
    .action(async (name: string, options: { timeout?: number; json?: boolean }) => {
      const c = ctx();
      const checked = await checkMcpServer(await c.profileContext(), name, {
        env: c.env,
        ...(options.timeout === undefined ? {} : { timeoutSeconds: options.timeout }),
      });
      if (options.json) printJson(c.io, checked);
      if (checked.ok) {
        if (options.json) return;
        const info = checked.serverInfo;
        c.io.out(
          `MCP server ${name} answers (${checked.transport}): ${info.title ?? info.name}` +
            `${info.version ? ` ${info.version}` : ""}, protocol ${checked.protocol_version}, ` +
            `${checked.elapsed_ms} ms\n`,
        );
        if (checked.tools) {
          c.io.out(`${checked.tools.length} tools, offered to the model as:\n`);
          for (const tool of checked.tools) c.io.out(`  ${tool.model_name}\n`);
        }
        if (checked.tools_error) c.io.err(`herald: warning: ${checked.tools_error}\n`);
        return;
      }
      if (!options.json && checked.stderr_tail) {
        c.io.err(`Its standard error ended with:\n${checked.stderr_tail}\n`);
      }
      throw new HeraldError(
        "mcp_test_failed",
        "state",
        `MCP server ${name} does not work: ${checked.error.message}`,
      );
    });

  for (const [verb, enabled] of [["enable", true], ["disable", false]] as const) {
    mcp.command(`${verb} <name>`)
      .description(
        enabled
          ? "turn a server back on (new sessions start it)"
          : "turn a server off without removing it (new sessions leave it out)",
      )
      .option("--json", "print JSON")
      .action(async (name: string, options: { json?: boolean }) => {
        const c = ctx();
        const toggled = await setMcpServerEnabled(await c.profileContext(), name, enabled);
        if (options.json) return printJson(c.io, toggled);
        c.io.out(`MCP server ${name} is ${enabled ? "enabled" : "disabled"}.\n`);
      });
  }

  registerMcpServe(mcp, ctx);
}
