import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { NotFoundError, StoreError } from "../../../core/errors.ts";
import type { SessionStore } from "../../../core/sessions/store.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { tempDir } from "../../_helpers.ts";

/** A store in its own temp dir, plus a raw connection for looking behind it. */
async function openTemp(): Promise<
  { store: SessionStore; path: string; raw: DatabaseSync } & AsyncDisposable
> {
  const dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const store = openStateStore(path);
  const raw = new DatabaseSync(path);
  return {
    store,
    path,
    raw,
    async [Symbol.asyncDispose]() {
      raw.close();
      store.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

function ftsIds(raw: DatabaseSync, query: string): number[] {
  return raw.prepare(
    "SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid",
  )
    .all(query).map((row) => row.id as number);
}

const ZERO = {
  messageCount: 0,
  toolCallCount: 0,
  apiCallCount: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

Deno.test("a session is created, read, updated and ended", async () => {
  await using t = await openTemp();
  const created = t.store.createSession({
    source: "cli",
    model: "m-1",
    startedAt: 1_700_000_000_000,
  });
  assert.match(created.id, /^ses_018bcfe56800[0-9a-f]{8}$/);
  assert.deepEqual(created, {
    id: created.id,
    source: "cli",
    model: "m-1",
    title: null,
    cwd: null,
    startedAt: 1_700_000_000_000,
    endedAt: null,
    endReason: null,
    ...ZERO,
  });
  assert.deepEqual(t.store.getSession(created.id), created);

  const titled = t.store.updateSession(created.id, { title: "Plan the trip" });
  assert.equal(titled.title, "Plan the trip");
  assert.equal(titled.model, "m-1");
  const remodelled = t.store.updateSession(created.id, { model: null });
  assert.equal(remodelled.title, "Plan the trip");
  assert.equal(remodelled.model, null);
  assert.deepEqual(t.store.updateSession(created.id, { title: undefined }), remodelled);

  const ended = t.store.endSession(created.id, "user_exit", 1_700_000_005_000);
  assert.equal(ended.endedAt, 1_700_000_005_000);
  assert.equal(ended.endReason, "user_exit");
  assert.deepEqual(t.store.getSession(created.id), ended);
});

Deno.test("a session may be created with an explicit id, but only once", async () => {
  await using t = await openTemp();
  const session = t.store.createSession({ id: "ses_imported", source: "import", title: "Old" });
  assert.equal(session.id, "ses_imported");
  assert.equal(session.title, "Old");
  assert.throws(
    () => t.store.createSession({ id: "ses_imported", source: "import" }),
    (error: unknown) =>
      error instanceof StoreError && /"ses_imported" already exists/.test(error.message),
  );
  assert.throws(() => t.store.createSession({ id: "", source: "cli" }), TypeError);
  assert.throws(() => t.store.createSession({ source: "" }), TypeError);
});

Deno.test("sessions are listed newest first, filtered by source and paged", async () => {
  await using t = await openTemp();
  const ids = [3, 1, 4, 2].map((n) =>
    t.store.createSession({
      source: n % 2 === 0 ? "telegram" : "cli",
      startedAt: 1_700_000_000_000 + n,
    }).id
  );
  const [third, first, fourth, second] = ids;

  assert.deepEqual(t.store.listSessions().map((s) => s.id), [fourth, third, second, first]);
  assert.deepEqual(t.store.listSessions({ source: "cli" }).map((s) => s.id), [third, first]);
  assert.deepEqual(t.store.listSessions({ limit: 2, offset: 1 }).map((s) => s.id), [third, second]);
  assert.deepEqual(t.store.listSessions({ limit: 0 }), []);
  assert.throws(() => t.store.listSessions({ limit: -1 }), RangeError);
});

Deno.test("an unknown session id is NotFoundError for writes and undefined for reads", async () => {
  await using t = await openTemp();
  assert.equal(t.store.getSession("ses_nope"), undefined);
  assert.deepEqual(t.store.getMessages("ses_nope"), []);
  assert.equal(t.store.deleteSession("ses_nope"), false);
  for (
    const write of [
      () => t.store.updateSession("ses_nope", { title: "x" }),
      () => t.store.endSession("ses_nope", "done"),
      () => t.store.addUsage("ses_nope", { apiCallCount: 1 }),
      () => t.store.appendMessages("ses_nope", [{ role: "user", content: "hi" }]),
    ]
  ) {
    assert.throws(
      write,
      (error: unknown) => error instanceof NotFoundError && /"ses_nope"/.test(error.message),
    );
  }
  assert.equal(t.raw.prepare("SELECT count(*) AS n FROM messages").get()?.n, 0);
});

Deno.test("appending messages stores them and bumps message and tool-call counters", async () => {
  await using t = await openTemp();
  const { id } = t.store.createSession({ source: "cli" });
  const call = (n: number) => ({
    id: `call_${n}`,
    type: "function",
    function: { name: "read_file" },
  });

  const stored = t.store.appendMessages(id, [
    { role: "system", content: "You are helpful.", timestamp: 10 },
    { role: "user", content: "Read two files", timestamp: 11 },
    { role: "assistant", content: null, toolCalls: [call(1), call(2)], timestamp: 12 },
    {
      role: "tool",
      content: "file one",
      toolCallId: "call_1",
      toolName: "read_file",
      timestamp: 13,
    },
    {
      role: "tool",
      content: "file two",
      toolCallId: "call_2",
      toolName: "read_file",
      timestamp: 14,
    },
  ]);
  t.store.appendMessages(id, [
    { role: "assistant", content: "Done.", toolCalls: [call(3)] },
    { role: "user", content: "a user turn's toolCalls are not counted", toolCalls: [call(4)] },
  ]);

  assert.equal(stored.length, 5);
  assert.ok(stored.every((m, i) => i === 0 || m.id > stored[i - 1].id));
  assert.deepEqual(stored[2], {
    id: stored[2].id,
    sessionId: id,
    role: "assistant",
    content: null,
    toolCalls: [call(1), call(2)],
    toolCallId: null,
    toolName: null,
    timestamp: 12,
  });
  assert.deepEqual(t.store.getMessages(id).slice(0, 5), stored);
  const session = t.store.getSession(id)!;
  assert.equal(session.messageCount, 7);
  assert.equal(session.toolCallCount, 3);
});

Deno.test("a message batch with an invalid message writes nothing", async () => {
  await using t = await openTemp();
  const { id } = t.store.createSession({ source: "cli" });
  assert.throws(
    () =>
      t.store.appendMessages(id, [
        { role: "user", content: "fine" },
        // deno-lint-ignore no-explicit-any
        { role: "robot" as any, content: "not a role" },
      ]),
    TypeError,
  );
  assert.deepEqual(t.store.getMessages(id), []);
  assert.equal(t.store.getSession(id)!.messageCount, 0);
});

Deno.test("usage is added to the session counters", async () => {
  await using t = await openTemp();
  const { id } = t.store.createSession({ source: "cli" });
  t.store.addUsage(id, { apiCallCount: 1, inputTokens: 1200, outputTokens: 80 });
  t.store.addUsage(id, {
    apiCallCount: 1,
    inputTokens: 1500,
    cacheReadTokens: 1000,
    cacheWriteTokens: 7,
  });
  const session = t.store.getSession(id)!;
  assert.deepEqual(
    {
      apiCallCount: session.apiCallCount,
      inputTokens: session.inputTokens,
      outputTokens: session.outputTokens,
      cacheReadTokens: session.cacheReadTokens,
      cacheWriteTokens: session.cacheWriteTokens,
    },
    {
      apiCallCount: 2,
      inputTokens: 2700,
      outputTokens: 80,
      cacheReadTokens: 1000,
      cacheWriteTokens: 7,
    },
  );
  assert.throws(() => t.store.addUsage(id, { inputTokens: 1.5 }), RangeError);
});

Deno.test("message content round-trips byte for byte", async () => {
  await using t = await openTemp();
  const { id } = t.store.createSession({ source: "cli" });
  const contents = [
    "",
    " leading and trailing spaces   ",
    "trailing tab\t",
    "windows\r\nline\r\nendings\r\n",
    "old mac\rline",
    "\n\n blank lines around \n\n",
    "naïve café, Ελληνικά, русский, 日本語, 한국어, עברית, العربية",
    "emoji 😀👩🏽‍💻🏳️‍🌈 and a ZWJ \u200d and BOM \ufeff",
    "combining e\u0301 vs é, NBSP\u00a0here",
    "quotes ' \" ` and backslashes \\ \\n (literal)",
    "a NUL \u0000 in the middle",
    "x".repeat(200_000),
  ];
  t.store.appendMessages(id, contents.map((content) => ({ role: "user", content })));

  assert.deepEqual(t.store.getMessages(id).map((m) => m.content), contents);
  const bytes = t.raw.prepare("SELECT length(CAST(content AS BLOB)) AS n FROM messages ORDER BY id")
    .all().map((row) => row.n);
  assert.deepEqual(bytes, contents.map((c) => new TextEncoder().encode(c).length));
});

Deno.test("messages are paged with afterId and limit", async () => {
  await using t = await openTemp();
  const { id } = t.store.createSession({ source: "cli" });
  const other = t.store.createSession({ source: "cli" });
  const stored = t.store.appendMessages(
    id,
    Array.from({ length: 5 }, (_, i) => ({ role: "user" as const, content: `m${i}` })),
  );
  t.store.appendMessages(other.id, [{ role: "user", content: "elsewhere" }]);

  assert.deepEqual(t.store.getMessages(id, { limit: 2 }).map((m) => m.content), ["m0", "m1"]);
  assert.deepEqual(
    t.store.getMessages(id, { afterId: stored[1].id, limit: 2 }).map((m) => m.content),
    ["m2", "m3"],
  );
  assert.deepEqual(t.store.getMessages(id, { afterId: stored[4].id }), []);
});

Deno.test("the full-text index finds appended content and forgets updated and deleted content", async () => {
  await using t = await openTemp();
  const { id } = t.store.createSession({ source: "cli" });
  const [fox, dog, tools] = t.store.appendMessages(id, [
    { role: "user", content: "The quick brown fox jumps over the lazy dog" },
    { role: "assistant", content: "Dogs are jumping around the garden" },
    { role: "assistant", content: null, toolCalls: [{ id: "c1" }] },
  ]);

  assert.deepEqual(ftsIds(t.raw, "fox"), [fox.id]);
  assert.deepEqual(ftsIds(t.raw, "jump"), [fox.id, dog.id], "porter stems jumps and jumping");
  assert.deepEqual(ftsIds(t.raw, "dog"), [fox.id, dog.id]);
  assert.equal(tools.content, null);

  t.raw.exec("BEGIN IMMEDIATE");
  t.raw.prepare("UPDATE messages SET content = 'A slow green turtle' WHERE id = ?").run(fox.id);
  t.raw.exec("COMMIT");
  assert.deepEqual(ftsIds(t.raw, "fox"), []);
  assert.deepEqual(ftsIds(t.raw, "turtle"), [fox.id]);
  assert.deepEqual(ftsIds(t.raw, "dog"), [dog.id]);

  assert.equal(t.store.deleteSession(id), true);
  assert.deepEqual(ftsIds(t.raw, "turtle"), []);
  assert.deepEqual(ftsIds(t.raw, "garden"), []);
  assert.deepEqual(t.store.checkIntegrity(), ["ok"]);
});

Deno.test("deleting a session removes its messages and leaves other sessions alone", async () => {
  await using t = await openTemp();
  const gone = t.store.createSession({ source: "cli" });
  const kept = t.store.createSession({ source: "cli" });
  t.store.appendMessages(gone.id, [{ role: "user", content: "ephemeral words" }]);
  t.store.appendMessages(kept.id, [{ role: "user", content: "durable words" }]);

  assert.equal(t.store.deleteSession(gone.id), true);
  assert.equal(t.store.deleteSession(gone.id), false);
  assert.equal(t.store.getSession(gone.id), undefined);
  assert.deepEqual(t.store.getMessages(gone.id), []);
  assert.equal(
    t.raw.prepare("SELECT count(*) AS n FROM messages WHERE session_id = ?").get(gone.id)?.n,
    0,
  );
  assert.deepEqual(t.store.getMessages(kept.id).map((m) => m.content), ["durable words"]);
  assert.equal(ftsIds(t.raw, "ephemeral").length, 0);
  assert.equal(ftsIds(t.raw, "words").length, 1);
  assert.deepEqual(t.store.checkIntegrity(), ["ok"]);
});

Deno.test("checkIntegrity reports a full-text index that disagrees with the table", async () => {
  await using t = await openTemp();
  const { id } = t.store.createSession({ source: "cli" });
  t.store.appendMessages(id, [{ role: "user", content: "honest content" }]);
  assert.deepEqual(t.store.checkIntegrity(), ["ok"]);

  t.raw.exec("INSERT INTO messages_fts (rowid, content) VALUES (424242, 'ghost entry')");
  const problems = t.store.checkIntegrity();
  assert.notDeepEqual(problems, ["ok"]);
  assert.match(problems.join("\n"), /messages_fts/);
});

Deno.test("a closed store refuses further calls with StoreError and closes only once", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  store.close();
  store.close();
  assert.throws(
    () => store.createSession({ source: "cli" }),
    (error: unknown) => error instanceof StoreError && /closed/.test(error.message),
  );
  assert.throws(() => store.getSession("ses_x"), StoreError);
  assert.throws(() => store.checkIntegrity(), StoreError);
});
