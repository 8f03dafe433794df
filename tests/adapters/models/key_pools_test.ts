/**
 * The pools' state file in a real profile home: a failure worth keeping is
 * written (masked key, cooldown, last error; never the key), a registry
 * opened later starts from it, a changed key starts afresh, and a damaged
 * file is an empty state.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { routeOf } from "../../../core/models/fallback.ts";
import { isCoolingDown } from "../../../core/models/key_pool.ts";
import { KEY_STATE_FILE } from "../../../core/models/key_state.ts";
import { KeyPoolRegistry, openKeyStateStore } from "../../../adapters/models/key_pools.ts";
import { tempDir } from "../../_helpers.ts";

const KEY_ONE = "sk-or-v1-first-key-000000000001";
const KEY_TWO = "sk-or-v1-second-key-00000000002";

function route(env: Record<string, string>) {
  return routeOf(
    { provider: "openrouter", model: "gpt-test", baseUrl: "http://127.0.0.1:9/v1", maxRetries: 0 },
    (name) => env[name],
  );
}

Deno.test("a rested key is written masked to the state file and a later registry starts from it", async () => {
  await using home = await tempDir();
  const env = { OPENROUTER_API_KEY: KEY_ONE, OPENROUTER_API_KEY_2: KEY_TWO };
  const registry = new KeyPoolRegistry(openKeyStateStore(home.path));
  await registry.load();
  const pool = registry.pool(route(env));
  assert.equal(registry.pool(route(env)), pool, "one pool per provider and endpoint");
  const now = Date.now();
  pool.fail(pool.keys[0], "rate_limit", now, { status: 429 });
  pool.fail(pool.keys[0], "rate_limit", now, { status: 429 });
  await registry.flush();

  const text = await Deno.readTextFile(join(home.path, KEY_STATE_FILE));
  assert.ok(!text.includes(KEY_ONE) && !text.includes(KEY_TWO), "the file never holds a key");
  const record = JSON.parse(text).providers.openrouter.OPENROUTER_API_KEY;
  assert.equal(record.key, "sk-…0001");
  assert.equal(record.cooldown_until, new Date(now + 60_000).toISOString());
  assert.deepEqual(
    { status: record.last_error.status, failure: record.last_error.failure },
    { status: 429, failure: "rate_limit" },
  );
  assert.equal((await Deno.stat(join(home.path, KEY_STATE_FILE))).mode! & 0o777, 0o600);

  const later = new KeyPoolRegistry(openKeyStateStore(home.path));
  await later.load();
  const restored = later.pool(route(env));
  assert.ok(isCoolingDown(restored.status("OPENROUTER_API_KEY"), now + 1));
  assert.equal(restored.pick(now + 1)?.source, "OPENROUTER_API_KEY_2");

  const replaced = new KeyPoolRegistry(openKeyStateStore(home.path));
  await replaced.load();
  const fresh = replaced.pool(
    route({ ...env, OPENROUTER_API_KEY: "sk-or-v1-a-new-key-000000000009" }),
  );
  assert.ok(
    !isCoolingDown(fresh.status("OPENROUTER_API_KEY"), now + 1),
    "another key starts afresh",
  );
});

Deno.test("a damaged state file reads as empty and is replaced on the next write", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(join(home.path, KEY_STATE_FILE), "{ not json");
  const store = openKeyStateStore(home.path);
  assert.deepEqual(await store.read(), { version: 1, providers: {} });
  const registry = new KeyPoolRegistry(store);
  await registry.load();
  const pool = registry.pool(route({ OPENROUTER_API_KEY: KEY_ONE }));
  pool.fail(pool.keys[0], "payment", Date.now(), { status: 402 });
  await registry.flush();
  const state = await store.read();
  assert.equal(state.providers.openrouter.OPENROUTER_API_KEY.last_error?.status, 402);
});
