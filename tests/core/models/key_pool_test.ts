/**
 * The key pool's rotation and cooldown rules, with time passed in: a 429 is
 * retried once and the second one in a row rests the key; a payment failure
 * rests it for an hour; a rejected key rotates without resting; the pool
 * picks the first ready key, and only the last provider of a chain falls
 * back to a resting one.
 */

import assert from "node:assert/strict";
import {
  isCoolingDown,
  judgeKeyFailure,
  KeyPool,
  type KeyStatus,
  maskKey,
  POOL_RULES,
  poolKeys,
} from "../../../core/models/key_pool.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function env(values: Record<string, string>) {
  return (name: string) => values[name];
}

Deno.test("a first 429 retries the same key after a short wait; the second rests it for a minute", () => {
  const fresh: KeyStatus = { rateLimitStreak: 0 };
  const first = judgeKeyFailure(fresh, "rate_limit", 1_000, { status: 429 });
  assert.deepEqual(first.verdict, { action: "retry", waitMs: POOL_RULES.rateLimitRetryMs });
  assert.equal(first.status.rateLimitStreak, 1);
  assert.equal(first.status.cooldownUntil, undefined);
  assert.deepEqual(first.status.lastError, { status: 429, failure: "rate_limit", at: 1_000 });

  const second = judgeKeyFailure(first.status, "rate_limit", 3_000, { status: 429 });
  assert.deepEqual(second.verdict, { action: "rotate" });
  assert.equal(second.status.cooldownUntil, 3_000 + MINUTE);
  assert.equal(second.status.rateLimitStreak, 0, "the streak starts over after the rest");
  assert.ok(isCoolingDown(second.status, 3_000 + MINUTE - 1));
  assert.ok(!isCoolingDown(second.status, 3_000 + MINUTE));
});

Deno.test("a provider's retry-after sets the retry wait (capped) and a longer rest", () => {
  const first = judgeKeyFailure({ rateLimitStreak: 0 }, "rate_limit", 0, { retryAfterMs: 250 });
  assert.deepEqual(first.verdict, { action: "retry", waitMs: 250 });
  const capped = judgeKeyFailure({ rateLimitStreak: 0 }, "rate_limit", 0, {
    retryAfterMs: 5 * MINUTE,
  });
  assert.deepEqual(capped.verdict, { action: "retry", waitMs: POOL_RULES.maxRateLimitRetryMs });
  const second = judgeKeyFailure(capped.status, "rate_limit", 0, { retryAfterMs: 5 * MINUTE });
  assert.equal(second.status.cooldownUntil, 5 * MINUTE);
});

Deno.test("payment required rests the key for an hour; a rejected key rotates without resting", () => {
  const paid = judgeKeyFailure({ rateLimitStreak: 1 }, "payment", 10, { status: 402 });
  assert.deepEqual(paid.verdict, { action: "rotate" });
  assert.equal(paid.status.cooldownUntil, 10 + HOUR);
  assert.equal(paid.status.rateLimitStreak, 0);

  const rejected = judgeKeyFailure({ rateLimitStreak: 0 }, "auth", 10, { status: 401 });
  assert.deepEqual(rejected.verdict, { action: "rotate" });
  assert.equal(rejected.status.cooldownUntil, undefined);
  assert.deepEqual(rejected.status.lastError, { status: 401, failure: "auth", at: 10 });
});

Deno.test("an unavailable provider hands over to the next route and leaves the key alone", () => {
  const status: KeyStatus = { rateLimitStreak: 1 };
  const judged = judgeKeyFailure(status, "unavailable", 10, { status: 503 });
  assert.deepEqual(judged.verdict, { action: "next_route" });
  assert.equal(judged.status, status);
});

Deno.test("the pool picks the first ready key and rotates past a resting one", () => {
  const pool = new KeyPool("openai", [
    { source: "OPENAI_API_KEY", key: "sk-a" },
    { source: "OPENAI_API_KEY_2", key: "sk-b" },
  ]);
  let now = 0;
  assert.equal(pool.pick(now)?.source, "OPENAI_API_KEY");
  assert.equal(pool.fail(pool.pick(now)!, "rate_limit", now).action, "retry");
  now += 1_000;
  assert.equal(pool.fail(pool.pick(now)!, "rate_limit", now).action, "rotate");
  assert.equal(pool.pick(now)?.source, "OPENAI_API_KEY_2");
  assert.equal(pool.readyAt(now), undefined, "one key is still ready");

  now += MINUTE;
  assert.equal(pool.pick(now)?.source, "OPENAI_API_KEY", "the rest is over");
});

Deno.test("a pool whose keys all rest gives none, except as the last resort: the soonest ready", () => {
  const pool = new KeyPool("openai", [
    { source: "A", key: "sk-a" },
    { source: "B", key: "sk-b" },
  ]);
  pool.fail({ source: "A", key: "sk-a" }, "payment", 0);
  pool.fail({ source: "B", key: "sk-b" }, "rate_limit", 0);
  pool.fail({ source: "B", key: "sk-b" }, "rate_limit", 0);
  assert.equal(pool.pick(1), undefined);
  assert.equal(pool.readyAt(1), MINUTE);
  assert.equal(pool.pick(1, { lastResort: true })?.source, "B");
  assert.equal(pool.pick(1, { lastResort: true, exclude: new Set(["B"]) })?.source, "A");
  assert.equal(pool.pick(1, { lastResort: true, exclude: new Set(["A", "B"]) }), undefined);
});

Deno.test("a success ends the 429 streak and a rest, and tells the listeners when a rest ended early", () => {
  const pool = new KeyPool("openai", [{ source: "A", key: "sk-a" }]);
  const changes: KeyStatus[] = [];
  pool.onChange((_pool, _key, status) => changes.push(status));
  const key = pool.keys[0];
  pool.fail(key, "rate_limit", 0);
  pool.succeed(key, 1);
  assert.equal(pool.status("A").rateLimitStreak, 0);
  assert.equal(pool.fail(key, "rate_limit", 2).action, "retry", "the streak started over");
  pool.fail(key, "rate_limit", 3);
  assert.ok(isCoolingDown(pool.status("A"), 4));
  pool.succeed(key, 4);
  assert.ok(!isCoolingDown(pool.status("A"), 4));
  assert.equal(changes.length, 4, "three failures and the early end of a rest");
  assert.equal(changes.at(-1)?.cooldownUntil, undefined);
});

Deno.test("new keys for a source start afresh; unchanged ones keep their state", () => {
  const pool = new KeyPool("openai", [
    { source: "A", key: "sk-a" },
    { source: "B", key: "sk-b" },
  ]);
  pool.fail(pool.keys[0], "payment", 0);
  pool.fail(pool.keys[1], "payment", 0);
  pool.setKeys([{ source: "A", key: "sk-a" }, { source: "B", key: "sk-new" }]);
  assert.ok(isCoolingDown(pool.status("A"), 1));
  assert.ok(!isCoolingDown(pool.status("B"), 1));
});

Deno.test("keys are numbered after the variable, gaps allowed, each once, the configured one first", () => {
  const values = {
    OPENAI_API_KEY: "sk-one",
    OPENAI_API_KEY_2: "sk-two",
    OPENAI_API_KEY_4: "sk-four",
    OPENAI_API_KEY_5: "sk-one",
    OPENAI_API_KEY_6: "${UNSET}",
  };
  assert.deepEqual(poolKeys(env(values), "OPENAI_API_KEY").map((k) => k.source), [
    "OPENAI_API_KEY",
    "OPENAI_API_KEY_2",
    "OPENAI_API_KEY_4",
  ]);
  const chosen = poolKeys(env(values), "OPENAI_API_KEY", {
    source: "model.api_key",
    key: "sk-two",
  });
  assert.deepEqual(chosen.map((k) => k.source), [
    "OPENAI_API_KEY_2",
    "OPENAI_API_KEY",
    "OPENAI_API_KEY_4",
  ]);
  const own = poolKeys(env(values), "OPENAI_API_KEY", { source: "model.api_key", key: "sk-own" });
  assert.deepEqual(own.map((k) => k.source)[0], "model.api_key");
  assert.deepEqual(poolKeys(env({}), "OPENAI_API_KEY"), []);
});

Deno.test("a masked key shows at most its first three and last four characters", () => {
  assert.equal(maskKey("sk-or-v1-0123456789abcdef"), "sk-…cdef");
  assert.equal(maskKey("0123456789ab"), "…89ab");
  assert.equal(maskKey("short-key"), "…");
});
