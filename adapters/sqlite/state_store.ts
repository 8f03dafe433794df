/**
 * The per-profile state database (`state.db`): sessions, messages and their
 * FTS5 full-text index, behind core's {@link SessionStore} contract.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { NotFoundError, StoreError } from "../../core/errors.ts";
import type {
  ImportMessage,
  ListSessionsOptions,
  MessageRole,
  MessageWindow,
  NewMessage,
  NewSession,
  SearchHit,
  SearchHitOptions,
  SessionActivity,
  SessionRecord,
  SessionStore,
  StoredMessage,
  UsageDelta,
} from "../../core/sessions/store.ts";
import { SessionTitleTakenError } from "../../core/sessions/titles.ts";
import type {
  CompactionRecord,
  CompactionStore,
  NewCompaction,
} from "../../core/agent/compression.ts";
import { bulkLoad } from "./_bulk.ts";
import { COMPACTION_COLUMNS, type CompactionRow, toCompaction } from "./_compactions.ts";
import { immediate, openDatabase, toStoreError } from "./_db.ts";
import {
  type ActivityRow,
  checkNewSession,
  checkTime,
  freeTitle,
  MESSAGE_COLUMNS,
  type MessageRow,
  messageValues,
  SELECT_BY_TITLE,
  SESSION_COLUMNS,
  type SessionRow,
  toolCallsIn,
  toSessionActivity,
  toSessionRecord,
  toStoredMessage,
} from "./_rows.ts";
import { newSessionId } from "./ids.ts";
import { appliedSchemaVersion, migrate } from "./migrations.ts";

/** The state database: sessions and messages, and the context-compression checkpoints. */
export type StateStore = SessionStore & CompactionStore;

/**
 * Opens (creating if needed) the state database at `path` and brings its
 * schema up to date. The folder must already exist: making the profile home
 * is the caller's job. Throws {@link StoreError} when the file cannot be
 * used (not a database, newer schema, locked, unwritable).
 *
 * @example
 * ```ts
 * const store = openStateStore(`${home}/state.db`);
 * try {
 *   const session = store.createSession({ source: "cli" });
 *   store.appendMessages(session.id, [{ role: "user", content: "hello" }]);
 * } finally {
 *   store.close();
 * }
 * ```
 */
export function openStateStore(path: string): StateStore {
  const db = openDatabase(path);
  try {
    migrate(db, path);
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteSessionStore(db, path);
}

/** Counter fields of {@link UsageDelta} and their columns. */
const USAGE_COLUMNS = {
  messageCount: "message_count",
  toolCallCount: "tool_call_count",
  apiCallCount: "api_call_count",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  cacheReadTokens: "cache_read_tokens",
  cacheWriteTokens: "cache_write_tokens",
} as const;

const USAGE_KEYS = Object.keys(USAGE_COLUMNS) as (keyof typeof USAGE_COLUMNS)[];

const ADD_USAGE = `UPDATE sessions SET ${
  USAGE_KEYS.map((key) => `${USAGE_COLUMNS[key]} = ${USAGE_COLUMNS[key]} + ?`).join(", ")
} WHERE id = ?`;

const INSERT_MESSAGE = `
  INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp)
  VALUES (?, ?, ?, ?, ?, ?, ?)`;

/**
 * {@link SessionStore} over one node:sqlite connection. Prepared statements
 * are cached per SQL text; every write runs in `BEGIN IMMEDIATE`.
 */
class SqliteSessionStore implements StateStore {
  readonly #file: string;
  #db: DatabaseSync | undefined;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, file: string) {
    this.#db = db;
    this.#file = file;
  }

  createSession(input: NewSession): SessionRecord {
    checkNewSession(input);
    const startedAt = input.startedAt ?? Date.now();
    const id = input.id ?? newSessionId(startedAt);
    return this.#write(() => {
      if (input.id !== undefined && this.getSession(id)) {
        throw new StoreError(this.#file, `session "${id}" already exists`);
      }
      const title = input.title ? freeTitle(input.title, this.#sql(SELECT_BY_TITLE)) : null;
      const row = this.#sql(
        `INSERT INTO sessions (id, source, model, title, started_at, system_prompt, cwd)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         RETURNING ${SESSION_COLUMNS}`,
      ).get(
        id,
        input.source,
        input.model ?? null,
        title,
        startedAt,
        input.systemPrompt ?? null,
        input.cwd ?? null,
      ) as unknown as SessionRow;
      return toSessionRecord(row);
    });
  }

  getSystemPrompt(id: string): string | null | undefined {
    return this.#read(() => {
      const row = this.#sql("SELECT system_prompt FROM sessions WHERE id = ?").get(id) as
        | { system_prompt: string | null }
        | undefined;
      return row === undefined ? undefined : row.system_prompt;
    });
  }

  getSession(id: string): SessionRecord | undefined {
    return this.#read(() => {
      const row = this.#sql(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`).get(id) as
        | SessionRow
        | undefined;
      return row && toSessionRecord(row);
    });
  }

  listSessions(options: ListSessionsOptions = {}): SessionRecord[] {
    const limit = options.limit ?? -1;
    const offset = options.offset ?? 0;
    if (options.limit !== undefined) checkCount("limit", limit);
    checkCount("offset", offset);
    return this.#read(() => {
      // A directory is matched with a plain `cwd = ?` (two cached statements), so the
      // sessions_cwd index serves `--continue` however many sessions there are.
      const rows = this.#sql(
        `SELECT ${SESSION_COLUMNS} FROM sessions
         WHERE (?1 IS NULL OR source = ?1)
           AND source NOT IN (SELECT value FROM json_each(?4))
           AND ${options.cwd === undefined ? "?5 IS NULL" : "cwd = ?5"}
           AND (NOT ?6 OR EXISTS (
             SELECT 1 FROM messages WHERE session_id = sessions.id AND role = 'assistant'
           ))
         ORDER BY started_at DESC, id DESC
         LIMIT ?2 OFFSET ?3`,
      ).all(
        options.source ?? null,
        limit,
        offset,
        JSON.stringify(options.excludeSources ?? []),
        options.cwd ?? null,
        options.answeredOnly ? 1 : 0,
      ) as unknown as SessionRow[];
      return rows.map(toSessionRecord);
    });
  }

  updateSession(
    id: string,
    patch: { title?: string | null; model?: string | null },
  ): SessionRecord {
    return this.#write(() => {
      if (patch.title) {
        const holder = this.findSessionByTitle(patch.title)?.id;
        if (holder !== undefined && holder !== id && this.getSession(id)) {
          throw new SessionTitleTakenError(patch.title, holder);
        }
      }
      const row = this.#sql(
        `UPDATE sessions
         SET title = CASE WHEN ?1 THEN ?2 ELSE title END,
             model = CASE WHEN ?3 THEN ?4 ELSE model END
         WHERE id = ?5
         RETURNING ${SESSION_COLUMNS}`,
      ).get(
        patch.title !== undefined ? 1 : 0,
        patch.title ?? null,
        patch.model !== undefined ? 1 : 0,
        patch.model ?? null,
        id,
      ) as SessionRow | undefined;
      if (!row) throw new NotFoundError("Session", id);
      return toSessionRecord(row);
    });
  }

  findSessionByTitle(title: string): SessionRecord | undefined {
    return this.#read(() => {
      const row = this.#sql(SELECT_BY_TITLE).get(title) as SessionRow | undefined;
      return row && toSessionRecord(row);
    });
  }

  endSession(id: string, reason: string, endedAt: number = Date.now()): SessionRecord {
    checkTime("Session endedAt", endedAt);
    return this.#write(() => {
      const row = this.#sql(
        `UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? RETURNING ${SESSION_COLUMNS}`,
      ).get(endedAt, reason, id) as SessionRow | undefined;
      if (!row) throw new NotFoundError("Session", id);
      return toSessionRecord(row);
    });
  }

  addUsage(id: string, delta: UsageDelta): void {
    const amounts = USAGE_KEYS.map((key) => {
      const amount = delta[key] ?? 0;
      if (!Number.isSafeInteger(amount) || amount < 0) {
        throw new RangeError(`Usage "${key}" must be a whole number of at least 0, got ${amount}`);
      }
      return amount;
    });
    this.#write(() => {
      const { changes } = this.#sql(ADD_USAGE).run(...amounts, id);
      if (changes === 0) throw new NotFoundError("Session", id);
    });
  }

  appendMessages(sessionId: string, messages: readonly NewMessage[]): StoredMessage[] {
    const now = Date.now();
    const values = messages.map((message) => messageValues(message, now));
    const toolCalls = messages.reduce((sum, message) => sum + toolCallsIn(message), 0);
    return this.#write(() => {
      const { changes } = this.#sql(
        `UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ?
         WHERE id = ?`,
      ).run(messages.length, toolCalls, sessionId);
      if (changes === 0) throw new NotFoundError("Session", sessionId);
      const insert = this.#sql(INSERT_MESSAGE);
      return values.map(([role, content, toolCallsJson, toolCallId, toolName, timestamp]) => {
        const { lastInsertRowid } = insert.run(
          sessionId,
          role,
          content,
          toolCallsJson,
          toolCallId,
          toolName,
          timestamp,
        );
        return {
          id: Number(lastInsertRowid),
          sessionId,
          role,
          content,
          toolCalls: toolCallsJson === null ? null : JSON.parse(toolCallsJson),
          toolCallId,
          toolName,
          timestamp,
        };
      });
    });
  }

  getMessages(
    sessionId: string,
    options: { afterId?: number; limit?: number } = {},
  ): StoredMessage[] {
    const afterId = options.afterId ?? 0;
    const limit = options.limit ?? -1;
    checkCount("afterId", afterId);
    if (options.limit !== undefined) checkCount("limit", limit);
    return this.#read(() => {
      const rows = this.#sql(
        `SELECT ${MESSAGE_COLUMNS} FROM messages
         WHERE session_id = ? AND id > ?
         ORDER BY id
         LIMIT ?`,
      ).all(sessionId, afterId, limit) as unknown as MessageRow[];
      return rows.map(toStoredMessage);
    });
  }

  deleteMessagesFrom(sessionId: string, messageId: number): number {
    checkCount("messageId", messageId);
    return this.#write(() => {
      const counted = this.#sql(
        `SELECT count(*) AS messages,
                coalesce(sum(CASE WHEN role = 'assistant' AND json_valid(tool_calls)
                  THEN json_array_length(tool_calls) ELSE 0 END), 0) AS calls
         FROM messages WHERE session_id = ? AND id >= ?`,
      ).get(sessionId, messageId) as { messages: number; calls: number };
      if (counted.messages === 0) return 0;
      this.#sql("DELETE FROM messages WHERE session_id = ? AND id >= ?").run(sessionId, messageId);
      this.#sql(
        `UPDATE sessions SET message_count = max(0, message_count - ?),
                             tool_call_count = max(0, tool_call_count - ?)
         WHERE id = ?`,
      ).run(counted.messages, counted.calls, sessionId);
      return counted.messages;
    });
  }

  searchHits(ftsQuery: string, options: SearchHitOptions): SearchHit[] {
    checkCount("candidates", options.candidates);
    const order = { relevance: "score", newest: "id DESC", oldest: "id" }[options.order];
    return this.#read(() =>
      this.#sql(
        // bm25() in the select list and ORDER BY its alias is FTS5's fastest ranked form.
        `WITH top AS (
           SELECT rowid AS id, bm25(messages_fts) AS score FROM messages_fts
           WHERE messages_fts MATCH ?1 ORDER BY ${order} LIMIT ?2
         )
         SELECT m.id AS messageId, m.session_id AS sessionId, top.score AS score
         FROM top JOIN messages m ON m.id = top.id
         WHERE (?3 IS NULL OR m.session_id <> ?3)
           AND m.role IN (SELECT value FROM json_each(?4))
           AND (?5 = '[]' OR m.session_id NOT IN (
             SELECT id FROM sessions WHERE source IN (SELECT value FROM json_each(?5))
           ))
         ORDER BY ${order === "score" ? "top.score, m.id" : `m.${order}`}`,
      ).all(
        ftsQuery,
        options.candidates,
        options.excludeSessionId ?? null,
        JSON.stringify(options.roles),
        JSON.stringify(options.excludeSources ?? []),
      ) as unknown as SearchHit[]
    );
  }

  messagesAround(
    sessionId: string,
    anchorId: number,
    before: number,
    after: number,
  ): MessageWindow {
    checkCount("before", before);
    checkCount("after", after);
    return this.#read(() => {
      const earlier = this.#sql(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
      ).all(sessionId, anchorId, before) as unknown as MessageRow[];
      const anchor = this.#sql(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND id = ?`,
      ).get(sessionId, anchorId) as MessageRow | undefined;
      const later = this.#sql(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`,
      ).all(sessionId, anchorId, after) as unknown as MessageRow[];
      return {
        before: earlier.reverse().map(toStoredMessage),
        anchor: anchor && toStoredMessage(anchor),
        after: later.map(toStoredMessage),
      };
    });
  }

  bookends(
    sessionId: string,
    count: number,
    roles: readonly MessageRole[],
  ): { start: StoredMessage[]; end: StoredMessage[] } {
    checkCount("count", count);
    const pick = (direction: "ASC" | "DESC") =>
      this.#sql(
        `SELECT ${MESSAGE_COLUMNS} FROM messages
         WHERE session_id = ? AND role IN (SELECT value FROM json_each(?))
         ORDER BY id ${direction} LIMIT ?`,
      ).all(sessionId, JSON.stringify(roles), count) as unknown as MessageRow[];
    return this.#read(() => ({
      start: pick("ASC").map(toStoredMessage),
      end: pick("DESC").reverse().map(toStoredMessage),
    }));
  }

  sessionActivity(sessionIds: readonly string[]): Map<string, SessionActivity> {
    return this.#read(() => {
      // Each subquery is one step along messages_session_id (session_id, id).
      const rows = this.#sql(
        `WITH wanted AS (
           SELECT s.id AS sessionId,
                  (SELECT id FROM messages
                   WHERE session_id = s.id AND role = 'user' ORDER BY id LIMIT 1) AS firstUserId,
                  (SELECT timestamp FROM messages
                   WHERE session_id = s.id ORDER BY id DESC LIMIT 1) AS lastActive,
                  EXISTS (SELECT 1 FROM messages
                          WHERE session_id = s.id AND role = 'assistant') AS answered
           FROM sessions s WHERE s.id IN (SELECT value FROM json_each(?))
         )
         SELECT wanted.sessionId, wanted.lastActive, wanted.answered, m.content,
                CASE WHEN instr(CAST(m.content AS BLOB), x'00') > 0
                  THEN CAST(m.content AS BLOB) END AS contentBytes
         FROM wanted LEFT JOIN messages m ON m.id = wanted.firstUserId`,
      ).all(JSON.stringify(sessionIds)) as unknown as ActivityRow[];
      return new Map(rows.map((row) => [row.sessionId, toSessionActivity(row)]));
    });
  }

  addCompaction(sessionId: string, checkpoint: NewCompaction): CompactionRecord {
    checkCount("headThroughId", checkpoint.headThroughId);
    checkCount("tailFromId", checkpoint.tailFromId);
    checkCount("summarisedCount", checkpoint.summarisedCount);
    checkTime("Compaction createdAt", checkpoint.createdAt);
    return this.#write(() => {
      if (!this.getSession(sessionId)) throw new NotFoundError("Session", sessionId);
      const row = this.#sql(
        `INSERT INTO compactions
           (session_id, head_through_id, tail_from_id, summary, summarised_count, created_at)
         VALUES (?, ?, ?, ?, ?, ?)
         RETURNING ${COMPACTION_COLUMNS}`,
      ).get(
        sessionId,
        checkpoint.headThroughId,
        checkpoint.tailFromId,
        checkpoint.summary,
        checkpoint.summarisedCount,
        checkpoint.createdAt,
      ) as unknown as CompactionRow;
      return toCompaction(row);
    });
  }

  latestCompaction(sessionId: string): CompactionRecord | undefined {
    return this.#read(() => {
      const row = this.#sql(
        `SELECT ${COMPACTION_COLUMNS} FROM compactions WHERE session_id = ? ORDER BY id DESC LIMIT 1`,
      ).get(sessionId) as CompactionRow | undefined;
      return row && toCompaction(row);
    });
  }

  deleteSession(id: string): boolean {
    return this.#write(() => this.#sql("DELETE FROM sessions WHERE id = ?").run(id).changes > 0);
  }

  bulkImport(
    sessions: Iterable<NewSession & { id: string }>,
    messages: Iterable<ImportMessage>,
  ): { sessions: number; messages: number } {
    return this.#read(() => bulkLoad(this.#open(), this.#file, sessions, messages));
  }

  schemaVersion(): number {
    return this.#read(() => appliedSchemaVersion(this.#open()));
  }

  checkIntegrity(): string[] {
    const problems: string[] = [];
    try {
      const rows = this.#read(() =>
        this.#sql("PRAGMA integrity_check").all() as unknown as { integrity_check: string }[]
      );
      problems.push(...rows.map((row) => row.integrity_check).filter((line) => line !== "ok"));
    } catch (error) {
      problems.push(`integrity_check could not finish (${corruption(error)})`);
    }
    try {
      this.#write(() => {
        this.#sql("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)")
          .run();
      });
    } catch (error) {
      problems.push(
        `full-text index messages_fts does not match the messages table (${corruption(error)}); ` +
          "it can be rebuilt from the table",
      );
    }
    return problems.length === 0 ? ["ok"] : problems;
  }

  close(): void {
    const db = this.#db;
    if (!db) return;
    this.#db = undefined;
    this.#statements.clear();
    db.close();
  }

  #open(): DatabaseSync {
    if (!this.#db) throw new StoreError(this.#file, "the store is closed");
    return this.#db;
  }

  /** A cached prepared statement for `sql`. */
  #sql(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#open().prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #read<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw toStoreError(this.#file, error);
    }
  }

  #write<T>(work: () => T): T {
    try {
      return immediate(this.#open(), work);
    } catch (error) {
      throw toStoreError(this.#file, error);
    }
  }
}

/**
 * The SQLite message of an error that reports corruption (FTS5 reports an
 * index that disagrees with its table that way too). Any other error, such
 * as a closed store or a lock held too long, is rethrown: it is not a finding.
 */
function corruption(error: unknown): string {
  const cause = error instanceof StoreError ? error.cause : error;
  const message = cause instanceof Error ? cause.message : "";
  if (!/malformed|corrupt/i.test(message)) throw error;
  return message;
}

function checkCount(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`Option "${what}" must be a whole number of at least 0, got ${value}`);
  }
}
