/**
 * No surface that shows a profile's configuration shows a secret: values
 * planted in `.env` (referenced as `${NAME}`), in a secret-marked key, in an
 * MCP server's `headers` and `env`, and in URLs with a password or a token
 * query value stay hidden from `herald config show|get`, `herald mcp list`
 * (text and `--json`), the dashboard's config and MCP API and the dashboard
 * process's own output.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";

/** Each planted value, by where it was planted; every one is distinct. */
const PLANTED = {
  dotenvModelKey: "dotenv-model-key-planted-7781",
  dotenvHeader: "dotenv-header-planted-5150",
  dotenvUrlPassword: "dotenv-url-password-planted-6061",
  secretKey: "literal-aux-key-planted-3301",
  authorization: "header-bearer-planted-9052",
  cookie: "cookie-session-planted-4410",
  apiKeyHeader: "x-api-key-planted-8123",
  mcpEnv: "mcp-env-login-planted-6620",
  mcpEnvToken: "mcp-env-token-planted-3390",
  urlPassword: "url-password-planted-1188",
  urlQuery: "url-query-token-planted-2277",
  dbPassword: "db-password-planted-9941",
} as const;

const TOKEN = "redaction-test-token-000";

const DOTENV = `PLANTED_MODEL_KEY=${PLANTED.dotenvModelKey}\n` +
  `PLANTED_HEADER=${PLANTED.dotenvHeader}\n` +
  `PLANTED_URL_PASSWORD=${PLANTED.dotenvUrlPassword}\n`;

const CONFIG = `model:
  provider: custom
  base_url: https://robot:${PLANTED.urlPassword}@models.example.test/v1
  default: test-model
  api_key: \${PLANTED_MODEL_KEY}
auxiliary:
  kanban_decomposer:
    api_key: ${PLANTED.secretKey}
mcp_servers:
  remote:
    url: http://127.0.0.1:9/mcp?access_token=${PLANTED.urlQuery}&region=eu
    headers:
      Authorization: Bearer ${PLANTED.authorization}
      Cookie: session=${PLANTED.cookie}
      X-Api-Key: ${PLANTED.apiKeyHeader}
      X-Upstream: \${PLANTED_HEADER}
      X-Trace: "on"
  local:
    command: node
    args:
      - server.js
    env:
      MY_SERVICE_LOGIN: ${PLANTED.mcpEnv}
      UPSTREAM_TOKEN: ${PLANTED.mcpEnvToken}
      DATABASE_URL: postgres://app:${PLANTED.dbPassword}@db.example.test/app
      LOG_LEVEL: debug
  vault:
    url: http://robot:\${PLANTED_URL_PASSWORD}@127.0.0.1:9/mcp
`;

function assertNothingPlanted(text: string, where: string): void {
  for (const [name, value] of Object.entries(PLANTED)) {
    assert.ok(!text.includes(value), `the ${name} secret (${value}) reached ${where}`);
  }
}

async function plantedHome(path: string): Promise<void> {
  await Deno.writeTextFile(join(path, "config.yaml"), CONFIG);
  await Deno.writeTextFile(join(path, ".env"), DOTENV, { mode: 0o600 });
}

Deno.test("config show, config get and mcp list print no planted secret, as text or JSON", async () => {
  await using home = await tempDir();
  await plantedHome(home.path);
  const runs: [string, string[]][] = [
    ["config show", ["config", "show"]],
    ["config show --json", ["config", "show", "--json"]],
    ["config get model", ["config", "get", "model"]],
    ["config get model --json", ["config", "get", "model", "--json"]],
    ["config get model.base_url", ["config", "get", "model.base_url"]],
    ["config get auxiliary --json", ["config", "get", "auxiliary", "--json"]],
    ["config get mcp_servers", ["config", "get", "mcp_servers"]],
    ["config get mcp_servers --json", ["config", "get", "mcp_servers", "--json"]],
    ["mcp list", ["mcp", "list"]],
    ["mcp list --json", ["mcp", "list", "--json"]],
  ];
  for (const [name, args] of runs) {
    const run = await runHerald({ args, home: home.path });
    assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    assertNothingPlanted(run.stdout, `${name} stdout`);
    assertNothingPlanted(run.stderr, `${name} stderr`);
  }

  // What is not secret is still shown, and references are shown as written.
  const shown = await runHerald({ args: ["config", "show", "--json"], home: home.path });
  const config = JSON.parse(shown.stdout).config;
  assert.equal(config.model.api_key, "${PLANTED_MODEL_KEY}");
  assert.equal(config.model.default, "test-model");
  assert.match(config.model.base_url, /^https:\/\/robot:.+@models\.example\.test\/v1$/);
  const remote = config.mcp_servers.remote;
  assert.equal(remote.headers["X-Upstream"], "${PLANTED_HEADER}");
  assert.equal(remote.headers["X-Trace"], "on");
  assert.match(remote.url, /^http:\/\/127\.0\.0\.1:9\/mcp\?access_token=.+&region=eu$/);
  assert.equal(config.mcp_servers.local.env.LOG_LEVEL, "debug");

  const listed = await runHerald({ args: ["mcp", "list", "--json"], home: home.path });
  const servers = JSON.parse(listed.stdout) as { name: string; env: Record<string, string> }[];
  assert.deepEqual(servers.map((s) => s.name), ["local", "remote", "vault"]);
  assert.equal(servers[0].env.LOG_LEVEL, "debug");
});

Deno.test("the dashboard's config and MCP API and its own output carry no planted secret", async () => {
  await using home = await tempDir();
  await plantedHome(home.path);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      join(REPO_ROOT, "cli/main.ts"),
      "dashboard",
      "--no-open",
      "--port",
      "0",
    ],
    env: { HERALD_HOME: home.path, NO_COLOR: "1", HERALD_DASHBOARD_SESSION_TOKEN: TOKEN },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let printed = "";
  try {
    while (!printed.includes("\n")) {
      const { value, done } = await stdout.read();
      if (done) break;
      printed += value;
    }
    const match = /listening on (\S+)/.exec(printed);
    assert.ok(match, `the dashboard did not start: ${printed}`);
    const base = new URL(match[1]);
    const bodies: string[] = [];
    for (const path of ["/api/config", "/api/config/raw", "/api/mcp/servers", "/api/env"]) {
      const response = await fetch(new URL(path, base), {
        headers: { "X-Herald-Session-Token": TOKEN },
      });
      const body = await response.text();
      assert.equal(response.status, 200, `${path}: ${body}`);
      assertNothingPlanted(body, `GET ${path}`);
      bodies.push(body);
    }
    // A failed check names the URL it tried (with the `.env` password filled in).
    for (const server of ["remote", "vault"]) {
      const path = `/api/mcp/servers/${server}/test`;
      const response = await fetch(new URL(path, base), {
        method: "POST",
        headers: { "X-Herald-Session-Token": TOKEN, "Content-Type": "application/json" },
        body: JSON.stringify({ timeout_seconds: 5 }),
      });
      const body = await response.text();
      assert.equal(response.status, 200, `${path}: ${body}`);
      assert.equal(JSON.parse(body).ok, false, body);
      assertNothingPlanted(body, `POST ${path}`);
    }

    const raw = JSON.parse(bodies[1]);
    assert.match(raw.text, /api_key: \$\{PLANTED_MODEL_KEY\}/, "references are shown as written");
    assert.match(raw.text, /LOG_LEVEL: debug/);

    // Sending the redacted text back changes nothing in the file.
    const saved = await fetch(new URL("/api/config/raw", base), {
      method: "PUT",
      headers: { "X-Herald-Session-Token": TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ text: raw.text, version: raw.version }),
    });
    assert.equal(saved.status, 200, await saved.clone().text());
    assertNothingPlanted(await saved.text(), "PUT /api/config/raw");
    assert.equal(await Deno.readTextFile(join(home.path, "config.yaml")), CONFIG);

    // So does sending the redacted configuration object back.
    const config = JSON.parse(bodies[0]).config;
    const put = await fetch(new URL("/api/config", base), {
      method: "PUT",
      headers: { "X-Herald-Session-Token": TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ config }),
    });
    const putBody = await put.text();
    assert.equal(put.status, 200, putBody);
    assertNothingPlanted(putBody, "PUT /api/config");
    assert.equal(await Deno.readTextFile(join(home.path, "config.yaml")), CONFIG);
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
  while (true) {
    const { value, done } = await stdout.read();
    if (done) break;
    printed += value;
  }
  assertNothingPlanted(printed, "the dashboard's stdout");
  assertNothingPlanted(await stderr, "the dashboard's stderr");
});
