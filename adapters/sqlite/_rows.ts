/**
 * Private row shapes and conversions between SQLite rows and the store's
 * records, plus the argument checks shared by the single and bulk paths.
 *
 * @module
 */

import type { StatementSync } from "node:sqlite";
import {
  MESSAGE_ROLES,
  type MessageRole,
  type NewMessage,
  type SessionActivity,
  type SessionRecord,
  type StoredMessage,
} from "../../core/sessions/store.ts";
import { numberedTitle } from "../../core/sessions/titles.ts";

/** Session columns aliased to the record's field names. */
export const SESSION_COLUMNS = `
  id, source, model, title, cwd,
  started_at AS startedAt, ended_at AS endedAt, end_reason AS endReason,
  message_count AS messageCount, tool_call_count AS toolCallCount,
  api_call_count AS apiCallCount, input_tokens AS inputTokens, output_tokens AS outputTokens,
  cache_read_tokens AS cacheReadTokens, cache_write_tokens AS cacheWriteTokens`;

/**
 * Selects the session that holds a title (one parameter), ignoring ASCII
 * case as the unique index `sessions_title` does.
 */
export const SELECT_BY_TITLE =
  `SELECT ${SESSION_COLUMNS} FROM sessions WHERE title = ? COLLATE NOCASE`;

/**
 * `title`, or the first of `title #2`, `title #3`, ... no session holds;
 * `byTitle` is {@link SELECT_BY_TITLE} prepared.
 */
export function freeTitle(title: string, byTitle: StatementSync): string {
  return numberedTitle(title, (candidate) => byTitle.get(candidate) !== undefined);
}

/**
 * Message columns. node:sqlite reads TEXT only up to the first NUL, so
 * content holding a NUL is also fetched as bytes (`contentBytes`) and
 * decoded here; for all other rows that column is NULL and costs nothing.
 */
export const MESSAGE_COLUMNS = `
  id, session_id AS sessionId, role, content,
  CASE WHEN instr(CAST(content AS BLOB), x'00') > 0 THEN CAST(content AS BLOB) END AS contentBytes,
  tool_calls AS toolCalls, tool_call_id AS toolCallId, tool_name AS toolName, timestamp`;

/** A sessions row as selected with {@link SESSION_COLUMNS}. */
export type SessionRow = SessionRecord;

/** A messages row as selected with {@link MESSAGE_COLUMNS}. */
export interface MessageRow {
  id: number;
  sessionId: string;
  role: MessageRole;
  content: string | null;
  contentBytes: Uint8Array | null;
  toolCalls: string | null;
  toolCallId: string | null;
  toolName: string | null;
  timestamp: number;
}

const utf8 = new TextDecoder();

/** Copies a session row into a plain record. */
export function toSessionRecord(row: SessionRow): SessionRecord {
  return { ...row };
}

/** A row of the session activity query: the first user message's content fetched as messages are. */
export interface ActivityRow {
  sessionId: string;
  lastActive: number | null;
  answered: number;
  content: string | null;
  contentBytes: Uint8Array | null;
}

/** Converts an activity row into the store's {@link SessionActivity}. */
export function toSessionActivity(row: ActivityRow): SessionActivity {
  return {
    firstUserMessage: row.contentBytes ? utf8.decode(row.contentBytes) : row.content,
    lastActive: row.lastActive,
    answered: row.answered === 1,
  };
}

/** Converts a message row into a stored message. */
export function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    sessionId: row.sessionId,
    role: row.role,
    content: row.contentBytes ? utf8.decode(row.contentBytes) : row.content,
    toolCalls: row.toolCalls === null ? null : JSON.parse(row.toolCalls),
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    timestamp: row.timestamp,
  };
}

/** The values bound by the message INSERT, in column order after `session_id`. */
export type MessageValues = [
  role: MessageRole,
  content: string | null,
  toolCalls: string | null,
  toolCallId: string | null,
  toolName: string | null,
  timestamp: number,
];

/**
 * Checks a message and returns its column values. Throws TypeError or
 * RangeError for values the schema would reject.
 */
export function messageValues(message: NewMessage, now: number): MessageValues {
  if (!MESSAGE_ROLES.includes(message.role)) {
    throw new TypeError(
      `Unknown message role ${JSON.stringify(message.role)}; expected one of ${
        MESSAGE_ROLES.join(", ")
      }`,
    );
  }
  if (message.content !== null && typeof message.content !== "string") {
    throw new TypeError(`Message content must be a string or null, got ${typeof message.content}`);
  }
  const toolCalls = message.toolCalls ?? null;
  if (toolCalls !== null && !Array.isArray(toolCalls)) {
    throw new TypeError("Message toolCalls must be an array or null");
  }
  const timestamp = message.timestamp ?? now;
  checkTime("Message timestamp", timestamp);
  return [
    message.role,
    message.content,
    toolCalls === null ? null : JSON.stringify(toolCalls),
    message.toolCallId ?? null,
    message.toolName ?? null,
    timestamp,
  ];
}

/** Tool calls a message adds to its session's counter: only assistant turns count. */
export function toolCallsIn(message: NewMessage): number {
  return message.role === "assistant" && Array.isArray(message.toolCalls)
    ? message.toolCalls.length
    : 0;
}

/** Checks the fields of a new session that the schema requires. */
export function checkNewSession(
  input: { id?: string; source: string; startedAt?: number; cwd?: string | null },
): void {
  if (input.id !== undefined && (typeof input.id !== "string" || input.id === "")) {
    throw new TypeError(`A session id must be a non-empty string, got ${JSON.stringify(input.id)}`);
  }
  if (typeof input.source !== "string" || input.source === "") {
    throw new TypeError(
      `A session source must be a non-empty string, got ${JSON.stringify(input.source)}`,
    );
  }
  if (input.startedAt !== undefined) checkTime("Session startedAt", input.startedAt);
  if (input.cwd !== undefined && input.cwd !== null && typeof input.cwd !== "string") {
    throw new TypeError(`A session cwd must be a string or null, got ${typeof input.cwd}`);
  }
}

/** Throws RangeError unless `value` is a whole number of epoch milliseconds. */
export function checkTime(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what} must be epoch milliseconds, got ${value}`);
  }
}
