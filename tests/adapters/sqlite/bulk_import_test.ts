import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { StoreError } from "../../../core/errors.ts";
import type { ImportMessage, MessageRole } from "../../../core/sessions/store.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { tempDir } from "../../_helpers.ts";

const SESSIONS = 30;
/** More than two batches of the bulk path's 20,000 rows. */
const MESSAGES = 45_000;
const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];

function sessionId(n: number): string {
  return `ses_bulk${String(n).padStart(4, "0")}`;
}

function* generateSessions(count = SESSIONS) {
  for (let n = 0; n < count; n++) {
    yield { id: sessionId(n), source: "import", title: `Imported ${n}`, startedAt: 1_000 + n };
  }
}

/** Message `i`: every 7th mentions "kiwifruit"; every 4th is an assistant turn with i % 3 tool calls. */
function messageAt(i: number, session = sessionId(i % SESSIONS)): ImportMessage {
  const role: MessageRole = i % 4 === 3 ? "assistant" : "user";
  const words = [WORDS[i % WORDS.length], WORDS[(i * 7) % WORDS.length], `n${i}`];
  if (i % 7 === 0) words.push("kiwifruit");
  return {
    sessionId: session,
    role,
    content: words.join(" "),
    toolCalls: role === "assistant" && i % 3 > 0
      ? Array.from({ length: i % 3 }, (_, k) => ({ id: `c${i}_${k}` }))
      : null,
    timestamp: 2_000 + i,
  };
}

function* generateMessages(count = MESSAGES) {
  for (let i = 0; i < count; i++) yield messageAt(i);
}

/** `count` messages, of which message `bad` names a session that does not exist. */
function* withUnknownSessionAt(bad: number, count: number) {
  for (let i = 0; i < count; i++) yield i === bad ? messageAt(i, "ses_missing") : messageAt(i);
}

/** An input that breaks after its first message, like a truncated export file. */
function* failingAfterFirst() {
  yield messageAt(0);
  throw new Error("source file truncated");
}

function countOf(raw: DatabaseSync, sql: string, ...params: string[]): number {
  return raw.prepare(sql).get(...params)?.n as number;
}

Deno.test("bulk import writes every row across batches with correct counters and a consistent index", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const store = openStateStore(path);
  const raw = new DatabaseSync(path);
  try {
    assert.deepEqual(store.bulkImport(generateSessions(), generateMessages()), {
      sessions: SESSIONS,
      messages: MESSAGES,
    });

    const expected = new Map<string, { messages: number; toolCalls: number }>();
    for (let i = 0; i < MESSAGES; i++) {
      const message = messageAt(i);
      const entry = expected.get(message.sessionId) ?? { messages: 0, toolCalls: 0 };
      entry.messages += 1;
      entry.toolCalls += message.toolCalls?.length ?? 0;
      expected.set(message.sessionId, entry);
    }
    const sessions = store.listSessions();
    assert.equal(sessions.length, SESSIONS);
    for (const session of sessions) {
      assert.deepEqual(
        { messages: session.messageCount, toolCalls: session.toolCallCount },
        expected.get(session.id),
        `counters of ${session.id}`,
      );
    }
    assert.equal(countOf(raw, "SELECT count(*) AS n FROM messages"), MESSAGES);
    assert.deepEqual(store.getMessages(sessionId(3), { limit: 2 }).map((m) => m.content), [
      messageAt(3).content,
      messageAt(3 + SESSIONS).content,
    ]);

    assert.deepEqual(store.checkIntegrity(), ["ok"]);
    const matched = countOf(
      raw,
      "SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'kiwifruit'",
    );
    const liked = countOf(
      raw,
      "SELECT count(*) AS n FROM messages WHERE content LIKE '%kiwifruit%'",
    );
    assert.equal(matched, Math.ceil(MESSAGES / 7));
    assert.equal(matched, liked);
    assert.equal(
      countOf(raw, "SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH 'n44999'"),
      1,
    );

    assert.equal(
      countOf(raw, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'messages_fts_insert'"),
      1,
      "the per-row insert trigger is back",
    );
    const [after] = store.appendMessages(sessionId(0), [{ role: "user", content: "papaya" }]);
    assert.deepEqual(
      raw.prepare("SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH 'papaya'").all()
        .map((row) => row.id),
      [after.id],
    );
  } finally {
    raw.close();
    store.close();
  }
});

Deno.test("bulk import adds messages to sessions that already exist", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    const { id } = store.createSession({ source: "cli" });
    store.appendMessages(id, [{ role: "user", content: "first" }]);
    const counts = store.bulkImport([], [
      { sessionId: id, role: "assistant", content: null, toolCalls: [{ id: "a" }, { id: "b" }] },
      { sessionId: id, role: "tool", content: "result", toolCallId: "a" },
    ]);
    assert.deepEqual(counts, { sessions: 0, messages: 2 });
    const session = store.getSession(id)!;
    assert.equal(session.messageCount, 3);
    assert.equal(session.toolCallCount, 2);
    assert.deepEqual(store.getMessages(id).map((m) => m.content), ["first", null, "result"]);
    assert.deepEqual(store.checkIntegrity(), ["ok"]);
  } finally {
    store.close();
  }
});

Deno.test("a failing bulk batch is rolled back, reported as StoreError, and keeps earlier batches", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const store = openStateStore(path);
  const raw = new DatabaseSync(path);
  try {
    assert.throws(
      () => store.bulkImport(generateSessions(), withUnknownSessionAt(25_000, 30_000)),
      (error: unknown) =>
        error instanceof StoreError &&
        error.message.includes('message #25001 of session "ses_missing"') &&
        error.message.includes("20000 messages before it were kept") &&
        /does not exist/.test(error.message),
    );

    assert.equal(countOf(raw, "SELECT count(*) AS n FROM messages"), 20_000);
    const total = store.listSessions().reduce((sum, s) => sum + s.messageCount, 0);
    assert.equal(total, 20_000, "counters cover only the committed batch");
    assert.equal(
      countOf(raw, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'messages_fts_insert'"),
      1,
      "the per-row insert trigger survives the rollback",
    );
    assert.deepEqual(store.checkIntegrity(), ["ok"]);
  } finally {
    raw.close();
    store.close();
  }
});

Deno.test("bulk import reports an error thrown by the caller's input as StoreError", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    assert.throws(
      () => store.bulkImport(generateSessions(1), failingAfterFirst()),
      (error: unknown) =>
        error instanceof StoreError &&
        /reading message #2 from the input/.test(error.message) &&
        /source file truncated/.test(error.message),
    );
    assert.equal(store.getSession(sessionId(0))!.messageCount, 0);
    assert.deepEqual(store.checkIntegrity(), ["ok"]);
  } finally {
    store.close();
  }
});
