/**
 * `/api/mcp/*`: servers in config.yaml (add, list, enable, remove), a real
 * `initialize` handshake against stdio and HTTP MCP servers, and catalog
 * installs that run `herald -p <profile> mcp add`.
 */

import assert from "node:assert/strict";
import {
  assertNoPlantedSecret,
  parseEnvDump,
  PLANTED_PARENT_SECRETS,
} from "../_planted_secrets.ts";
import { join } from "node:path";
import { parseConfig } from "../../core/config/mod.ts";
import { tempDir } from "../_helpers.ts";
import { startFakeMcpHttpServer } from "../fakes/mcp_http_server.ts";
import { fakeMcpCommand, readOr, routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

Deno.test("MCP servers are added, listed with secrets hidden, disabled and removed, comments kept", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.config, "# top\nagent:\n  max_turns: 5 # short\n");
  const added = await json("POST", "/api/mcp/servers", {
    name: "github",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-github"],
    env: { GITHUB_TOKEN: "ghp_secret_value_123456", LOG_LEVEL: "debug" },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.deepEqual(added.body.secrets, ["GITHUB_TOKEN"]);
  assert.deepEqual((added.body.server as Json).env, {
    GITHUB_TOKEN: "${GITHUB_TOKEN}",
    LOG_LEVEL: "debug",
  });
  const remote = await json("POST", "/api/mcp/servers", {
    name: "remote",
    url: "https://mcp.example.com/mcp",
    headers: { Authorization: "Bearer remote-secret-token" },
  });
  assert.equal(remote.status, 201);
  assert.deepEqual(remote.body.secrets, ["HERALD_MCP_REMOTE_AUTHORIZATION"]);

  const text = await Deno.readTextFile(main.config);
  assert.ok(text.includes("# top") && text.includes("# short"));
  assert.ok(!text.includes("ghp_secret") && !text.includes("remote-secret"));
  const env = await Deno.readTextFile(main.env);
  assert.match(env, /^GITHUB_TOKEN=ghp_secret_value_123456$/m);
  assert.match(env, /^HERALD_MCP_REMOTE_AUTHORIZATION="Bearer remote-secret-token"$/m);

  const list = await json("GET", "/api/mcp/servers");
  const servers = list.body.servers as Json[];
  assert.deepEqual(servers.map((s) => [s.name, s.transport, s.enabled, s.timeout]), [
    ["github", "stdio", true, 300],
    ["remote", "http", true, 300],
  ]);
  assert.ok(!JSON.stringify(list.body).includes("secret"));

  const duplicate = await json("POST", "/api/mcp/servers", { name: "github", command: "x" });
  assert.equal(duplicate.status, 409);
  const off = await json("PUT", "/api/mcp/servers/github/enabled", { enabled: false });
  assert.equal(off.status, 200);
  assert.equal(
    parseConfig(await Deno.readTextFile(main.config), "c").config.mcp_servers.github.enabled,
    false,
  );
  assert.equal((await json("PUT", "/api/mcp/servers/github/enabled", {})).status, 400);
  assert.equal((await json("PUT", "/api/mcp/servers/nope/enabled", { enabled: true })).status, 404);
  const removed = await json("DELETE", "/api/mcp/servers/github");
  assert.equal(removed.status, 200);
  assert.equal((await json("DELETE", "/api/mcp/servers/github")).status, 404);
  assert.deepEqual(
    ((await json("GET", "/api/mcp/servers")).body.servers as Json[]).map((s) => s.name),
    ["remote"],
  );
});

Deno.test("adding an MCP server checks the name, exactly one transport and the URL", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const cases: Json[] = [
    { name: "bad name", command: "x" },
    { name: "a.b", command: "x" },
    { name: "both", command: "x", url: "http://127.0.0.1:1/mcp" },
    { name: "neither" },
    { name: "ftp", url: "ftp://example.com" },
    { name: "args", command: "x", args: "not-a-list" },
    { name: "timeout", command: "x", timeout: -1 },
  ];
  for (const body of cases) {
    const response = await json("POST", "/api/mcp/servers", body);
    assert.equal(response.status, 400, JSON.stringify(body));
  }
});

Deno.test("testing a stdio MCP server does the real initialize handshake with .env references expanded", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  const record = join(home.path, "wire.jsonl");
  const fake = fakeMcpCommand();
  await Deno.writeTextFile(main.env, "TITLE_FROM_ENV=Expanded Title\n");
  await json("POST", "/api/mcp/servers", {
    ...fake,
    name: "fake",
    env: { FAKE_MCP_TITLE: "${TITLE_FROM_ENV}", FAKE_MCP_RECORD: record },
  });
  const { status, body } = await json("POST", "/api/mcp/servers/fake/test", {});
  assert.equal(status, 200);
  assert.equal(body.ok, true, JSON.stringify(body));
  assert.equal(body.transport, "stdio");
  assert.equal(body.protocol_version, "2025-11-25");
  assert.deepEqual(body.serverInfo, {
    name: "fake-mcp",
    version: "1.0.0",
    title: "Expanded Title",
  });
  const wire = (await Deno.readTextFile(record)).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(wire[0].method, "initialize");
  assert.equal(wire[0].jsonrpc, "2.0");
  assert.equal(wire[0].params.clientInfo.name, "herald");
  assert.equal(wire[1].method, "notifications/initialized");
  assert.equal(wire[2].method, "tools/list");
  assert.deepEqual(body.tools, [{ name: "echo", model_name: "mcp_fake_echo" }]);
});

Deno.test("a stdio MCP server that crashes, refuses, stays silent or is missing reports why", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  for (const mode of ["crash", "refuse", "silent"]) {
    await json("POST", "/api/mcp/servers", { ...fakeMcpCommand(mode), name: mode });
  }
  await json("POST", "/api/mcp/servers", { name: "missing", command: "herald-no-such-program" });

  const crash = (await json("POST", "/api/mcp/servers/crash/test", {})).body;
  assert.equal(crash.ok, false);
  assert.equal((crash.error as Json).code, "exited");
  assert.match(String((crash.error as Json).message), /exit code 3/);
  assert.match(String(crash.stderr_tail), /cannot open the database/);

  const refuse = (await json("POST", "/api/mcp/servers/refuse/test", {})).body;
  assert.equal((refuse.error as Json).code, "rpc_error");
  assert.match(String((refuse.error as Json).message), /Unsupported protocol version/);

  const silent = (await json("POST", "/api/mcp/servers/silent/test", { timeout_seconds: 1 })).body;
  assert.equal((silent.error as Json).code, "timeout");
  assert.match(String((silent.error as Json).message), /within 1 s \(the MCP test timeout\)/);

  const missing = (await json("POST", "/api/mcp/servers/missing/test", {})).body;
  assert.equal((missing.error as Json).code, "spawn_failed");
  assert.equal((await json("POST", "/api/mcp/servers/nope/test", {})).status, 404);
});

Deno.test("testing an HTTP MCP server posts initialize with its headers, reads the SSE answer and ends the session", async () => {
  await using home = await tempDir();
  await using server = startFakeMcpHttpServer("Bearer right-token");
  const { json } = await routesApp(home.path);
  await json("POST", "/api/mcp/servers", {
    name: "remote",
    url: server.url,
    headers: { Authorization: "Bearer right-token" },
  });
  const { body } = await json("POST", "/api/mcp/servers/remote/test", {});
  assert.equal(body.ok, true, JSON.stringify(body));
  assert.equal(body.transport, "http");
  assert.equal((body.serverInfo as Json).name, "fake-mcp-http");
  assert.deepEqual(server.requests.map((r) => r.method), ["POST", "POST", "POST", "DELETE"]);
  assert.equal(server.requests[0].headers.authorization, "Bearer right-token");
  assert.match(server.requests[0].headers.accept, /text\/event-stream/);
  assert.equal(JSON.parse(server.requests[1].body).method, "notifications/initialized");
  assert.ok(server.requests[1].headers["mcp-session-id"]);
  assert.equal(JSON.parse(server.requests[2].body).method, "tools/list");
  assert.deepEqual(body.tools, [
    { name: "lookup", model_name: "mcp_remote_lookup", description: "Looks a word up" },
  ]);

  await json("POST", "/api/mcp/servers", { name: "wrong", url: server.url });
  const refused = (await json("POST", "/api/mcp/servers/wrong/test", {})).body;
  assert.equal(refused.ok, false);
  assert.equal((refused.error as Json).code, "http_error");
  assert.match(String((refused.error as Json).message), /HTTP 401/);
});

Deno.test("the MCP catalog lists well-known servers and marks the installed ones", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  await json("POST", "/api/mcp/servers", {
    name: "fetch",
    command: "uvx",
    args: ["mcp-server-fetch"],
  });
  const { body } = await json("GET", "/api/mcp/catalog");
  const entries = body.entries as Json[];
  for (const name of ["filesystem", "fetch", "everything"]) {
    assert.ok(entries.some((e) => e.name === name), name);
  }
  assert.equal(entries.find((e) => e.name === "fetch")!.installed, true);
  assert.equal(entries.find((e) => e.name === "everything")!.installed, false);
  assert.deepEqual(
    (entries.find((e) => e.name === "filesystem")!.params as Json[])[0].name,
    "path",
  );
});

Deno.test("a catalog install runs the herald CLI with -p against the chosen profile only", async () => {
  await using home = await tempDir();
  const { json, main, work } = await routesApp(home.path);
  const { status, body } = await json("POST", "/api/mcp/catalog/install?profile=default", {
    name: "filesystem",
    params: { path: "/srv/notes" },
    profile: "work",
  });
  assert.equal(status, 201, JSON.stringify(body));
  assert.equal(body.profile, "work");
  assert.deepEqual((body.command as string[]).slice(0, 5), ["herald", "-p", "work", "mcp", "add"]);
  assert.equal(body.exit_code, 0);
  const workConfig = parseConfig(await Deno.readTextFile(work.config), work.config).config;
  assert.deepEqual(workConfig.mcp_servers.filesystem.args, [
    "-y",
    "@modelcontextprotocol/server-filesystem",
    "/srv/notes",
  ]);
  assert.equal(workConfig.mcp_servers.filesystem.command, "npx");
  assert.equal(await readOr(main.config), "", "the default profile is untouched");
  const listed = await json("GET", "/api/mcp/servers?profile=work");
  assert.deepEqual((listed.body.servers as Json[]).map((s) => s.name), ["filesystem"]);

  const again = await json("POST", "/api/mcp/catalog/install", {
    name: "filesystem",
    params: { path: "/x" },
    profile: "work",
  });
  assert.equal(again.status, 409);
  const missingParam = await json("POST", "/api/mcp/catalog/install", { name: "filesystem" });
  assert.equal(missingParam.status, 400);
  assert.equal(missingParam.body.error?.code, "mcp_catalog_param_missing");
  const unknown = await json("POST", "/api/mcp/catalog/install", { name: "nope" });
  assert.equal(unknown.status, 404);
});

Deno.test("a stdio MCP server starts from the allowlist, the profile's passthrough names and its own env", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path, {
    env: {
      PATH: Deno.env.get("PATH"),
      HOME: home.path,
      LANG: "C.UTF-8",
      ...PLANTED_PARENT_SECRETS,
      HERALD_DASHBOARD_SESSION_TOKEN: "dashboard-token-value",
      PASSED_ON: "from-the-environment",
    },
  });
  // A tiny stdio server: it writes its whole environment to a file, then answers initialize.
  const script = join(home.path, "env_server.sh");
  const dump = join(home.path, "env.txt");
  await Deno.writeTextFile(
    script,
    'env > "$1"\nread -r line\n' +
      `printf '%s\\n' '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25",` +
      `"capabilities":{},"serverInfo":{"name":"env-dump"}}}'\nread -r line\n`,
  );
  await Deno.writeTextFile(
    main.env,
    "CONFIG_REF=config-ref-value\nDOTENV_SECRET=dotenv-secret-value\nDOTENV_PASSED=dotenv-passed\n",
  );
  const added = await json("POST", "/api/mcp/servers", {
    name: "envdump",
    command: "/bin/sh",
    args: [script, dump],
    env: { FROM_CONFIG: "${CONFIG_REF}" },
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  await Deno.writeTextFile(
    main.config,
    "terminal:\n  env_passthrough: [PASSED_ON, DOTENV_PASSED]\n",
    { append: true },
  );

  const { body } = await json("POST", "/api/mcp/servers/envdump/test", {});
  assert.equal(body.ok, true, JSON.stringify(body));
  const text = await Deno.readTextFile(dump);
  const env = parseEnvDump(text);
  assertNoPlantedSecret(text, "the MCP server", ["dashboard-token-value"]);
  assert.equal(env.PATH, Deno.env.get("PATH"));
  assert.equal(env.HOME, home.path);
  assert.equal(env.LANG, "C.UTF-8");
  assert.equal(env.PASSED_ON, "from-the-environment");
  assert.equal(env.DOTENV_PASSED, "dotenv-passed");
  assert.equal(env.FROM_CONFIG, "config-ref-value", "the server's own env from config stays");
});
