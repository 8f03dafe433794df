/**
 * The shapes the Sessions page reads from `/api/sessions...` (the views in
 * core/sessions/views.ts, as JSON).
 */

/** A session summary (`GET /api/sessions`, `GET /api/sessions/:id`). */
export interface SessionSummary {
  id: string;
  source: string;
  model: string | null;
  title: string | null;
  preview: string | null;
  cwd: string | null;
  answered: boolean;
  started_at: number;
  last_active: number;
  ended_at: number | null;
  message_count: number;
  tool_call_count: number;
}

/** The role of a stored message. */
export type MessageRole = "system" | "user" | "assistant" | "tool";

/** A stored message (`GET /api/sessions/:id/messages`). */
export interface StoredMessage {
  id: number;
  role: MessageRole;
  content: string | null;
  tool_calls: unknown[] | null;
  tool_call_id: string | null;
  tool_name: string | null;
  timestamp: number;
}

/** A page of a session's messages, in time order. */
export interface MessagesPage {
  total: number;
  /** The position of the page's first message in the session. */
  start: number;
  messages: StoredMessage[];
}

/** A message inside a search hit (time as ISO 8601). */
export interface SearchMessage {
  id: number;
  role: MessageRole;
  content: string | null;
  tool_name?: string;
  timestamp: string;
}

/** One session found by a search, with the match in context. */
export interface SearchHit {
  session_id: string;
  title: string | null;
  source: string;
  started_at: string;
  detail: "full" | "compact";
  match_message_id: number;
  messages: SearchMessage[];
  messages_before: number;
  messages_after: number;
  bookend_start: SearchMessage[];
  bookend_end: SearchMessage[];
}

/** `GET /api/sessions/search` (the discovery shape). */
export interface SearchAnswer {
  shape: "discovery";
  query: string;
  count: number;
  results: SearchHit[];
}
