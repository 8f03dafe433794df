import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { StoreError } from "../../../core/errors.ts";
import {
  newSessionId,
  openStateStore,
  STATE_MIGRATIONS,
  STATE_SCHEMA_VERSION,
} from "../../../adapters/sqlite/mod.ts";
import { migrate, type Migration } from "../../../adapters/sqlite/migrations.ts";
import { tempDir } from "../../_helpers.ts";

function rowsOf(path: string, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(path);
  try {
    return db.prepare(sql).all().map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

Deno.test("a new state database gets every migration once, recorded in schema_version", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const before = Date.now();

  const store = openStateStore(path);
  assert.equal(store.schemaVersion(), STATE_SCHEMA_VERSION);
  store.close();
  const first = rowsOf(
    path,
    "SELECT version, name, applied_at FROM schema_version ORDER BY version",
  );
  assert.deepEqual(
    first.map(({ version, name }) => ({ version, name })),
    STATE_MIGRATIONS.map(({ version, name }) => ({ version, name })),
  );
  for (const row of first) assert.ok((row.applied_at as number) >= before);

  const again = openStateStore(path);
  assert.equal(again.schemaVersion(), STATE_SCHEMA_VERSION);
  again.close();
  assert.deepEqual(
    rowsOf(path, "SELECT version, name, applied_at FROM schema_version ORDER BY version"),
    first,
  );
});

Deno.test("the state database is in WAL mode with the session tables, index and triggers", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  openStateStore(path).close();

  assert.deepEqual(rowsOf(path, "PRAGMA journal_mode"), [{ journal_mode: "wal" }]);
  const names = rowsOf(path, "SELECT type, name FROM sqlite_master ORDER BY type, name")
    .map(({ type, name }) => `${type}:${name}`);
  for (
    const expected of [
      "table:sessions",
      "table:messages",
      "table:messages_fts",
      "table:schema_version",
      "index:sessions_started_at",
      "index:messages_session_id",
      "trigger:messages_fts_insert",
      "trigger:messages_fts_delete",
      "trigger:messages_fts_update",
    ]
  ) {
    assert.ok(names.includes(expected), `${expected} missing from ${names.join(", ")}`);
  }
  const [{ sql }] = rowsOf(path, "SELECT sql FROM sqlite_master WHERE name = 'messages_fts'");
  assert.match(String(sql), /content\s*=\s*'messages'/);
  assert.match(String(sql), /content_rowid\s*=\s*'id'/);
  assert.match(String(sql), /tokenize\s*=\s*'porter unicode61'/);
});

Deno.test("migrate applies only the migrations above the recorded version", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/plain.db`;
  const one: Migration = { version: 1, name: "first", sql: "CREATE TABLE a (x INTEGER)" };
  const two: Migration = { version: 2, name: "second", sql: "CREATE TABLE b (y INTEGER)" };
  const db = new DatabaseSync(path);
  try {
    assert.equal(migrate(db, path, [one], () => 1000), 1);
    assert.equal(migrate(db, path, [one, two], () => 2000), 2);
    assert.equal(migrate(db, path, [one, two], () => 3000), 2);
    assert.deepEqual(
      db.prepare("SELECT version, name, applied_at FROM schema_version ORDER BY version").all()
        .map((row) => ({ ...row })),
      [
        { version: 1, name: "first", applied_at: 1000 },
        { version: 2, name: "second", applied_at: 2000 },
      ],
    );
  } finally {
    db.close();
  }
});

Deno.test("a failing migration is rolled back and reported with its number", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/plain.db`;
  const broken: Migration = {
    version: 1,
    name: "broken",
    sql: "CREATE TABLE a (x INTEGER); CREATE TABLE a (x INTEGER);",
  };
  const db = new DatabaseSync(path);
  try {
    assert.throws(
      () => migrate(db, path, [broken]),
      (error: unknown) =>
        error instanceof StoreError && /migration 1 \(broken\) failed/.test(error.message),
    );
    assert.equal(db.prepare("SELECT count(*) AS n FROM sqlite_master").get()?.n, 0);
  } finally {
    db.close();
  }
});

Deno.test("a database with a newer schema version is refused and left untouched", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  openStateStore(path).close();
  const db = new DatabaseSync(path);
  db.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (?, 'future', 1)")
    .run(STATE_SCHEMA_VERSION + 1);
  db.close();
  const bytes = await Deno.readFile(path);

  assert.throws(
    () => openStateStore(path),
    (error: unknown) =>
      error instanceof StoreError &&
      error.file === path &&
      error.message.includes(`schema version ${STATE_SCHEMA_VERSION + 1} is newer`) &&
      /upgrade Herald/.test(error.message),
  );
  assert.deepEqual(await Deno.readFile(path), bytes);
});

Deno.test("a file that is not a database gives a StoreError naming the file", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const text = "these are notes, not a database\n".repeat(20);
  await Deno.writeTextFile(path, text);

  assert.throws(
    () => openStateStore(path),
    (error: unknown) =>
      error instanceof StoreError &&
      error.message.includes(path) &&
      /not a SQLite database/.test(error.message),
  );
  assert.equal(await Deno.readTextFile(path), text);
});

Deno.test("a missing folder gives a StoreError and is not created", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/no-such-profile/state.db`;

  assert.throws(
    () => openStateStore(path),
    (error: unknown) => error instanceof StoreError && /folder exists/.test(error.message),
  );
  await assert.rejects(Deno.stat(`${dir.path}/no-such-profile`), Deno.errors.NotFound);
});

Deno.test("session ids carry the ses_ prefix, sort by time and differ within a millisecond", () => {
  const early = newSessionId(1_700_000_000_000);
  const late = newSessionId(1_700_000_000_001);
  assert.match(early, /^ses_[0-9a-f]{12}[0-9a-f]{8}$/);
  assert.ok(early < late);
  const sameMs = new Set(Array.from({ length: 1000 }, () => newSessionId(1_700_000_000_000)));
  assert.equal(sameMs.size, 1000);
  assert.throws(() => newSessionId(-1), RangeError);
});
