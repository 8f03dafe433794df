/**
 * The fallback chain and key pools over real clients and two scripted model
 * servers (OpenAI wire for the primary, Anthropic wire for the fallback),
 * with time passed in: which server and which key each call reached, in
 * order, for rejected keys, rate limits, outages, fatal errors, resting
 * pools and interrupted waits.
 */

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { ModelError } from "../../../core/errors.ts";
import { createFailoverClient } from "../../../core/models/failover_client.ts";
import { KeyPool, type PooledKey } from "../../../core/models/key_pool.ts";
import type { ModelSettings } from "../../../core/models/settings.ts";
import type {
  ChatMessage,
  ModelClient,
  ModelNotice,
  ModelRequest,
} from "../../../core/models/types.ts";
import { createModelClient } from "../../../adapters/models/mod.ts";
import { type ModelServer, startModelServer } from "../../fakes/model_server.ts";
import { FAST, streamServer } from "./_setup.ts";

const USER: ChatMessage = { role: "user", content: "Weather in Tokyo?" };
const TURN: ModelRequest = { system: "", messages: [USER], tools: [] };
/** A later call of the same turn: the history ends with a tool result. */
const SAME_TURN: ModelRequest = {
  system: "",
  messages: [
    USER,
    { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "w", arguments: "{}" }] },
    { role: "tool", toolCallId: "c1", name: "w", content: "sunny" },
  ],
  tools: [],
};

interface Clock {
  now: number;
  slept: number[];
}

interface Route {
  provider: string;
  model: string;
  baseUrl: string;
  keys: PooledKey[];
  pool?: KeyPool;
}

function primary(server: ModelServer, keys = ["sk-primary-one-0001"]): Route {
  return {
    provider: "openrouter",
    model: "gpt-test",
    baseUrl: server.openaiBaseUrl,
    keys: keys.map((key, i) => ({
      source: i === 0 ? "OPENROUTER_API_KEY" : `OPENROUTER_API_KEY_${i + 1}`,
      key,
    })),
  };
}

function fallback(server: ModelServer): Route {
  return {
    provider: "anthropic",
    model: "claude-test",
    baseUrl: server.anthropicBaseUrl,
    keys: [{ source: "ANTHROPIC_API_KEY", key: "sk-ant-fallback-0001" }],
  };
}

function chain(routes: Route[], clock: Clock = { now: 0, slept: [] }): ModelClient {
  return createFailoverClient({
    routes: routes.map((route) => {
      const settings: ModelSettings = {
        provider: route.provider,
        model: route.model,
        baseUrl: route.baseUrl,
        maxRetries: 1,
      };
      route.pool ??= new KeyPool(route.provider, route.keys);
      return { settings, pool: route.pool };
    }),
    connect: (settings) => createModelClient(settings, FAST),
    now: () => clock.now,
    sleep: (ms) => {
      clock.slept.push(ms);
      clock.now += ms;
      return Promise.resolve();
    },
  });
}

/** The key each request to `server` carried. */
function keysSeen(server: ModelServer): string[] {
  return server.requests.map((r) =>
    r.headers["x-api-key"] ?? r.headers["authorization"]?.replace(/^Bearer /, "") ?? "(none)"
  );
}

function collect(): { notices: ModelNotice[]; handlers: { onNotice(n: ModelNotice): void } } {
  const notices: ModelNotice[] = [];
  return { notices, handlers: { onNotice: (n) => notices.push(n) } };
}

Deno.test("a 401 from the primary hands the turn to the fallback, and the next turn tries the primary", async () => {
  await using first = await startModelServer({
    replies: [{ status: 401, message: "Invalid key" }, { text: "primary again" }],
  });
  await using second = await startModelServer({
    replies: [{ text: "fallback answer" }, { text: "fallback, same turn" }],
  });
  const client = chain([primary(first), fallback(second)]);
  const { notices, handlers } = collect();

  assert.equal((await client.complete(TURN, handlers)).text, "fallback answer");
  assert.equal((await client.complete(SAME_TURN, handlers)).text, "fallback, same turn");
  assert.equal(first.requests.length, 1, "the rest of the turn stays on the fallback");
  assert.deepEqual(notices.map((n) => n.code), ["model_fallback"]);
  assert.equal(
    notices[0].message,
    "openrouter/gpt-test rejected the key (HTTP 401); this turn continues with " +
      "anthropic/claude-test (fallback 1 of 1)",
  );

  assert.equal((await client.complete(TURN, handlers)).text, "primary again");
  assert.deepEqual(keysSeen(first), ["sk-primary-one-0001", "sk-primary-one-0001"]);
  assert.deepEqual(keysSeen(second), ["sk-ant-fallback-0001", "sk-ant-fallback-0001"]);
  assert.equal(client.provider, "openrouter");
  assert.equal(client.model, "gpt-test");
});

Deno.test("a 401 with a second key tries that key before any fallback", async () => {
  await using first = await startModelServer({
    replies: [{ status: 401 }, { text: "second key" }, { status: 401 }, { text: "second again" }],
  });
  await using second = await startModelServer();
  const route = primary(first, ["sk-primary-one-0001", "sk-primary-two-0002"]);
  const client = chain([route, fallback(second)]);
  const { notices, handlers } = collect();
  assert.equal((await client.complete(TURN, handlers)).text, "second key");
  assert.equal(notices[0].code, "model_key_rotated");
  assert.match(
    notices[0].message,
    /^openrouter rejected the key \(HTTP 401\) with key OPENROUTER_API_KEY; trying OPENROUTER_API_KEY_2$/,
  );
  assert.ok(!notices[0].message.includes("sk-primary"), "a notice never holds a key");
  // A rejected key rests for no longer than the turn: the next turn tries it again.
  assert.equal((await client.complete(TURN, handlers)).text, "second again");
  assert.deepEqual(keysSeen(first), [
    "sk-primary-one-0001",
    "sk-primary-two-0002",
    "sk-primary-one-0001",
    "sk-primary-two-0002",
  ]);
  assert.equal(second.requests.length, 0);
  assert.equal(route.pool!.status("OPENROUTER_API_KEY").lastError?.status, 401);
});

Deno.test("two 429s in a row move to the next key, which keeps the turn while the first rests", async () => {
  await using first = await startModelServer({
    replies: [
      { status: 429, headers: { "retry-after-ms": "20" } },
      { status: 429 },
      { text: "from the second key" },
      { text: "second key, next turn" },
    ],
  });
  await using second = await startModelServer();
  const clock: Clock = { now: 1_000_000, slept: [] };
  const route = primary(first, ["sk-primary-one-0001", "sk-primary-two-0002"]);
  const client = chain([route, fallback(second)], clock);
  const { notices, handlers } = collect();

  assert.equal((await client.complete(TURN, handlers)).text, "from the second key");
  assert.deepEqual(clock.slept, [20], "the first 429 waits as the provider asked, then retries");
  assert.deepEqual(keysSeen(first), [
    "sk-primary-one-0001",
    "sk-primary-one-0001",
    "sk-primary-two-0002",
  ]);
  assert.deepEqual(notices.map((n) => n.code), ["model_key_rotated"]);
  assert.match(
    notices[0].message,
    /is rate limiting \(HTTP 429\) with key OPENROUTER_API_KEY \(it rests until \d\d:\d\d:\d\d UTC\); trying OPENROUTER_API_KEY_2/,
  );
  const resting = route.pool!.status("OPENROUTER_API_KEY");
  assert.equal(resting.cooldownUntil, clock.now + 60_000);

  clock.now += 30_000;
  assert.equal((await client.complete(TURN, handlers)).text, "second key, next turn");
  assert.equal(keysSeen(first).at(-1), "sk-primary-two-0002", "the first key still rests");
  assert.equal(second.requests.length, 0);
});

Deno.test("two 429s on the only key hand the turn to the fallback; while it rests the fallback leads", async () => {
  await using first = await startModelServer({
    replies: [{ status: 429 }, { status: 429 }, { text: "primary is back" }],
  });
  await using second = await startModelServer({
    replies: [{ text: "fallback answer" }, { text: "fallback while resting" }],
  });
  const clock: Clock = { now: 0, slept: [] };
  const client = chain([primary(first), fallback(second)], clock);
  const { notices, handlers } = collect();

  assert.equal((await client.complete(TURN, handlers)).text, "fallback answer");
  assert.equal(first.requests.length, 2);
  assert.match(
    notices.at(-1)!.message,
    /^openrouter\/gpt-test is rate limiting \(HTTP 429\); this turn continues with anthropic\/claude-test/,
  );

  clock.now += 1_000;
  assert.equal((await client.complete(TURN, handlers)).text, "fallback while resting");
  assert.equal(first.requests.length, 2, "a resting pool is passed over without a call");
  // The first 429 waited a second (the default), the second rested the key for a minute.
  assert.deepEqual(clock.slept, [1_000]);
  assert.match(
    notices.at(-1)!.message,
    /^openrouter\/gpt-test has every key cooling down until 00:01:01 UTC; this turn continues with anthropic\/claude-test/,
  );

  clock.now += 60_000;
  assert.equal((await client.complete(TURN, handlers)).text, "primary is back");
});

Deno.test("a 402 rests the key for an hour and the next key answers", async () => {
  await using first = await startModelServer({
    replies: [{ status: 402, message: "Payment required" }, { text: "paid by key two" }],
  });
  const clock: Clock = { now: 0, slept: [] };
  const route = primary(first, ["sk-primary-one-0001", "sk-primary-two-0002"]);
  const client = chain([route], clock);
  assert.equal((await client.complete(TURN)).text, "paid by key two");
  assert.equal(route.pool!.status("OPENROUTER_API_KEY").cooldownUntil, 3_600_000);
});

Deno.test("a 5xx after the client's retries hands over without touching the key", async () => {
  await using first = await startModelServer({
    replies: [{ status: 503 }, { status: 503 }],
  });
  await using second = await startModelServer({ replies: [{ text: "fallback answer" }] });
  const route = primary(first);
  const client = chain([route, fallback(second)]);
  const { notices, handlers } = collect();
  assert.equal((await client.complete(TURN, handlers)).text, "fallback answer");
  assert.equal(first.requests.length, 2, "one try and one retry (maxRetries 1)");
  assert.match(notices[0].message, /is unavailable \(HTTP 503\)/);
  assert.deepEqual(route.pool!.status("OPENROUTER_API_KEY"), { rateLimitStreak: 0 });
});

Deno.test("a bad request is no reason to fall back: it is thrown as is", async () => {
  await using first = await startModelServer({ replies: [{ status: 400, message: "Bad field" }] });
  await using second = await startModelServer();
  const client = chain([primary(first), fallback(second)]);
  const error = await client.complete(TURN).then(() => assert.fail("expected a failure"), (e) => e);
  assert.ok(error instanceof ModelError);
  assert.equal(error.code, "model_bad_request");
  assert.equal(second.requests.length, 0);
});

Deno.test("when every route fails the error is the last one's, naming the others", async () => {
  await using first = await startModelServer({ replies: [{ status: 401 }] });
  await using second = await startModelServer({ replies: [{ status: 503 }, { status: 503 }] });
  const client = chain([primary(first), fallback(second)]);
  const error = await client.complete(TURN).then(() => assert.fail("expected a failure"), (e) => e);
  assert.ok(error instanceof ModelError);
  assert.equal(error.code, "model_unavailable");
  assert.equal(error.provider, "anthropic");
  assert.match(
    error.message,
    /\(also failed: openrouter\/gpt-test rejected the key \(HTTP 401\)\)$/,
  );
  assert.ok(!error.message.includes("\n"));
});

Deno.test("a failure after part of the answer was shown is not handed to a fallback", async () => {
  await using broken = streamServer(() => ({
    events: [
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Partial" } }] })}\n\n`,
    ],
    drop: true,
  }));
  await using second = await startModelServer();
  const client = chain([
    { ...primary(second), baseUrl: `${broken.url}/v1` },
    fallback(second),
  ]);
  const shown: string[] = [];
  const error = await client.complete(TURN, { onText: (d) => shown.push(d) }).then(
    () => assert.fail("expected a failure"),
    (e) => e,
  );
  assert.ok(error instanceof ModelError);
  assert.match(error.message, /part of the answer had arrived/);
  assert.deepEqual(shown, ["Partial"]);
  assert.equal(second.requests.length, 0);
});

Deno.test("an interrupt during the wait after a 429 ends the call as aborted", async () => {
  await using first = await startModelServer({ replies: [{ status: 429 }] });
  const controller = new AbortController();
  const client = createFailoverClient({
    routes: [{
      settings: {
        provider: "openrouter",
        model: "gpt-test",
        baseUrl: first.openaiBaseUrl,
        maxRetries: 0,
      },
      pool: new KeyPool("openrouter", [
        { source: "A", key: "sk-primary-one-0001" },
        { source: "B", key: "sk-primary-two-0002" },
      ]),
    }],
    connect: (settings) => createModelClient(settings, FAST),
    sleep: () => {
      controller.abort();
      return Promise.resolve();
    },
  });
  const answer = await client.complete({ ...TURN, signal: controller.signal });
  assert.equal(answer.finishReason, "aborted");
  assert.equal(first.requests.length, 1);
});

Deno.test("a call that times out hands the turn to the fallback (fake time)", async () => {
  await using first = await startModelServer({
    replies: [{ text: "too late", hang: "before-response" }],
  });
  await using second = await startModelServer({ replies: [{ text: "fallback answer" }] });
  const client = createFailoverClient({
    routes: [
      {
        settings: {
          provider: "openrouter",
          model: "gpt-test",
          baseUrl: first.openaiBaseUrl,
          maxRetries: 0,
          timeoutSeconds: 30,
          timeoutSetting: "model.timeout",
        },
        pool: new KeyPool("openrouter", [{
          source: "OPENROUTER_API_KEY",
          key: "sk-primary-one-0001",
        }]),
      },
      {
        settings: {
          provider: "anthropic",
          model: "claude-test",
          baseUrl: second.anthropicBaseUrl,
          maxRetries: 0,
        },
        pool: new KeyPool("anthropic", [{
          source: "ANTHROPIC_API_KEY",
          key: "sk-ant-fallback-0001",
        }]),
      },
    ],
    connect: (settings) => createModelClient(settings, FAST),
  });
  const { notices, handlers } = collect();
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    const answer = client.complete(TURN, handlers);
    while (first.requests.length === 0) await clock.tickAsync(0);
    await clock.tickAsync(30_000);
    assert.equal((await answer).text, "fallback answer");
  } finally {
    clock.uninstall();
  }
  assert.equal(notices.length, 1);
  assert.match(
    notices[0].message,
    /^openrouter\/gpt-test did not answer; this turn continues with anthropic\/claude-test/,
  );
});

Deno.test("a resting provider in the middle of the chain is passed over and named in the one notice", async () => {
  await using first = await startModelServer({ replies: [{ status: 401 }] });
  await using second = await startModelServer();
  await using third = await startModelServer({ replies: [{ text: "local answer" }] });
  const middle = fallback(second);
  middle.pool = new KeyPool(middle.provider, middle.keys);
  middle.pool.fail(middle.keys[0], "payment", 0, { status: 402 });
  const local: Route = {
    provider: "ollama",
    model: "qwen3:8b",
    baseUrl: third.openaiBaseUrl,
    keys: [{ source: "" }],
  };
  const client = chain([primary(first), middle, local], { now: 1_000, slept: [] });
  const { notices, handlers } = collect();
  assert.equal((await client.complete(TURN, handlers)).text, "local answer");
  assert.equal(second.requests.length, 0);
  assert.deepEqual(keysSeen(third), ["(none)"], "a keyless endpoint gets no key");
  assert.deepEqual(notices.map((n) => n.message), [
    "openrouter/gpt-test rejected the key (HTTP 401); anthropic/claude-test has every key " +
    "cooling down until 01:00:00 UTC; this turn continues with ollama/qwen3:8b (fallback 2 of 2)",
  ]);
});
