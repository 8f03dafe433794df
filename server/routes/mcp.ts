/**
 * `/api/mcp/*`: the profile's MCP servers (list, add, remove, enable, and a
 * real `initialize` check) and the built-in catalog, whose installs run
 * `herald -p <profile> mcp add ...` so the CLI and the dashboard write the
 * same entry.
 *
 * @module
 */

import type { Hono } from "hono";
import {
  describeMcpServers,
  MCP_CATALOG,
  mcpCatalogEntry,
  McpServerExistsError,
  planMcpServerAdd,
  planMcpServerEnabled,
  planMcpServerRemove,
  renderMcpCatalogEntry,
} from "../../core/mcp/mod.ts";
import { redactText } from "../../core/config/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { scopedProfile } from "../profile_scope.ts";
import {
  booleanField,
  jsonBody,
  numberField,
  optionalJsonBody,
  stringArrayField,
  stringField,
  stringRecordField,
} from "../_input.ts";
import { loadProfileConfig, profileCredentials, updateProfileFiles } from "../_profile_io.ts";
import { runHeraldCli } from "../_cli.ts";
import { probeMcpServer } from "../../adapters/mcp/mod.ts";

/** The longest a dashboard check waits for `initialize`, whatever the server's own timeout. */
const MAX_TEST_SECONDS = 30;
const CLI_TIMEOUT_MS = 60_000;

function lastLine(text: string): string {
  return text.trim().split("\n").pop()?.replace(/^herald:\s*/, "") ?? "";
}

/** Registers the mcp routes. */
export function registerMcpRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/mcp/servers", async (c) => {
    const paths = await scopedProfile(c, deps);
    const loaded = await loadProfileConfig(paths);
    return c.json({
      profile: paths.name,
      file: paths.config,
      servers: describeMcpServers(loaded.config.mcp_servers),
    });
  });

  app.post("/api/mcp/servers", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const name = stringField(body, "name", true).trim();
    const timeout = numberField(body, "timeout");
    const input = {
      name,
      command: stringField(body, "command"),
      args: stringArrayField(body, "args"),
      env: stringRecordField(body, "env"),
      url: stringField(body, "url"),
      headers: stringRecordField(body, "headers"),
      timeout,
      enabled: booleanField(body, "enabled"),
    };
    // Planned inside the locks from the current file: a server added meanwhile is kept,
    // and the same name added twice is a 409 (McpServerExistsError is a conflict).
    const plan = await updateProfileFiles(
      paths,
      (current) => planMcpServerAdd(current, paths.config, input),
    );
    const loaded = await loadProfileConfig(paths);
    const server = describeMcpServers(loaded.config.mcp_servers).find((s) => s.name === name);
    return c.json({
      ok: true,
      profile: paths.name,
      server,
      secrets: plan.secrets.map((secret) => secret.name),
    }, 201);
  });

  app.delete("/api/mcp/servers/:name", async (c) => {
    const body = await optionalJsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const name = c.req.param("name");
    await updateProfileFiles(paths, (current) => ({
      text: planMcpServerRemove(current, paths.config, name),
      secrets: [],
    }));
    return c.json({ ok: true, profile: paths.name, removed: name });
  });

  app.put("/api/mcp/servers/:name/enabled", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const name = c.req.param("name");
    const enabled = booleanField(body, "enabled");
    if (enabled === undefined) {
      throw new ApiError(400, "bad_request", '"enabled" (true or false) is required');
    }
    await updateProfileFiles(paths, (current) => ({
      text: planMcpServerEnabled(current, paths.config, name, enabled),
      secrets: [],
    }));
    return c.json({ ok: true, profile: paths.name, name, enabled });
  });

  app.post("/api/mcp/servers/:name/test", async (c) => {
    const body = await optionalJsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const name = c.req.param("name");
    const credentials = await profileCredentials(paths, deps);
    const loaded = await loadProfileConfig(paths, credentials.lookup);
    const server = loaded.config.mcp_servers[name];
    if (!server) {
      throw new ApiError(
        404,
        "not_found",
        `MCP server "${name}" is not configured in ${paths.config}`,
      );
    }
    const requested = numberField(body, "timeout_seconds");
    if (requested !== undefined && (requested <= 0 || requested > 120)) {
      throw new ApiError(400, "bad_request", '"timeout_seconds" must be above 0 and at most 120');
    }
    const seconds = requested ?? Math.min(server.timeout, MAX_TEST_SECONDS);
    const result = await probeMcpServer(server, {
      timeoutMs: seconds * 1000,
      baseEnv: deps.env,
      envPassthrough: loaded.config.terminal.env_passthrough,
      envLookup: credentials.lookup,
      cwd: paths.home,
    });
    const common = { profile: paths.name, name, transport: result.transport };
    // A failure names the URL or echoes the server's output: with `.env` values put back as
    // `${NAME}` and URL credentials hidden.
    const hide = (text: string) => redactText(text, { resolved: loaded.resolved });
    if (result.ok) {
      return c.json({
        ...common,
        ok: true,
        protocol_version: result.protocolVersion,
        serverInfo: result.serverInfo,
        capabilities: result.capabilities,
        elapsed_ms: result.elapsedMs,
      });
    }
    return c.json({
      ...common,
      ok: false,
      error: { code: result.code, message: hide(result.message) },
      ...(result.stderrTail ? { stderr_tail: hide(result.stderrTail) } : {}),
    });
  });

  app.get("/api/mcp/catalog", async (c) => {
    const paths = await scopedProfile(c, deps);
    const installed = (await loadProfileConfig(paths)).config.mcp_servers;
    return c.json({
      profile: paths.name,
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
    });
  });

  app.post("/api/mcp/catalog/install", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const catalogName = stringField(body, "name", true).trim();
    const entry = mcpCatalogEntry(catalogName);
    if (!entry) {
      throw new ApiError(
        404,
        "mcp_catalog_unknown",
        `No catalog entry "${catalogName}" (available: ${
          MCP_CATALOG.map((e) => e.name).join(", ")
        })`,
      );
    }
    const rendered = renderMcpCatalogEntry(entry, stringRecordField(body, "params") ?? {});
    const serverName = stringField(body, "server_name")?.trim() || entry.name;
    if (Object.hasOwn((await loadProfileConfig(paths)).config.mcp_servers, serverName)) {
      throw new McpServerExistsError(serverName);
    }
    // `--opt=value` keeps values that start with a dash (or -p) away from option parsing.
    const args = [
      "-p",
      paths.name,
      "mcp",
      "add",
      serverName,
      `--command=${rendered.command}`,
      ...rendered.args.map((arg) => `--arg=${arg}`),
      "--json",
    ];
    const run = await runHeraldCli(deps, args, CLI_TIMEOUT_MS);
    if (run.code !== 0) {
      throw new ApiError(
        500,
        "cli_failed",
        `herald mcp add exited with code ${run.code}: ${lastLine(run.stderr) || "no message"}`,
      );
    }
    let added: { server?: unknown } = {};
    try {
      added = JSON.parse(run.stdout);
    } catch {
      // Older CLIs print prose; the config is what counts.
    }
    return c.json({
      ok: true,
      profile: paths.name,
      catalog: entry.name,
      name: serverName,
      command: ["herald", ...args],
      exit_code: run.code,
      server: added.server ?? null,
    }, 201);
  });
}
