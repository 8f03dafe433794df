/**
 * `herald doctor` contacting the model endpoint (the scripted model server,
 * or a closed port), `--offline`, and an unknown provider in config.yaml;
 * `config set model.provider` refusing a typo. Run in-process with an
 * injected environment.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

interface Check {
  name: string;
  status: string;
  detail: string;
}

async function writeConfig(home: string, text: string): Promise<void> {
  await Deno.mkdir(home, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(join(home, "config.yaml"), text);
}

function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

Deno.test("doctor reaches the model endpoint and finds the configured model", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ requireKey: "sk-doctor", models: ["gpt-test"] });
  await writeConfig(
    home.path,
    `model:\n  provider: custom\n  base_url: ${server.openaiBaseUrl}\n  default: gpt-test\n`,
  );
  await Deno.writeTextFile(join(home.path, ".env"), "OPENAI_API_KEY=sk-doctor\n", { mode: 0o600 });
  const result = await herald(home.path, "doctor", "--json");
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const report = JSON.parse(result.stdout);
  const endpoint = report.checks.find((check: Check) => check.name === "endpoint");
  assert.equal(endpoint.status, "ok", endpoint.detail);
  assert.ok(endpoint.detail.includes(`${server.openaiBaseUrl}/models`), endpoint.detail);
  assert.equal(server.requests[0].path, "/v1/models");

  const text = await herald(home.path, "doctor");
  assert.match(text.stdout, /\[ok {2}\] endpoint .*"gpt-test" is available/);
});

Deno.test("doctor fails naming the URL when nothing listens there, and --offline skips the call", async () => {
  await using home = await tempDir();
  const base = `http://127.0.0.1:${closedPort()}/v1`;
  await writeConfig(home.path, `model:\n  provider: custom\n  base_url: ${base}\n  default: m\n`);
  const result = await herald(home.path, "doctor");
  assert.equal(result.code, 1);
  assert.match(result.stdout, /\[FAIL\] endpoint {2}Cannot reach .*connection refused/);
  assert.ok(result.stdout.includes(`${base}/models`), result.stdout);
  assert.match(result.stdout, /is the server running\? check model\.base_url/);
  assert.match(result.stderr, /^herald: 1 check failed/);

  const offline = await herald(home.path, "doctor", "--offline", "--json");
  assert.equal(offline.code, 0, offline.stderr);
  const names = JSON.parse(offline.stdout).checks.map((check: Check) => check.name);
  assert.ok(!names.includes("endpoint"));
});

Deno.test("doctor reports an unknown provider in config.yaml as a failure", async () => {
  await using home = await tempDir();
  await writeConfig(home.path, "model:\n  provider: openruter\n  default: some/model\n");
  const result = await herald(home.path, "doctor", "--json");
  assert.equal(result.code, 1);
  const model = JSON.parse(result.stdout).checks.find((check: Check) => check.name === "model");
  assert.equal(model.status, "fail");
  assert.match(model.detail, /Unknown provider "openruter"; did you mean "openrouter"\?/);
});

Deno.test("doctor exits 0 with a warning for an existing near-typo provider that has base_url", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ models: ["gpt-test"] });
  await writeConfig(
    home.path,
    `model:\n  provider: ollama2\n  base_url: ${server.openaiBaseUrl}\n  default: gpt-test\n`,
  );
  const result = await herald(home.path, "doctor", "--json");
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const checks: Check[] = JSON.parse(result.stdout).checks;
  const model = checks.find((check) => check.name === "model")!;
  assert.equal(model.status, "warn");
  assert.match(model.detail, /"ollama2" is not a known provider/);
  assert.equal(checks.find((check) => check.name === "endpoint")?.status, "ok");
  const typo = await herald(home.path, "config", "set", "model.provider", "ollama3");
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /did you mean "ollama"\?/);
});

Deno.test("config set model.provider refuses a typo with exit 2, a suggestion and the known list", async () => {
  await using home = await tempDir();
  const result = await herald(home.path, "config", "set", "model.provider", "openruter");
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^herald: Unknown provider "openruter"; did you mean "openrouter"\?/);
  assert.match(result.stderr, /Known providers: openai, openrouter, anthropic/);
  const kept = await herald(home.path, "config", "set", "model.provider", "openrouter");
  assert.equal(kept.code, 0, kept.stderr);
});
