/**
 * `herald sessions ... --json` and `/api/sessions...` print the same views
 * (core/sessions/views.ts): the same objects for the same data, snake_case keys.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { tempDir } from "../_helpers.ts";
import { testApp } from "../server/_app.ts";

type Json = Record<string, unknown>;

async function heraldJson(home: string, ...argv: string[]): Promise<unknown> {
  const io = captureOutput();
  const code = await run([...argv, "--json"], { io, env: { HERALD_HOME: home } });
  assert.equal(code, 0, io.stderr);
  return JSON.parse(io.stdout);
}

/** Every key path that is not snake_case, skipping stored tool-call payloads. */
function camelKeys(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => camelKeys(item, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(/^[a-z][a-z0-9_]*$/.test(key) ? [] : [`${path}.${key}`]),
    ...(key === "tool_calls" ? [] : camelKeys(child, `${path}.${key}`)),
  ]);
}

async function seededHome(root: string): Promise<{ chat: string; groceries: string }> {
  const io = captureOutput();
  assert.equal(await run(["config", "path"], { io, env: { HERALD_HOME: root } }), 0, io.stderr);
  await Deno.mkdir(root, { recursive: true });
  const store = openStateStore(join(root, "state.db"));
  try {
    const chat = store.createSession({
      source: "cli",
      model: "test-model",
      title: "Deploy the flamingo",
      startedAt: 1_000,
    }).id;
    store.appendMessages(chat, [
      { role: "user", content: `how do we deploy the flamingo service?  ${"x".repeat(200)}` },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "call_1", name: "terminal", arguments: '{"command":"ls"}' }],
      },
      { role: "tool", content: '{"exit_code":0}', toolCallId: "call_1", toolName: "terminal" },
      { role: "assistant", content: "With the release script.  " },
    ]);
    store.addUsage(chat, { apiCallCount: 2, inputTokens: 40, outputTokens: 12 });
    store.endSession(chat, "user_exit", 5_000);
    const groceries = store.createSession({ source: "telegram", title: null, startedAt: 2_000 }).id;
    store.appendMessages(groceries, [{ role: "user", content: "milk, eggs, flamingo food" }]);
    return { chat, groceries };
  } finally {
    store.close();
  }
}

Deno.test("sessions list, show, export and search --json print the same objects as the API", async () => {
  await using home = await tempDir();
  const { chat, groceries } = await seededHome(home.path);
  const { request } = testApp(home.path);
  const api = async (path: string): Promise<Json> => {
    const response = await request(path);
    assert.equal(response.status, 200, path);
    return await response.json();
  };

  const list = await heraldJson(home.path, "sessions", "list", "--all") as Json[];
  assert.deepEqual(list, (await api("/api/sessions?all=true")).sessions);
  assert.deepEqual(list.map((s) => s.id), [groceries, chat]);
  assert.deepEqual(list.map((s) => s.answered), [false, true]);
  const answered = await heraldJson(home.path, "sessions", "list") as Json[];
  assert.deepEqual(answered, (await api("/api/sessions")).sessions);
  assert.deepEqual(answered, [list[1]], "a session the model never answered is hidden by default");
  const summary = list[1];
  assert.equal(summary.started_at, 1_000);
  assert.equal(summary.ended_at, 5_000);
  assert.equal(summary.end_reason, "user_exit");
  assert.equal(summary.message_count, 4);
  assert.equal(summary.tool_call_count, 1);
  assert.equal(summary.api_call_count, 2);
  assert.equal(summary.input_tokens, 40);
  assert.equal((summary.preview as string).length, 160);
  assert.equal("startedAt" in summary, false);

  const shown = await heraldJson(home.path, "sessions", "show", chat) as Json;
  assert.deepEqual(Object.keys(shown), ["session", "messages"]);
  assert.deepEqual(shown.session, (await api(`/api/sessions/${chat}`)).session);
  assert.deepEqual(shown.session, summary);
  assert.deepEqual(
    shown.messages,
    (await api(`/api/sessions/${chat}/messages?limit=500`)).messages,
  );
  const messages = shown.messages as Json[];
  assert.deepEqual(messages[2], {
    id: messages[2].id,
    role: "tool",
    content: '{"exit_code":0}',
    tool_calls: null,
    tool_call_id: "call_1",
    tool_name: "terminal",
    timestamp: messages[2].timestamp,
  });

  const exported = await heraldJson(home.path, "sessions", "export", chat);
  assert.deepEqual(exported, { format: "herald.session.v1", ...shown });

  const found = await heraldJson(home.path, "sessions", "search", "flamingo", "--limit", "5");
  const { profile, ...searched } = await api("/api/sessions/search?q=flamingo&limit=5");
  assert.equal(profile, "default");
  assert.deepEqual(found, searched);
  const hits = searched.results as Json[];
  assert.deepEqual(hits.map((hit) => hit.session_id).sort(), [chat, groceries].sort());
  assert.equal(hits.find((hit) => hit.session_id === chat)!.started_at, "1970-01-01T00:00:01.000Z");

  assert.deepEqual(camelKeys({ list, shown, exported, found }), []);
});

Deno.test("reading the sessions of a profile without a database prints none and creates none", async () => {
  await using home = await tempDir();
  assert.deepEqual(await heraldJson(home.path, "sessions", "list"), []);
  const found = await heraldJson(home.path, "sessions", "search", "flamingo");
  assert.deepEqual(found, { shape: "discovery", query: "flamingo", count: 0, results: [] });
  const io = captureOutput();
  const code = await run(["sessions", "delete", "ses_nope"], {
    io,
    env: { HERALD_HOME: home.path },
  });
  assert.equal(code, 2);
  assert.match(io.stderr, /^herald: Session "ses_nope" not found in profile "default"/);
  await assert.rejects(Deno.stat(join(home.path, "state.db")), Deno.errors.NotFound);
});
