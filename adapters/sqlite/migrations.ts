/**
 * Numbered schema migrations for the per-profile `state.db`, and the runner
 * that applies them. Applied migrations are recorded in `schema_version`
 * (version, name, applied_at). A migration, once released, is never edited:
 * changes go into a new, higher-numbered one.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { StoreError } from "../../core/errors.ts";
import { immediate, toStoreError } from "./_db.ts";

/** One schema step: applied once, in order, inside an immediate transaction. */
export interface Migration {
  /** 1, 2, 3, ... with no gaps. */
  readonly version: number;
  /** Short snake_case description recorded beside the version. */
  readonly name: string;
  /** The SQL that moves the schema from `version - 1` to `version`. */
  readonly sql: string;
}

/** Name of the trigger that indexes each inserted message; the bulk path swaps it out per batch. */
export const FTS_INSERT_TRIGGER = "messages_fts_insert";

/** The state database's migrations, oldest first. */
export const STATE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions_messages_fts",
    sql: `
      CREATE TABLE sessions (
        id                 TEXT PRIMARY KEY,
        source             TEXT NOT NULL,
        model              TEXT,
        title              TEXT,
        started_at         INTEGER NOT NULL,
        ended_at           INTEGER,
        end_reason         TEXT,
        message_count      INTEGER NOT NULL DEFAULT 0,
        tool_call_count    INTEGER NOT NULL DEFAULT 0,
        api_call_count     INTEGER NOT NULL DEFAULT 0,
        input_tokens       INTEGER NOT NULL DEFAULT 0,
        output_tokens      INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX sessions_started_at ON sessions (started_at);

      CREATE TABLE messages (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        role         TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content      TEXT,
        tool_calls   TEXT,
        tool_call_id TEXT,
        tool_name    TEXT,
        timestamp    INTEGER NOT NULL
      );
      CREATE INDEX messages_session_id ON messages (session_id, id);

      CREATE VIRTUAL TABLE messages_fts USING fts5 (
        content,
        content = 'messages',
        content_rowid = 'id',
        tokenize = 'porter unicode61'
      );
      CREATE TRIGGER ${FTS_INSERT_TRIGGER} AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
      END;
      CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content)
          VALUES ('delete', old.id, old.content);
      END;
      CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content)
          VALUES ('delete', old.id, old.content);
        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
      END;
    `,
  },
  {
    version: 2,
    name: "session_system_prompt",
    sql: `ALTER TABLE sessions ADD COLUMN system_prompt TEXT;`,
  },
  {
    version: 3,
    name: "session_titles_and_sources",
    // Titles become unique per profile, ignoring ASCII case. Sessions stored
    // before share titles made from their first message: every one but the
    // oldest of each group gets its id appended, which no other title has.
    // Searches leave internal sources out, so sources get an index.
    sql: `
      UPDATE sessions SET title = title || ' (' || id || ')'
      WHERE id IN (
        SELECT id FROM (
          SELECT id, row_number() OVER (
            PARTITION BY title COLLATE NOCASE ORDER BY started_at, id
          ) AS n
          FROM sessions WHERE title IS NOT NULL
        ) WHERE n > 1
      );
      CREATE UNIQUE INDEX sessions_title ON sessions (title COLLATE NOCASE)
        WHERE title IS NOT NULL;
      CREATE INDEX sessions_source ON sessions (source);
    `,
  },
  {
    version: 4,
    name: "session_compactions",
    // Context-compression checkpoints: what is sent in place of the stored
    // messages after head_through_id and before tail_from_id. The messages
    // stay. Deleting a message of a checkpoint's head or middle (a rollback)
    // deletes the checkpoint; deleting only its tail leaves it in force.
    sql: `
      CREATE TABLE compactions (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        head_through_id  INTEGER NOT NULL,
        tail_from_id     INTEGER NOT NULL,
        summary          TEXT NOT NULL,
        summarised_count INTEGER NOT NULL,
        created_at       INTEGER NOT NULL
      );
      CREATE INDEX compactions_session_id ON compactions (session_id, id);
      CREATE TRIGGER compactions_message_delete AFTER DELETE ON messages BEGIN
        DELETE FROM compactions
          WHERE session_id = old.session_id AND tail_from_id > old.id;
      END;
    `,
  },
  {
    version: 5,
    name: "session_cwd",
    // The directory a session was started in, so `herald --continue` finds
    // the newest session of a folder. Sessions stored before keep NULL.
    sql: `
      ALTER TABLE sessions ADD COLUMN cwd TEXT;
      CREATE INDEX sessions_cwd ON sessions (cwd, started_at) WHERE cwd IS NOT NULL;
    `,
  },
  {
    version: 6,
    name: "delivery_obligations",
    // The gateway's delivery ledger (adapters/sqlite/delivery_ledger.ts):
    // each reply a chat is owed, recorded before it is sent. The reply, the
    // inbound message's reply context and the platform's message ids are
    // JSON. No foreign key to sessions: deleting a session must not lose a
    // reply still owed to its chat.
    sql: `
      CREATE TABLE delivery_obligations (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        platform    TEXT NOT NULL,
        chat_id     TEXT NOT NULL,
        thread_id   TEXT,
        reply       TEXT NOT NULL,
        context     TEXT,
        session_id  TEXT,
        status      TEXT NOT NULL
          CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
        attempts    INTEGER NOT NULL DEFAULT 0,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        last_error  TEXT,
        message_ids TEXT
      );
      CREATE INDEX delivery_obligations_unfinished
        ON delivery_obligations (platform, created_at)
        WHERE status IN ('pending', 'sending');
      CREATE INDEX delivery_obligations_settled
        ON delivery_obligations (updated_at)
        WHERE status IN ('delivered', 'failed');
    `,
  },
  {
    version: 7,
    name: "gateway_inbound",
    // The gateway's inbound journal (adapters/sqlite/inbound_journal.ts):
    // each allowed message, written before the platform is told it arrived
    // and deleted once it needs nothing more (the delivery ledger deletes it
    // in the transaction that records its answer). The message is JSON.
    sql: `
      CREATE TABLE gateway_inbound (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        platform    TEXT NOT NULL,
        message     TEXT NOT NULL,
        created_at  INTEGER NOT NULL
      );
      CREATE INDEX gateway_inbound_platform ON gateway_inbound (platform, id);
    `,
  },
  {
    version: 8,
    name: "gateway_inbound_keys",
    // Settled messages are kept a day (settled_at) with the platform's id of
    // the message (message_key), so one the platform sends again after a
    // crash is recognised and not answered twice.
    sql: `
      ALTER TABLE gateway_inbound ADD COLUMN message_key TEXT;
      ALTER TABLE gateway_inbound ADD COLUMN settled_at INTEGER;
      CREATE UNIQUE INDEX gateway_inbound_key ON gateway_inbound (message_key)
        WHERE message_key IS NOT NULL;
    `,
  },
];

/** The schema version this build of Herald writes and understands. */
export const STATE_SCHEMA_VERSION: number = STATE_MIGRATIONS[STATE_MIGRATIONS.length - 1].version;

const CREATE_SCHEMA_VERSION = `
  CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`;

/**
 * Returns the highest applied migration number, or 0 for a database that
 * has none (a new file). Reads only.
 */
export function appliedSchemaVersion(db: DatabaseSync): number {
  const table = db
    .prepare(
      "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
    )
    .get();
  if (!table) return 0;
  const row = db.prepare("SELECT coalesce(max(version), 0) AS version FROM schema_version")
    .get() as {
      version: number;
    };
  return row.version;
}

/**
 * Brings the database at `file` up to the newest of `migrations` and
 * returns the resulting version. Pending migrations run in one
 * `BEGIN IMMEDIATE` transaction that re-reads the version after taking the
 * write lock, so two processes opening a new file at once both succeed
 * (the second finds nothing left to do). A database newer than `migrations`
 * is refused with a {@link StoreError} and left untouched.
 *
 * @example
 * ```ts
 * const db = openDatabase("/tmp/state.db");
 * migrate(db, "/tmp/state.db"); // 1
 * ```
 */
export function migrate(
  db: DatabaseSync,
  file: string,
  migrations: readonly Migration[] = STATE_MIGRATIONS,
  now: () => number = Date.now,
): number {
  const latest = migrations.length === 0 ? 0 : migrations[migrations.length - 1].version;
  try {
    const seen = appliedSchemaVersion(db);
    refuseNewer(file, seen, latest);
    if (seen === latest) return seen;
    return immediate(db, () => {
      db.exec(CREATE_SCHEMA_VERSION);
      const current = appliedSchemaVersion(db);
      refuseNewer(file, current, latest);
      const record = db.prepare(
        "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
      );
      for (const migration of migrations) {
        if (migration.version <= current) continue;
        try {
          db.exec(migration.sql);
        } catch (error) {
          throw toStoreError(
            file,
            error,
            `migration ${migration.version} (${migration.name}) failed`,
          );
        }
        record.run(migration.version, migration.name, now());
      }
      return latest;
    });
  } catch (error) {
    throw toStoreError(file, error);
  }
}

function refuseNewer(file: string, found: number, known: number): void {
  if (found <= known) return;
  throw new StoreError(
    file,
    `schema version ${found} is newer than this Herald understands (${known}); ` +
      "upgrade Herald (the database was left untouched)",
  );
}
