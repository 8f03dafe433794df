/**
 * The JSON views of the session nouns: what `herald sessions ... --json` and
 * `/api/sessions...` print. One view per noun, shared by both, so the same
 * data always has the same shape. Keys are snake_case, as in every `--json`
 * output and API body; the store's records stay camelCase inside the program.
 *
 * @example
 * ```ts
 * const session = store.getSession("ses_abc")!;
 * JSON.stringify(sessionView(session, store)); // {"id":"ses_abc",...,"started_at":...}
 * ```
 *
 * @module
 */

import type {
  MessageRole,
  MessageWindow,
  SessionActivity,
  SessionRecord,
  SessionStore,
  StoredMessage,
} from "./store.ts";

/** Longest preview (the first user message, whitespace folded) in a session view. */
export const PREVIEW_CHARS = 160;

/** Longest first line (of the first user message) in a {@link RecentSessionView}. */
export const FIRST_LINE_CHARS = 80;

/**
 * A session summary: the row, its counters, a preview of its first user
 * message, when it was last active and whether the model ever answered.
 */
export interface SessionView {
  id: string;
  source: string;
  model: string | null;
  title: string | null;
  preview: string | null;
  /** The directory it was started in; null for sessions stored before Herald kept it. */
  cwd: string | null;
  /** False while no model call of the session has succeeded (no assistant message stored). */
  answered: boolean;
  started_at: number;
  /** When its newest message was stored (its start when it has none). */
  last_active: number;
  ended_at: number | null;
  end_reason: string | null;
  message_count: number;
  tool_call_count: number;
  api_call_count: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** A stored message. Every key is present; empty tool fields are `null`. */
export interface MessageView {
  id: number;
  role: MessageRole;
  content: string | null;
  tool_calls: unknown[] | null;
  tool_call_id: string | null;
  tool_name: string | null;
  timestamp: number;
}

/** A session with all its messages, in id order (`sessions show --json`, `sessions export`). */
export interface SessionWithMessagesView {
  session: SessionView;
  messages: MessageView[];
}

/**
 * A message inside a search result. The keys are those of {@link MessageView},
 * with the time as an ISO 8601 string; empty tool fields are left out,
 * because the agent's `session_search` tool returns the same objects to the
 * model and every token counts there.
 */
export interface SearchMessage {
  id: number;
  role: MessageRole;
  content: string | null;
  tool_name?: string;
  tool_calls?: unknown[];
  /** When it was stored, ISO 8601 in UTC. */
  timestamp: string;
  /** Set when the content (or a tool call's arguments) was cut to fit the result's size cap. */
  truncated?: true;
}

/**
 * How much of a discovery hit is shown: `full` (the match with the messages
 * around it and the session's first and last exchanges) or `compact` (the
 * matching message alone).
 */
export type HitDetail = "full" | "compact";

/** A search hit: one session found by discovery, with the match in context. */
export interface DiscoveryHit {
  session_id: string;
  title: string | null;
  source: string;
  /** When the session started, ISO 8601 in UTC. */
  started_at: string;
  detail: HitDetail;
  match_message_id: number;
  /** Full: up to 5 before, the match, up to 5 after. Compact: the match alone. */
  messages: SearchMessage[];
  messages_before: number;
  messages_after: number;
  /** Full: the first 3 user and assistant messages. Compact: none. */
  bookend_start: SearchMessage[];
  /** Full: the last 3 user and assistant messages. Compact: none. */
  bookend_end: SearchMessage[];
}

/** A session in a browse listing. */
export interface BrowseSession {
  id: string;
  title: string | null;
  source: string;
  /** ISO 8601 in UTC. */
  started_at: string;
  /** ISO 8601 in UTC, or null while the session has not ended. */
  ended_at: string | null;
  message_count: number;
}

/** Set on a search result that was cut to fit its size cap. */
export interface CutResult {
  /** True when messages were shortened or parts left out to fit the size cap. */
  truncated?: true;
  /** How many hits (discovery) or sessions (browse) were left out to fit. */
  omitted?: number;
}

/** What a session search returns, by shape (core/sessions/search.ts). */
export type SessionSearchResult =
  | (
    & { shape: "discovery"; query: string | undefined; count: number; results: DiscoveryHit[] }
    & CutResult
  )
  | (
    & {
      shape: "scroll";
      session_id: string;
      around_message_id?: number;
      messages: SearchMessage[];
      messages_before: number;
      messages_after: number;
      at_start?: boolean;
      at_end?: boolean;
    }
    & CutResult
  )
  | ({ shape: "browse"; count: number; sessions: BrowseSession[] } & CutResult);

/**
 * Epoch milliseconds as an ISO 8601 string in UTC.
 *
 * @example
 * ```ts
 * isoTime(0); // "1970-01-01T00:00:00.000Z"
 * ```
 */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** `text` with whitespace folded, cut to `max` characters with "…" when longer. */
function shortened(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A first user message, whitespace folded and cut to {@link PREVIEW_CHARS}. */
function preview(first: string | null | undefined): string | null {
  return first ? shortened(first, PREVIEW_CHARS) : null;
}

/**
 * The first line of a first user message that has words, cut to {@link FIRST_LINE_CHARS}.
 *
 * @example
 * ```ts
 * firstLine("\n  Fix the parser\nIt chokes on tabs"); // "Fix the parser"
 * ```
 */
export function firstLine(first: string | null | undefined): string | null {
  const line = first?.split(/\r?\n|\r/).find((candidate) => candidate.trim() !== "");
  return line === undefined ? null : shortened(line, FIRST_LINE_CHARS);
}

const NO_ACTIVITY: SessionActivity = { firstUserMessage: null, lastActive: null, answered: false };

/**
 * The summary views of `sessions`, in their order; `store` supplies every
 * preview, last activity and answered flag in one query.
 */
export function sessionViews(
  sessions: readonly SessionRecord[],
  store: Pick<SessionStore, "sessionActivity">,
): SessionView[] {
  const activity = store.sessionActivity(sessions.map((session) => session.id));
  return sessions.map((session) => {
    const facts = activity.get(session.id) ?? NO_ACTIVITY;
    return {
      id: session.id,
      source: session.source,
      model: session.model,
      title: session.title,
      preview: preview(facts.firstUserMessage),
      cwd: session.cwd,
      answered: facts.answered,
      started_at: session.startedAt,
      last_active: facts.lastActive ?? session.startedAt,
      ended_at: session.endedAt,
      end_reason: session.endReason,
      message_count: session.messageCount,
      tool_call_count: session.toolCallCount,
      api_call_count: session.apiCallCount,
      input_tokens: session.inputTokens,
      output_tokens: session.outputTokens,
      cache_read_tokens: session.cacheReadTokens,
      cache_write_tokens: session.cacheWriteTokens,
    };
  });
}

/** The summary view of `session`; `store` supplies the preview and activity. */
export function sessionView(
  session: SessionRecord,
  store: Pick<SessionStore, "sessionActivity">,
): SessionView {
  return sessionViews([session], store)[0];
}

/**
 * A session as a resume picker shows it: its title, when it started and was
 * last active, how long it is, the first line of its first user message,
 * and the directory it was started in.
 */
export interface RecentSessionView {
  id: string;
  title: string | null;
  source: string;
  started_at: number;
  /** When its newest message was stored (its start when it has none). */
  last_active: number;
  message_count: number;
  /** The first line of the first user message, at most {@link FIRST_LINE_CHARS} characters. */
  first_line: string | null;
  cwd: string | null;
  answered: boolean;
}

/** The picker views of `sessions`, in their order; `store` supplies the activity in one query. */
export function recentSessionViews(
  sessions: readonly SessionRecord[],
  store: Pick<SessionStore, "sessionActivity">,
): RecentSessionView[] {
  const activity = store.sessionActivity(sessions.map((session) => session.id));
  return sessions.map((session) => {
    const facts = activity.get(session.id) ?? NO_ACTIVITY;
    return {
      id: session.id,
      title: session.title,
      source: session.source,
      started_at: session.startedAt,
      last_active: facts.lastActive ?? session.startedAt,
      message_count: session.messageCount,
      first_line: firstLine(facts.firstUserMessage),
      cwd: session.cwd,
      answered: facts.answered,
    };
  });
}

/** The view of one stored message (its session is known from where it appears). */
export function messageView(message: StoredMessage): MessageView {
  return {
    id: message.id,
    role: message.role,
    content: message.content,
    tool_calls: message.toolCalls,
    tool_call_id: message.toolCallId,
    tool_name: message.toolName,
    timestamp: message.timestamp,
  };
}

/** `session` and every one of its messages, read from `store`. */
export function sessionWithMessagesView(
  session: SessionRecord,
  store: Pick<SessionStore, "sessionActivity" | "getMessages">,
): SessionWithMessagesView {
  return {
    session: sessionView(session, store),
    messages: store.getMessages(session.id).map(messageView),
  };
}

/** The view of a message inside a search result (see {@link SearchMessage}). */
export function searchMessageView(message: StoredMessage): SearchMessage {
  return {
    id: message.id,
    role: message.role,
    content: message.content,
    ...(message.toolName ? { tool_name: message.toolName } : {}),
    ...(message.toolCalls?.length ? { tool_calls: message.toolCalls } : {}),
    timestamp: isoTime(message.timestamp),
  };
}

/**
 * The view of a discovery hit: with `full` detail the matched message's
 * window and the session's bookends, with `compact` the matched message alone.
 */
export function searchHitView(
  session: SessionRecord,
  matchMessageId: number,
  window: MessageWindow,
  bookends: { start: StoredMessage[]; end: StoredMessage[] },
  detail: HitDetail,
): DiscoveryHit {
  const full = detail === "full";
  return {
    session_id: session.id,
    title: session.title,
    source: session.source,
    started_at: isoTime(session.startedAt),
    detail,
    match_message_id: matchMessageId,
    messages: (full ? [...window.before, window.anchor!, ...window.after] : [window.anchor!])
      .map(searchMessageView),
    messages_before: full ? window.before.length : 0,
    messages_after: full ? window.after.length : 0,
    bookend_start: full ? bookends.start.map(searchMessageView) : [],
    bookend_end: full ? bookends.end.map(searchMessageView) : [],
  };
}

/** The view of a session in a browse listing. */
export function browseSessionView(session: SessionRecord): BrowseSession {
  return {
    id: session.id,
    title: session.title,
    source: session.source,
    started_at: isoTime(session.startedAt),
    ended_at: session.endedAt === null ? null : isoTime(session.endedAt),
    message_count: session.messageCount,
  };
}
