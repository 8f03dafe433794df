/**
 * Context-compression checkpoints in state.db: migration 4, storing and
 * reading the newest checkpoint, and checkpoints going away with the
 * messages they point at.
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { NotFoundError } from "../../../core/errors.ts";
import {
  openStateStore,
  STATE_MIGRATIONS,
  STATE_SCHEMA_VERSION,
} from "../../../adapters/sqlite/mod.ts";
import { migrate } from "../../../adapters/sqlite/migrations.ts";
import { tempDir } from "../../_helpers.ts";

const checkpoint = (headThroughId: number, tailFromId: number, summary = "## Goal\nx") => ({
  headThroughId,
  tailFromId,
  summary,
  summarisedCount: tailFromId - headThroughId - 1,
  createdAt: 1_000,
});

function sessionWithMessages(store: ReturnType<typeof openStateStore>, count: number) {
  const session = store.createSession({ source: "cli", startedAt: 1 });
  const ids = store.appendMessages(
    session.id,
    Array.from({ length: count }, (_, i) => ({
      role: i % 2 === 0 ? "user" as const : "assistant" as const,
      content: `message ${i}`,
      timestamp: 1 + i,
    })),
  ).map((message) => message.id);
  return { id: session.id, ids };
}

Deno.test("the newest checkpoint of a session is the one in force, and the messages stay", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    const { id, ids } = sessionWithMessages(store, 10);
    assert.equal(store.latestCompaction(id), undefined);
    store.addCompaction(id, checkpoint(ids[1], ids[5], "first"));
    const second = store.addCompaction(id, checkpoint(ids[1], ids[8], "second"));
    assert.deepEqual(store.latestCompaction(id), second);
    assert.deepEqual(
      { ...second, id: 0 },
      { id: 0, sessionId: id, ...checkpoint(ids[1], ids[8], "second") },
    );
    assert.equal(store.getMessages(id).length, 10);
    assert.throws(() => store.addCompaction("ses_missing", checkpoint(0, 1)), NotFoundError);
  } finally {
    store.close();
  }
});

Deno.test("deleting the messages a checkpoint points at drops it; deleting the session drops all", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const store = openStateStore(path);
  try {
    const { id, ids } = sessionWithMessages(store, 10);
    const older = store.addCompaction(id, checkpoint(ids[1], ids[4]));
    const newer = store.addCompaction(id, checkpoint(ids[1], ids[8]));
    // Dropping exchanges (as /rollback does) from the newer checkpoint's tail on: it still fits.
    const dropFrom = (messageId: number) => {
      const raw = new DatabaseSync(path);
      try {
        raw.prepare("DELETE FROM messages WHERE session_id = ? AND id >= ?").run(id, messageId);
      } finally {
        raw.close();
      }
    };
    dropFrom(ids[8]);
    assert.deepEqual(store.latestCompaction(id), newer);
    // From inside its middle: it goes, and the older one, whose messages all stay, is in force.
    dropFrom(ids[6]);
    assert.deepEqual(store.latestCompaction(id), older);
    assert.ok(store.deleteSession(id));
    const check = new DatabaseSync(path);
    try {
      assert.equal(check.prepare("SELECT count(*) AS n FROM compactions").get()?.n, 0);
    } finally {
      check.close();
    }
  } finally {
    store.close();
  }
});

Deno.test("a database from before migration 4 gains the checkpoint table and keeps its sessions", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const old = new DatabaseSync(path);
  try {
    migrate(old, path, STATE_MIGRATIONS.filter((migration) => migration.version < 4));
    old.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('ses_old', 'cli', 1)").run();
  } finally {
    old.close();
  }
  const store = openStateStore(path);
  try {
    assert.equal(store.schemaVersion(), STATE_SCHEMA_VERSION);
    assert.equal(store.getSession("ses_old")?.source, "cli");
    const [message] = store.appendMessages("ses_old", [{ role: "user", content: "hi" }]);
    store.addCompaction("ses_old", checkpoint(0, message.id));
    assert.equal(store.latestCompaction("ses_old")?.tailFromId, message.id);
  } finally {
    store.close();
  }
  const names = STATE_MIGRATIONS.map((migration) => `${migration.version} ${migration.name}`);
  assert.ok(names.includes("4 session_compactions"), names.join(", "));
});
