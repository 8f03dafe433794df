/**
 * Private bulk loader behind `SessionStore.bulkImport`. Rows stream from
 * the caller's iterables in batches; each batch is its own immediate
 * transaction, so memory stays flat however many rows arrive.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import type { ImportMessage, NewSession } from "../../core/sessions/store.ts";
import { immediate, toStoreError } from "./_db.ts";
import {
  checkNewSession,
  freeTitle,
  messageValues,
  SELECT_BY_TITLE,
  toolCallsIn,
} from "./_rows.ts";
import { FTS_INSERT_TRIGGER } from "./migrations.ts";

/** Rows per transaction on the bulk path. */
export const BULK_BATCH_SIZE = 20_000;

/** Counts of rows written by a bulk import. */
export interface BulkCounts {
  sessions: number;
  messages: number;
}

/**
 * Writes `sessions`, then `messages`, in batches of `batchSize` rows.
 *
 * Each message batch drops the per-row FTS insert trigger, inserts its rows
 * with one prepared statement, indexes just those rows in one statement,
 * bumps the counters of the sessions it touched and recreates the trigger,
 * all before COMMIT, so no other connection ever sees the trigger missing.
 * A failing batch is rolled back (earlier batches stay) and reported as a
 * StoreError naming the row.
 */
export function bulkLoad(
  db: DatabaseSync,
  file: string,
  sessions: Iterable<NewSession & { id: string }>,
  messages: Iterable<ImportMessage>,
  batchSize: number = BULK_BATCH_SIZE,
): BulkCounts {
  const now = Date.now();
  const insertSession = db.prepare(
    "INSERT INTO sessions (id, source, model, title, started_at, cwd) VALUES (?, ?, ?, ?, ?, ?)",
  );
  // Titles are unique per profile: one already taken gets ` #2`, ` #3`, ... as in createSession.
  const byTitle = db.prepare(SELECT_BY_TITLE);
  const sessionCount = inBatches(db, file, sessions, batchSize, "session", {
    row(session) {
      if (session.id === undefined) throw new TypeError("An imported session needs an id");
      checkNewSession(session);
      const startedAt = session.startedAt ?? now;
      insertSession.run(
        session.id,
        session.source,
        session.model ?? null,
        session.title ? freeTitle(session.title, byTitle) : null,
        startedAt,
        session.cwd ?? null,
      );
    },
    label: (session) => `with id ${JSON.stringify(session.id)}`,
  });

  let messageStatements: MessageBatchStatements | undefined;
  const messageCount = inBatches(db, file, messages, batchSize, "message", {
    begin() {
      messageStatements = beginMessageBatch(db);
    },
    row(message) {
      const values = messageValues(message, now);
      messageStatements!.insert.run(message.sessionId, ...values);
      messageStatements!.count(message.sessionId, toolCallsIn(message));
    },
    label: (message) => `of session ${JSON.stringify(message.sessionId)}`,
    end() {
      messageStatements!.finish();
    },
  });
  return { sessions: sessionCount, messages: messageCount };
}

interface BatchHooks<T> {
  /** Runs first inside each batch's transaction. */
  begin?(): void;
  /** Writes one row. */
  row(item: T): void;
  /** Describes a row for an error message, e.g. `of session "ses_..."`. */
  label(item: T): string;
  /** Runs last inside each batch's transaction, before COMMIT. */
  end?(): void;
}

/**
 * Feeds `items` to `hooks.row` in immediate transactions of up to
 * `batchSize` rows and returns how many rows were written. The iterator is
 * advanced inside the transaction, so nothing is buffered.
 */
function inBatches<T>(
  db: DatabaseSync,
  file: string,
  items: Iterable<T>,
  batchSize: number,
  noun: string,
  hooks: BatchHooks<T>,
): number {
  let written = 0;
  let inBatch = 0;
  let step: "read" | "begin" | "row" | "end" = "read";
  let item: T | undefined;
  const describeStep = (): string => {
    const at = written + inBatch + 1;
    const kept = `${written} ${noun}s before it were kept`;
    if (step === "row") {
      return `${noun} #${at} ${hooks.label(item!)} (its batch was rolled back; ${kept})`;
    }
    if (step === "begin") {
      return `the start of the batch at ${noun} #${at} (${kept})`;
    }
    if (step === "end") {
      return `the end of the batch starting at ${noun} #${written + 1} (rolled back; ${kept})`;
    }
    return inBatch === 0
      ? `reading ${noun} #${at} from the input (${kept})`
      : `reading ${noun} #${at} from the input (its batch was rolled back; ${kept})`;
  };
  try {
    const iterator = items[Symbol.iterator]();
    let next = iterator.next();
    while (!next.done) {
      inBatch = 0;
      item = next.value;
      step = "begin";
      immediate(db, () => {
        hooks.begin?.();
        for (;;) {
          step = "row";
          hooks.row(item!);
          inBatch += 1;
          if (inBatch === batchSize) break;
          step = "read";
          next = iterator.next();
          if (next.done) break;
          item = next.value;
        }
        step = "end";
        hooks.end?.();
      });
      written += inBatch;
      inBatch = 0;
      step = "read";
      if (!next.done) next = iterator.next();
    }
  } catch (error) {
    throw toStoreError(file, error, `bulk import failed at ${describeStep()}`);
  }
  return written;
}

interface MessageBatchStatements {
  insert: ReturnType<DatabaseSync["prepare"]>;
  count(sessionId: string, toolCalls: number): void;
  finish(): void;
}

/**
 * Starts a message batch inside the open transaction: remembers the
 * highest existing id and the insert trigger's SQL, then drops the trigger.
 */
function beginMessageBatch(db: DatabaseSync): MessageBatchStatements {
  const trigger = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?")
    .get(FTS_INSERT_TRIGGER) as { sql: string } | undefined;
  if (!trigger) {
    throw new Error(`the full-text trigger "${FTS_INSERT_TRIGGER}" is missing`);
  }
  const { maxId } = db.prepare("SELECT coalesce(max(id), 0) AS maxId FROM messages").get() as {
    maxId: number;
  };
  db.exec(`DROP TRIGGER ${FTS_INSERT_TRIGGER}`);
  const insert = db.prepare(
    `INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const counters = new Map<string, { messages: number; toolCalls: number }>();
  return {
    insert,
    count(sessionId, toolCalls) {
      const entry = counters.get(sessionId);
      if (entry) {
        entry.messages += 1;
        entry.toolCalls += toolCalls;
      } else {
        counters.set(sessionId, { messages: 1, toolCalls });
      }
    },
    finish() {
      db.prepare(
        "INSERT INTO messages_fts (rowid, content) SELECT id, content FROM messages WHERE id > ?",
      )
        .run(maxId);
      const bump = db.prepare(
        `UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?
         WHERE id = ?`,
      );
      for (const [sessionId, counts] of counters) {
        bump.run(counts.messages, counts.toolCalls, sessionId);
      }
      db.exec(trigger.sql);
    },
  };
}
