/**
 * The kanban database's migrations (recorded in its `schema_version`
 * table) and the row shapes read from it. Private to adapters/kanban.
 *
 * @module
 */

import type { Migration } from "../sqlite/mod.ts";
import { TASK_STATUSES } from "../../core/kanban/mod.ts";

const STATUS_LIST = TASK_STATUSES.map((status) => `'${status}'`).join(", ");

/** The board database's migrations, oldest first. Released ones are never edited. */
export const KANBAN_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "boards_tasks_links_comments_events_runs",
    sql: `
      CREATE TABLE boards (
        slug       TEXT PRIMARY KEY,
        name       TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        removed_at INTEGER
      );
      INSERT INTO boards (slug, name, created_at) VALUES ('default', 'Default', 0);

      CREATE TABLE tasks (
        id                   TEXT PRIMARY KEY,
        board                TEXT NOT NULL DEFAULT 'default',
        title                TEXT NOT NULL CHECK (title <> ''),
        body                 TEXT NOT NULL DEFAULT '',
        assignee             TEXT NOT NULL CHECK (assignee <> ''),
        status               TEXT NOT NULL CHECK (status IN (${STATUS_LIST})),
        priority             INTEGER NOT NULL DEFAULT 0,
        created_by           TEXT,
        created_at           INTEGER NOT NULL,
        updated_at           INTEGER NOT NULL,
        started_at           INTEGER,
        completed_at         INTEGER,
        idempotency_key      TEXT,
        max_retries          INTEGER,
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        claim_lock           TEXT,
        claim_expires        INTEGER,
        worker_pid           INTEGER,
        heartbeat_at         INTEGER,
        result               TEXT
      );
      CREATE INDEX tasks_board_status ON tasks (board, status, priority);
      CREATE INDEX tasks_assignee_status ON tasks (assignee, status);
      CREATE INDEX tasks_idempotency ON tasks (board, idempotency_key)
        WHERE idempotency_key IS NOT NULL;

      CREATE TABLE task_links (
        parent_id TEXT NOT NULL,
        child_id  TEXT NOT NULL,
        PRIMARY KEY (parent_id, child_id)
      ) WITHOUT ROWID;
      CREATE INDEX task_links_child ON task_links (child_id, parent_id);

      CREATE TABLE task_comments (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id    TEXT NOT NULL,
        author     TEXT NOT NULL,
        body       TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX task_comments_task ON task_comments (task_id, id);

      CREATE TABLE task_events (
        seq     INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id TEXT NOT NULL,
        kind    TEXT NOT NULL,
        payload TEXT,
        at      INTEGER NOT NULL
      );
      CREATE INDEX task_events_task ON task_events (task_id, seq);
      CREATE TRIGGER task_events_no_update BEFORE UPDATE ON task_events BEGIN
        SELECT RAISE(ABORT, 'task events are append-only');
      END;
      CREATE TRIGGER task_events_no_delete BEFORE DELETE ON task_events BEGIN
        SELECT RAISE(ABORT, 'task events are append-only');
      END;

      CREATE TABLE task_runs (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id    TEXT NOT NULL,
        claim_lock TEXT,
        worker_pid INTEGER,
        started_at INTEGER NOT NULL,
        ended_at   INTEGER,
        outcome    TEXT,
        error      TEXT
      );
      CREATE INDEX task_runs_task ON task_runs (task_id, id);
    `,
  },
  {
    version: 2,
    name: "dispatcher_block_kinds_subscriptions",
    sql: `
      ALTER TABLE tasks ADD COLUMN block_kind TEXT;
      ALTER TABLE tasks ADD COLUMN block_recurrences INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tasks ADD COLUMN last_failure_error TEXT;
      CREATE INDEX tasks_status ON tasks (status, priority DESC, created_at);

      CREATE TABLE task_subscriptions (
        task_id    TEXT NOT NULL,
        platform   TEXT NOT NULL,
        chat_id    TEXT NOT NULL,
        thread_id  TEXT NOT NULL DEFAULT '',
        profile    TEXT NOT NULL,
        last_seq   INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (task_id, platform, chat_id, thread_id)
      ) WITHOUT ROWID;
      CREATE INDEX task_subscriptions_profile ON task_subscriptions (profile);
    `,
  },
];

/** The task columns, in the order of core's TaskRecord. */
export const TASK_COLUMNS = "id, board, title, body, assignee, status, priority, created_by, " +
  "created_at, updated_at, started_at, completed_at, idempotency_key, max_retries, " +
  "consecutive_failures, claim_lock, claim_expires, worker_pid, heartbeat_at, result, " +
  "block_kind, block_recurrences, last_failure_error";

/** A row of `task_events` as stored (payload is JSON text). */
export interface EventRow {
  seq: number;
  task_id: string;
  kind: string;
  payload: string | null;
  at: number;
}

/** Board names shown by default: `atm10-server` reads `Atm10 Server`. */
export function boardName(slug: string): string {
  return slug.split(/[-_]+/).filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1)).join(" ");
}

/** A row as a plain object (node:sqlite returns rows without a prototype). */
export function plain<T>(row: unknown): T {
  return { ...(row as Record<string, unknown>) } as T;
}

/** Rows as plain objects. */
export function plainAll<T>(rows: readonly unknown[]): T[] {
  return rows.map((row) => plain<T>(row));
}
