/**
 * The session store contract: what the agent, the CLI and the server need
 * from the per-profile state database. The SQLite implementation lives in
 * adapters/sqlite; core only sees this interface.
 *
 * Times are epoch milliseconds. Message content is kept byte-for-byte.
 *
 * @module
 */

/** Who wrote a message. */
export type MessageRole = "system" | "user" | "assistant" | "tool";

/** Every role a stored message may carry. */
export const MESSAGE_ROLES: readonly MessageRole[] = ["system", "user", "assistant", "tool"];

/** Usage and activity counters kept per session. */
export interface SessionCounters {
  messageCount: number;
  toolCallCount: number;
  apiCallCount: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** A stored session row. */
export interface SessionRecord extends SessionCounters {
  /** Prefixed id, `ses_...`. */
  id: string;
  /** Surface that started it: `cli`, `dashboard`, `telegram`, `cron`, ... */
  source: string;
  model: string | null;
  title: string | null;
  /** The directory the session was started in; null for sessions stored before it was kept. */
  cwd: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
}

/** Fields needed to start a session; the store fills the rest. */
export interface NewSession {
  /** Optional explicit id (imports, tests); otherwise the store makes a `ses_` id. */
  id?: string;
  source: string;
  model?: string | null;
  title?: string | null;
  /** The directory the session is started in (the agent's working directory). */
  cwd?: string | null;
  startedAt?: number;
  /** The system prompt the session was started with, kept so a resumed session sends the same prefix. */
  systemPrompt?: string | null;
}

/** A message to append. `toolCalls` is stored as JSON text. */
export interface NewMessage {
  role: MessageRole;
  /** Stored byte-for-byte; `null` for an assistant turn that only calls tools. */
  content: string | null;
  toolCalls?: unknown[] | null;
  toolCallId?: string | null;
  toolName?: string | null;
  timestamp?: number;
}

/** A stored message row. */
export interface StoredMessage {
  /** Integer id, increasing in insertion order across the whole database. */
  id: number;
  sessionId: string;
  role: MessageRole;
  content: string | null;
  toolCalls: unknown[] | null;
  toolCallId: string | null;
  toolName: string | null;
  timestamp: number;
}

/** A message for the bulk path: it names its session. */
export interface ImportMessage extends NewMessage {
  sessionId: string;
}

/** Options for listing sessions, newest first. */
export interface ListSessionsOptions {
  limit?: number;
  offset?: number;
  source?: string;
  /** Leave out sessions from these sources. */
  excludeSources?: readonly string[];
  /** Only sessions started in exactly this directory. */
  cwd?: string;
  /**
   * Only sessions the model answered at least once (an assistant message is
   * stored); a session whose first model call never succeeded is left out.
   */
  answeredOnly?: boolean;
}

/** What a session listing shows beyond the row, read from its messages. */
export interface SessionActivity {
  /** The content of the first user message; null when there is none (or it has no content). */
  firstUserMessage: string | null;
  /** When the newest message was stored; null for a session without messages. */
  lastActive: number | null;
  /** True once an assistant message is stored: a model call of the session succeeded. */
  answered: boolean;
}

/** A full-text match: which message, in which session, how well it ranks (lower is better). */
export interface SearchHit {
  messageId: number;
  sessionId: string;
  score: number;
}

/** Options of {@link SessionStore.searchHits}. */
export interface SearchHitOptions {
  /** Only messages with these roles match. */
  roles: readonly MessageRole[];
  /** Never return hits from this session (the caller's live conversation). */
  excludeSessionId?: string;
  /** Never return hits from sessions of these sources. */
  excludeSources?: readonly string[];
  /** Order: FTS5 rank (bm25), or by message id. */
  order: "relevance" | "newest" | "oldest";
  /** How many ranked index entries to consider before the role and session filters. */
  candidates: number;
}

/** Messages on both sides of an anchor, in id order. */
export interface MessageWindow {
  before: StoredMessage[];
  anchor: StoredMessage | undefined;
  after: StoredMessage[];
}

/** Counter increments applied atomically to a session. */
export type UsageDelta = Partial<SessionCounters>;

/** The per-profile session database. Every write is one immediate transaction. */
export interface SessionStore {
  /**
   * Creates a session row and returns it. A title another session already
   * has (titles are unique per profile, ignoring ASCII case) gets ` #2`,
   * ` #3`, ... appended.
   */
  createSession(input: NewSession): SessionRecord;
  /** Returns a session, or `undefined` when there is none with that id. */
  getSession(id: string): SessionRecord | undefined;
  /** The system prompt stored with a session: `undefined` for no such session, `null` when none was stored. */
  getSystemPrompt(id: string): string | null | undefined;
  /** Lists sessions, most recently started first. */
  listSessions(options?: ListSessionsOptions): SessionRecord[];
  /**
   * Sets the title and/or model of a session. Throws NotFoundError for an
   * unknown id, and SessionTitleTakenError (naming the other session) for a
   * title another session has, ignoring ASCII case.
   */
  updateSession(id: string, patch: { title?: string | null; model?: string | null }): SessionRecord;
  /** The session with this title, ignoring ASCII case, or `undefined`. */
  findSessionByTitle(title: string): SessionRecord | undefined;
  /** Marks a session ended. Throws NotFoundError for an unknown id. */
  endSession(id: string, reason: string, endedAt?: number): SessionRecord;
  /** Adds to the session's counters. Throws NotFoundError for an unknown id. */
  addUsage(id: string, delta: UsageDelta): void;
  /** Appends messages in one transaction and bumps message and tool-call counters. */
  appendMessages(sessionId: string, messages: readonly NewMessage[]): StoredMessage[];
  /** Returns a session's messages in id order, optionally after an id and limited. */
  getMessages(sessionId: string, options?: { afterId?: number; limit?: number }): StoredMessage[];
  /**
   * Deletes a session's messages from `messageId` on (`/rollback` drops an
   * exchange this way) in one transaction, lowering the message and tool-call
   * counters; returns how many were deleted.
   */
  deleteMessagesFrom(sessionId: string, messageId: number): number;
  /**
   * Full-text search over message content. `ftsQuery` is FTS5 query syntax
   * (sanitise user text first). Throws StoreError for a query FTS5 rejects.
   */
  searchHits(ftsQuery: string, options: SearchHitOptions): SearchHit[];
  /** Up to `before` messages before and `after` messages after `anchorId` in its session. */
  messagesAround(sessionId: string, anchorId: number, before: number, after: number): MessageWindow;
  /** The first and last `count` messages of a session whose role is in `roles`. */
  bookends(
    sessionId: string,
    count: number,
    roles: readonly MessageRole[],
  ): { start: StoredMessage[]; end: StoredMessage[] };
  /**
   * The {@link SessionActivity} of each of `sessionIds` that exists, by
   * session id, in one query (what a session listing shows beside the row).
   */
  sessionActivity(sessionIds: readonly string[]): Map<string, SessionActivity>;
  /** Deletes a session and its messages; returns false when it did not exist. */
  deleteSession(id: string): boolean;
  /**
   * Loads many sessions and messages fast (per-row index triggers off, the
   * full-text index filled in one pass per batch). Returns the counts written.
   */
  bulkImport(
    sessions: Iterable<NewSession & { id: string }>,
    messages: Iterable<ImportMessage>,
  ): { sessions: number; messages: number };
  /** The highest applied migration number. */
  schemaVersion(): number;
  /** `PRAGMA integrity_check` plus a full-text index consistency check; `["ok"]` when healthy. */
  checkIntegrity(): string[];
  /** Closes the database handle. */
  close(): void;
}
