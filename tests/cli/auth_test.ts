/**
 * `herald auth list` and `herald auth reset`: each provider's keys masked
 * (never a whole key, in text or JSON, from `.env` or the environment),
 * what uses them, and the state the key pools recorded.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { KEY_STATE_FILE } from "../../core/models/key_state.ts";
import { tempDir } from "../_helpers.ts";

const OR_ONE = "sk-or-v1-aaaaaaaaaaaaaaaaaaaaaaaaaaaa1111";
const OR_TWO = "sk-or-v1-bbbbbbbbbbbbbbbbbbbbbbbbbbbb2222";
const ANT = "sk-ant-api03-cccccccccccccccccccccccc3333";
const OPENAI = "sk-proj-dddddddddddddddddddddddddddd4444";

async function herald(home: string, env: Record<string, string>, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent", ...env } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

async function profile(home: string): Promise<void> {
  await Deno.writeTextFile(
    join(home, "config.yaml"),
    "model:\n  provider: openrouter\n  default: gpt-test\n" +
      "fallback_providers:\n  - provider: anthropic\n    model: claude-test\n",
  );
  await Deno.writeTextFile(
    join(home, ".env"),
    `OPENROUTER_API_KEY=${OR_ONE}\nOPENROUTER_API_KEY_2=${OR_TWO}\nANTHROPIC_API_KEY=${ANT}\n`,
  );
}

function assertNoKey(text: string): void {
  for (const key of [OR_ONE, OR_TWO, ANT, OPENAI]) {
    assert.ok(!text.includes(key), "a whole key is never printed");
    assert.ok(!text.includes(key.slice(0, 12)), "nor a long piece of one");
  }
}

Deno.test("auth list shows each provider's keys masked, what uses them, and their state", async () => {
  await using home = await tempDir();
  await profile(home.path);
  const until = new Date(Date.now() + 3_600_000).toISOString();
  const at = new Date().toISOString();
  await Deno.writeTextFile(
    join(home.path, KEY_STATE_FILE),
    JSON.stringify({
      version: 1,
      providers: {
        openrouter: {
          OPENROUTER_API_KEY_2: {
            key: "sk-…2222",
            cooldown_until: until,
            last_error: { status: 429, failure: "rate_limit", at },
            updated_at: at,
          },
          // A record of a key the variable no longer holds is not shown.
          OPENROUTER_API_KEY: {
            key: "sk-…0000",
            cooldown_until: until,
            last_error: null,
            updated_at: at,
          },
        },
      },
    }),
  );

  const json = await herald(home.path, { OPENAI_API_KEY: OPENAI }, "auth", "list", "--json");
  assert.equal(json.code, 0, json.stderr);
  assertNoKey(json.stdout);
  const view = JSON.parse(json.stdout);
  assert.equal(view.state_file, join(home.path, KEY_STATE_FILE));
  assert.deepEqual(
    view.providers.map((p: { provider: string; used_by: string[] }) => [p.provider, p.used_by]),
    [["openrouter", ["model"]], ["anthropic", ["fallback_providers.0"]], ["openai", []]],
  );
  assert.deepEqual(view.providers[0].keys, [
    {
      source: "OPENROUTER_API_KEY",
      key: "sk-…1111",
      state: "ok",
      cooldown_until: null,
      last_error: null,
    },
    {
      source: "OPENROUTER_API_KEY_2",
      key: "sk-…2222",
      state: "cooling_down",
      cooldown_until: until,
      last_error: { status: 429, failure: "rate_limit", at },
    },
  ]);
  assert.equal(view.providers[2].keys[0].key, "sk-…4444", "keys from the environment count too");

  const text = await herald(home.path, { OPENAI_API_KEY: OPENAI }, "auth", "list");
  assert.equal(text.code, 0, text.stderr);
  assertNoKey(text.stdout);
  assert.match(text.stdout, /^openrouter \(OpenRouter\) · used by model$/m);
  assert.match(
    text.stdout,
    /^ {2}OPENROUTER_API_KEY_2 {2}sk-…2222 {2}cooling down until \S+ \(last error HTTP 429 at \S+\)$/m,
  );
  assert.match(text.stdout, /^ {2}OPENROUTER_API_KEY {4}sk-…1111 {2}ok$/m);

  const only = JSON.parse(
    (await herald(home.path, {}, "auth", "list", "anthropic", "--json")).stdout,
  );
  assert.deepEqual(only.providers.map((p: { provider: string }) => p.provider), ["anthropic"]);
});

Deno.test("auth reset forgets the recorded state of one provider or all", async () => {
  await using home = await tempDir();
  await profile(home.path);
  const until = new Date(Date.now() + 3_600_000).toISOString();
  const record = { key: "sk-…2222", cooldown_until: until, last_error: null, updated_at: until };
  await Deno.writeTextFile(
    join(home.path, KEY_STATE_FILE),
    JSON.stringify({
      version: 1,
      providers: {
        openrouter: { OPENROUTER_API_KEY_2: record },
        anthropic: { ANTHROPIC_API_KEY: { ...record, key: "sk-…3333" } },
      },
    }),
  );
  const one = await herald(home.path, {}, "auth", "reset", "openrouter", "--json");
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual(JSON.parse(one.stdout), { reset: ["openrouter"] });
  const view = JSON.parse((await herald(home.path, {}, "auth", "list", "--json")).stdout);
  assert.equal(view.providers[0].keys[1].state, "ok");
  assert.equal(view.providers[1].keys[0].state, "cooling_down");

  const all = await herald(home.path, {}, "auth", "reset");
  assert.equal(all.stdout, "Forgot the recorded state of anthropic\n");
});

Deno.test("auth list with no keys says how to add one", async () => {
  await using home = await tempDir();
  const result = await herald(home.path, {}, "auth", "list");
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /No provider keys found; set one with `herald config set model\.api_key <key>`/,
  );
});

Deno.test("auth reset on a home that does not exist yet creates it and forgets nothing", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "fresh");
  const result = await herald(home, {}, "auth", "reset", "--json");
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { reset: [] });
});
