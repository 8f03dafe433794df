/**
 * `/api/mcp/*`: the profile's MCP servers (list, add, remove, enable, and a
 * real `initialize` check) and the built-in catalog, whose installs run
 * `herald -p <profile> mcp add ...` so the CLI and the dashboard write the
 * same entry. The work is core's (core/usecases/mcp.ts); the check is
 * adapters/mcp/check.ts, shared with `herald mcp test`.
 *
 * @module
 */

import type { Hono } from "hono";
import { z } from "zod";
import { HeraldError } from "../../core/errors.ts";
import {
  addMcpServer,
  listMcpCatalog,
  listMcpServers,
  planMcpCatalogInstall,
  removeMcpServer,
  setMcpServerEnabled,
} from "../../core/usecases/mcp.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedBody, scopedContext, scopedWrite } from "../profile_scope.ts";
import { absentAsUndefined, requiredString, stringRecord } from "../_input.ts";
import { runHeraldCli } from "../_cli.ts";
import { checkMcpServer } from "../../adapters/mcp/check.ts";

const CLI_TIMEOUT_MS = 60_000;

/** `POST /api/mcp/servers`: a stdio (`command`) or HTTP (`url`) server. */
const McpServerBody = z.looseObject({
  name: requiredString("name", { trim: true }),
  command: absentAsUndefined(z.string()),
  args: absentAsUndefined(z.array(z.string(), { error: '"args" must be a list of strings' })),
  env: stringRecord("env"),
  url: absentAsUndefined(z.string()),
  headers: stringRecord("headers"),
  timeout: absentAsUndefined(z.number()),
  enabled: absentAsUndefined(z.boolean()),
});

/** `PUT /api/mcp/servers/:name/enabled`. */
const EnabledBody = z.looseObject({
  enabled: z.boolean({ error: '"enabled" (true or false) is required' }),
});

/** `POST /api/mcp/servers/:name/test`: an optional shorter or longer wait. */
const TestBody = z.looseObject({
  timeout_seconds: absentAsUndefined(
    z.number().gt(0, '"timeout_seconds" must be above 0 and at most 120').max(
      120,
      '"timeout_seconds" must be above 0 and at most 120',
    ),
  ),
});

/** `POST /api/mcp/catalog/install`: the entry, its parameters and an optional server name. */
const CatalogInstallBody = z.looseObject({
  name: requiredString("name", { trim: true }),
  params: stringRecord("params"),
  server_name: absentAsUndefined(z.string()),
});

function lastLine(text: string): string {
  return text.trim().split("\n").pop()?.replace(/^herald:\s*/, "") ?? "";
}

/** Registers the mcp routes. */
export function registerMcpRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/mcp/servers", async (c) => {
    return c.json(await listMcpServers(await scopedContext(c, deps)));
  });

  app.post("/api/mcp/servers", async (c) => {
    const { profile, body } = await scopedBody(c, deps, McpServerBody);
    const { name, command, args, env, url, headers, timeout, enabled } = body;
    const added = await addMcpServer(profile, {
      name,
      command,
      args,
      env,
      url,
      headers,
      timeout,
      enabled,
    });
    return c.json({ ok: true, ...added }, 201);
  });

  app.delete("/api/mcp/servers/:name", async (c) => {
    const profile = await scopedWrite(c, deps);
    return c.json({ ok: true, ...await removeMcpServer(profile, c.req.param("name")) });
  });

  app.put("/api/mcp/servers/:name/enabled", async (c) => {
    const { profile, body } = await scopedBody(c, deps, EnabledBody);
    const toggled = await setMcpServerEnabled(profile, c.req.param("name"), body.enabled);
    return c.json({ ok: true, ...toggled });
  });

  app.post("/api/mcp/servers/:name/test", async (c) => {
    const { profile, body } = await scopedBody(c, deps, TestBody, { optional: true });
    return c.json(
      await checkMcpServer(profile, c.req.param("name"), {
        env: deps.env,
        ...(body.timeout_seconds === undefined ? {} : { timeoutSeconds: body.timeout_seconds }),
      }),
    );
  });

  app.get("/api/mcp/catalog", async (c) => {
    return c.json(await listMcpCatalog(await scopedContext(c, deps)));
  });

  app.post("/api/mcp/catalog/install", async (c) => {
    const { profile, body } = await scopedBody(c, deps, CatalogInstallBody);
    const install = await planMcpCatalogInstall(
      profile,
      body.name,
      body.params ?? {},
      body.server_name,
    );
    // `--opt=value` keeps values that start with a dash (or -p) away from option parsing.
    const args = [
      "-p",
      profile.name,
      "mcp",
      "add",
      install.serverName,
      `--command=${install.command}`,
      ...install.args.map((arg) => `--arg=${arg}`),
      "--json",
    ];
    const run = await runHeraldCli(deps, args, CLI_TIMEOUT_MS);
    if (run.code !== 0) {
      throw new HeraldError(
        "cli_failed",
        "internal",
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
      profile: profile.name,
      catalog: install.entry.name,
      name: install.serverName,
      command: ["herald", ...args],
      exit_code: run.code,
      server: added.server ?? null,
    }, 201);
  });
}
