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
  SessionRecord,
  SessionStore,
  StoredMessage,
} from "./store.ts";

/** Longest preview (the first user message, whitespace folded) in a session view. */
export const PREVIEW_CHARS = 160;

/** A session summary: the row, its counters and a preview of its first user message. */
export interface SessionView {
  id: string;
  source: string;
  model: string | null;
  title: string | null;
  preview: string | null;
  started_at: number;
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
 * A message inside a search result. The keys are those of {@link MessageView};
 * empty tool fields are left out, because the agent's `session_search` tool
 * returns the same objects to the model and every token counts there.
 */
export interface SearchMessage {
  id: number;
  role: MessageRole;
  content: string | null;
  tool_name?: string;
  tool_calls?: unknown[];
  timestamp: number;
}

/** A search hit: one session found by discovery, with the match in context. */
export interface DiscoveryHit {
  session_id: string;
  title: string | null;
  source: string;
  started_at: number;
  match_message_id: number;
  /** The window: up to 5 before, the match, up to 5 after. */
  messages: SearchMessage[];
  messages_before: number;
  messages_after: number;
  bookend_start: SearchMessage[];
  bookend_end: SearchMessage[];
}

/** The first user message of a session, whitespace folded and cut to {@link PREVIEW_CHARS}. */
export function sessionPreview(store: Pick<SessionStore, "bookends">, id: string): string | null {
  const first = store.bookends(id, 1, ["user"]).start[0]?.content;
  if (!first) return null;
  const flat = first.replace(/\s+/g, " ").trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 1)}…` : flat;
}

/** The summary view of `session`; `store` supplies the preview. */
export function sessionView(
  session: SessionRecord,
  store: Pick<SessionStore, "bookends">,
): SessionView {
  return {
    id: session.id,
    source: session.source,
    model: session.model,
    title: session.title,
    preview: sessionPreview(store, session.id),
    started_at: session.startedAt,
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
  store: Pick<SessionStore, "bookends" | "getMessages">,
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
    timestamp: message.timestamp,
  };
}

/** The view of a discovery hit: the matched message's window and the session's bookends. */
export function searchHitView(
  session: SessionRecord,
  matchMessageId: number,
  window: MessageWindow,
  bookends: { start: StoredMessage[]; end: StoredMessage[] },
): DiscoveryHit {
  return {
    session_id: session.id,
    title: session.title,
    source: session.source,
    started_at: session.startedAt,
    match_message_id: matchMessageId,
    messages: [...window.before, window.anchor!, ...window.after].map(searchMessageView),
    messages_before: window.before.length,
    messages_after: window.after.length,
    bookend_start: bookends.start.map(searchMessageView),
    bookend_end: bookends.end.map(searchMessageView),
  };
}
