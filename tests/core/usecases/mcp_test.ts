/**
 * The MCP server use cases over a real profile home: add (secrets to
 * `.env`), list with secrets hidden, turn off, remove, the lookup a
 * connection check starts from, and the catalog install check.
 */

import assert from "node:assert/strict";
import { McpServerExistsError } from "../../../core/mcp/mod.ts";
import { HeraldError, NotFoundError } from "../../../core/errors.ts";
import {
  addMcpServer,
  findMcpServerToProbe,
  listMcpCatalog,
  listMcpServers,
  McpCatalogUnknownError,
  planMcpCatalogInstall,
  removeMcpServer,
  setMcpServerEnabled,
} from "../../../core/usecases/mcp.ts";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { tempDir } from "../../_helpers.ts";

function profileAt(root: string, env: Record<string, string> = {}) {
  const paths = profilePaths(root, "default");
  return { paths, profile: openProfileContext(paths, env) };
}

Deno.test("an MCP server is added with its secrets in .env, listed hidden, turned off and removed", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.config, "# top\nagent:\n  max_turns: 5 # short\n");
  const added = await addMcpServer(profile, {
    name: "github",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-github"],
    env: { GITHUB_TOKEN: "ghp_secret_value_123456", LOG_LEVEL: "debug" },
  });
  assert.deepEqual(added.secrets, ["GITHUB_TOKEN"]);
  assert.deepEqual(added.server.env, { GITHUB_TOKEN: "${GITHUB_TOKEN}", LOG_LEVEL: "debug" });
  await addMcpServer(profile, {
    name: "remote",
    url: "https://mcp.example.com/mcp",
    headers: { Authorization: "Bearer remote-secret-token" },
  });
  const text = await Deno.readTextFile(paths.config);
  assert.ok(text.includes("# top") && text.includes("# short"));
  assert.ok(!text.includes("ghp_secret") && !text.includes("remote-secret"));
  assert.match(await Deno.readTextFile(paths.env), /^HERALD_MCP_REMOTE_AUTHORIZATION=/m);

  const listed = await listMcpServers(profile);
  assert.equal(listed.file, paths.config);
  assert.deepEqual(listed.servers.map((s) => [s.name, s.transport, s.enabled]), [
    ["github", "stdio", true],
    ["remote", "http", true],
  ]);
  assert.ok(!JSON.stringify(listed).includes("secret"));

  await assert.rejects(
    () => addMcpServer(profile, { name: "github", command: "x" }),
    McpServerExistsError,
  );
  assert.deepEqual(await setMcpServerEnabled(profile, "github", false), {
    profile: "default",
    name: "github",
    enabled: false,
  });
  assert.equal((await listMcpServers(profile)).servers[0].enabled, false);
  await assert.rejects(() => setMcpServerEnabled(profile, "nope", true), NotFoundError);
  assert.deepEqual(await removeMcpServer(profile, "github"), {
    profile: "default",
    removed: "github",
  });
  await assert.rejects(() => removeMcpServer(profile, "github"), /MCP server "github" not found/);
  assert.deepEqual((await listMcpServers(profile)).servers.map((s) => s.name), ["remote"]);
});

Deno.test("adding an MCP server checks the name, exactly one transport and the URL", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path);
  for (
    const input of [
      { name: "bad name", command: "x" },
      { name: "both", command: "x", url: "http://127.0.0.1:1/mcp" },
      { name: "neither" },
      { name: "ftp", url: "ftp://example.com" },
      { name: "timeout", command: "x", timeout: -1 },
    ]
  ) {
    await assert.rejects(
      () => addMcpServer(profile, input),
      (error) => error instanceof HeraldError && error.kind === "usage",
      input.name,
    );
  }
  await assert.rejects(() => Deno.stat(paths.config), Deno.errors.NotFound);
});

Deno.test("the server to probe has its references expanded from .env, the passthrough and the home", async () => {
  await using home = await tempDir();
  const { paths, profile } = profileAt(home.path, { FROM_PROCESS: "process-value" });
  await Deno.mkdir(paths.home, { recursive: true });
  await Deno.writeTextFile(paths.env, "TITLE_FROM_ENV=Expanded Title\n");
  await addMcpServer(profile, {
    name: "fake",
    command: "node",
    env: { TITLE: "${TITLE_FROM_ENV}" },
  });
  await Deno.writeTextFile(paths.config, "terminal:\n  env_passthrough: [FROM_PROCESS]\n", {
    append: true,
  });
  const target = await findMcpServerToProbe(profile, "fake");
  assert.equal(target.server.env?.TITLE, "Expanded Title");
  assert.deepEqual(target.envPassthrough, ["FROM_PROCESS"]);
  assert.equal(target.envLookup("FROM_PROCESS"), "process-value");
  assert.deepEqual(target.resolved, [{ name: "TITLE_FROM_ENV", value: "Expanded Title" }]);
  assert.equal(target.cwd, paths.home);
  await assert.rejects(
    () => findMcpServerToProbe(profile, "constructor"),
    (error) => error instanceof NotFoundError && error.message.includes(paths.config),
  );
});

Deno.test("a catalog install is checked first: known entry, required parameters, a free name", async () => {
  await using home = await tempDir();
  const { profile } = profileAt(home.path);
  const install = await planMcpCatalogInstall(profile, "filesystem", { path: "/srv/notes" });
  assert.equal(install.serverName, "filesystem");
  assert.deepEqual([install.command, install.args], [
    "npx",
    ["-y", "@modelcontextprotocol/server-filesystem", "/srv/notes"],
  ]);
  await assert.rejects(
    () => planMcpCatalogInstall(profile, "nope", {}),
    (error) => error instanceof McpCatalogUnknownError && error.kind === "not_found",
  );
  await assert.rejects(
    () => planMcpCatalogInstall(profile, "filesystem", {}),
    (error) => error instanceof HeraldError && error.code === "mcp_catalog_param_missing",
  );
  await addMcpServer(profile, { name: "fetch", command: "uvx", args: ["mcp-server-fetch"] });
  await assert.rejects(() => planMcpCatalogInstall(profile, "fetch", {}), McpServerExistsError);
  const renamed = await planMcpCatalogInstall(profile, "fetch", {}, " fetch2 ");
  assert.equal(renamed.serverName, "fetch2");
  const catalog = await listMcpCatalog(profile);
  assert.equal(catalog.entries.find((e) => e.name === "fetch")!.installed, true);
  assert.equal(catalog.entries.find((e) => e.name === "memory")!.installed, false);
});
