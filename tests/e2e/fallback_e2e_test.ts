/**
 * Fallback providers and key pools end to end: the real `herald chat` with
 * two scripted model servers, the primary (OpenAI wire, provider
 * `openrouter`) and the fallback (Anthropic wire). The servers' request logs
 * show which endpoint and which key each call reached, in order.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { type ModelServer, startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";

const KEY_ONE = "sk-or-v1-primary-key-one-00000001";
const KEY_TWO = "sk-or-v1-primary-key-two-00000002";
const ANT_KEY = "sk-ant-api03-fallback-key-0000003";

interface Body {
  model: string;
  messages: { role: string; content: unknown }[];
}

async function home(
  root: string,
  primary: ModelServer,
  fallback: ModelServer,
  keys: string[],
): Promise<string> {
  const herald = join(root, "herald");
  await Deno.mkdir(herald, { recursive: true });
  await Deno.writeTextFile(
    join(herald, "config.yaml"),
    `model:\n  provider: openrouter\n  base_url: ${primary.openaiBaseUrl}\n  default: gpt-test\n` +
      `fallback_providers:\n  - provider: anthropic\n    model: claude-test\n` +
      `    base_url: ${fallback.anthropicBaseUrl}\n`,
  );
  const env = keys.map((key, i) => `OPENROUTER_API_KEY${i === 0 ? "" : `_${i + 1}`}=${key}\n`);
  await Deno.writeTextFile(join(herald, ".env"), `${env.join("")}ANTHROPIC_API_KEY=${ANT_KEY}\n`);
  return herald;
}

function keysSeen(server: ModelServer): string[] {
  return server.requests.map((r) =>
    r.headers["x-api-key"] ?? r.headers["authorization"]?.replace(/^Bearer /, "") ?? "(none)"
  );
}

function body(server: ModelServer, index: number): Body {
  return server.requests[index].body as Body;
}

function lastRole(server: ModelServer, index: number): string {
  return body(server, index).messages.at(-1)!.role;
}

function assertNoKey(text: string): void {
  for (const key of [KEY_ONE, KEY_TWO, ANT_KEY]) {
    assert.ok(!text.includes(key), "no key is printed");
  }
}

Deno.test("a 401 from the primary continues the same turn on the fallback; the next message tries the primary", async () => {
  await using root = await tempDir();
  const work = join(root.path, "project");
  await Deno.mkdir(work);
  await Deno.writeTextFile(join(work, "notes.txt"), "the answer is 42\n");
  await using primary = await startModelServer({
    replies: [{ status: 401, message: "Invalid API key" }, { text: "Primary is back." }],
  });
  await using fallback = await startModelServer({
    replies: [
      { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "The notes say 42." },
    ],
  });
  const herald = await home(root.path, primary, fallback, [KEY_ONE]);
  const run = await runHerald({
    args: ["chat"],
    home: herald,
    cwd: work,
    stdin: "What do my notes say?\nAnd now?\n",
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /The notes say 42\./);
  assert.match(run.stdout, /Primary is back\./);

  // Turn 1: the primary's 401, then both calls of the turn on the fallback; turn 2: the primary.
  assert.deepEqual(keysSeen(primary), [KEY_ONE, KEY_ONE]);
  assert.deepEqual(primary.requests.map((_, i) => lastRole(primary, i)), ["user", "user"]);
  assert.deepEqual(keysSeen(fallback), [ANT_KEY, ANT_KEY]);
  assert.deepEqual(fallback.requests.map((_, i) => lastRole(fallback, i)), ["user", "user"]);
  assert.equal(body(fallback, 0).model, "claude-test");
  const toolResult = JSON.stringify(body(fallback, 1).messages.at(-1)!.content);
  assert.match(
    toolResult,
    /the answer is 42/,
    "the fallback's second call carries the tool result",
  );
  assert.equal(
    body(primary, 1).messages.filter((m) => m.role === "user").length,
    2,
    "the second turn sends the whole conversation to the primary",
  );

  const notices = run.stderr.split("\n").filter((line) => line.includes("this turn continues"));
  assert.deepEqual(notices, [
    "herald: warning: openrouter/gpt-test rejected the key (HTTP 401); this turn continues " +
    "with anthropic/claude-test (fallback 1 of 1)",
  ]);
  assertNoKey(run.stdout + run.stderr);

  const list = await runHerald({ args: ["auth", "list", "--json"], home: herald });
  assert.equal(list.code, 0, list.stderr);
  assertNoKey(list.stdout);
  const key = JSON.parse(list.stdout).providers[0].keys[0];
  assert.deepEqual(
    { source: key.source, key: key.key, state: key.state, status: key.last_error?.status },
    { source: "OPENROUTER_API_KEY", key: "sk-…0001", state: "ok", status: 401 },
  );
});

Deno.test("two 429s in a row move the turn to the next key, which rests the first", async () => {
  await using root = await tempDir();
  await using primary = await startModelServer({
    replies: [
      { status: 429, headers: { "retry-after-ms": "10" } },
      { status: 429, headers: { "retry-after-ms": "10" } },
      { text: "Answered with the second key." },
    ],
  });
  await using fallback = await startModelServer();
  const herald = await home(root.path, primary, fallback, [KEY_ONE, KEY_TWO]);
  const run = await runHerald({ args: ["chat", "-q", "hello"], home: herald });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Answered with the second key\./);
  assert.deepEqual(keysSeen(primary), [KEY_ONE, KEY_ONE, KEY_TWO]);
  assert.equal(fallback.requests.length, 0, "another key of the primary comes before a fallback");
  assert.match(
    run.stderr,
    /herald: warning: openrouter is rate limiting \(HTTP 429\) with key OPENROUTER_API_KEY \(it rests until \d\d:\d\d:\d\d UTC\); trying OPENROUTER_API_KEY_2\n/,
  );
  assertNoKey(run.stdout + run.stderr);

  const list = await runHerald({ args: ["auth", "list", "openrouter", "--json"], home: herald });
  const [first, second] = JSON.parse(list.stdout).providers[0].keys;
  assert.equal(first.state, "cooling_down");
  assert.equal(first.last_error.status, 429);
  assert.ok(Date.parse(first.cooldown_until) > Date.now());
  assert.deepEqual([second.source, second.state, second.last_error], [
    "OPENROUTER_API_KEY_2",
    "ok",
    null,
  ]);

  // A new process knows the first key rests and starts with the second.
  primary.enqueue({ text: "Second key again." });
  const again = await runHerald({ args: ["chat", "-q", "hello again"], home: herald });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(keysSeen(primary).slice(3), [KEY_TWO]);
});

Deno.test("two 429s on the only key continue the same turn on the fallback", async () => {
  await using root = await tempDir();
  await using primary = await startModelServer({
    replies: [
      { status: 429, headers: { "retry-after-ms": "10" } },
      { status: 429, headers: { "retry-after-ms": "10" } },
    ],
  });
  await using fallback = await startModelServer({ replies: [{ text: "Fallback answered." }] });
  const herald = await home(root.path, primary, fallback, [KEY_ONE]);
  const run = await runHerald({ args: ["chat", "-q", "hello"], home: herald });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Fallback answered\./);
  assert.deepEqual(keysSeen(primary), [KEY_ONE, KEY_ONE]);
  assert.deepEqual(keysSeen(fallback), [ANT_KEY]);
  assert.match(
    run.stderr,
    /openrouter\/gpt-test is rate limiting \(HTTP 429\); this turn continues with anthropic\/claude-test/,
  );
});

Deno.test("/model provider:model switches provider and model for the session", async () => {
  await using root = await tempDir();
  await using primary = await startModelServer({ replies: [{ text: "From the primary." }] });
  await using fallback = await startModelServer({ replies: [{ text: "From Anthropic." }] });
  const herald = await home(root.path, primary, fallback, [KEY_ONE]);
  const run = await runHerald({
    args: ["chat"],
    home: herald,
    stdin: "first\n/model anthropic:claude-other\n/model\nsecond\n",
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Model set to anthropic:claude-other for this session\./);
  assert.match(run.stdout, /Model: claude-other \(provider anthropic\)/);
  assert.equal(body(primary, 0).model, "gpt-test");
  assert.equal(body(fallback, 0).model, "claude-other");
  assert.deepEqual(keysSeen(fallback), [ANT_KEY]);
  assert.equal(primary.requests.length, 1);
});
