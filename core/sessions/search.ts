/**
 * Session search over the stored conversations, in three shapes inferred
 * from the arguments (there is no mode parameter):
 *
 * - discovery (`query`): full-text hits, each with the 5 messages before and
 *   after the match and the session's first and last 3 user/assistant
 *   messages;
 * - scroll (`session_id` + `around_message_id`): a window centred on one
 *   message; page by re-anchoring on the first or last id of a window (the
 *   boundary message appears in both windows);
 * - browse (no arguments): recent sessions in chronological order.
 *
 * Content comes back byte-for-byte from the database; no model is called.
 * Used by the `session_search` tool and `herald sessions search`.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../tools/types.ts";
import { toFtsQuery } from "./fts_query.ts";
import { MESSAGE_ROLES, type MessageRole, type SessionStore } from "./store.ts";
import {
  type DiscoveryHit,
  searchHitView,
  type SearchMessage,
  searchMessageView,
} from "./views.ts";

export type { DiscoveryHit, SearchMessage } from "./views.ts";

/** Messages on each side of a discovery match. */
export const DISCOVERY_WINDOW = 5;
/** User and assistant messages at each end of a session in a discovery result. */
export const BOOKEND_COUNT = 3;
/** Default and largest scroll half-window. */
export const SCROLL_WINDOW = 5;
const MAX_SCROLL_WINDOW = 20;
const DEFAULT_DISCOVERY_LIMIT = 3;
const MAX_DISCOVERY_LIMIT = 10;
const DEFAULT_BROWSE_LIMIT = 10;
const MAX_BROWSE_LIMIT = 50;
const DEFAULT_ROLES: readonly MessageRole[] = ["user", "assistant"];
const BOOKEND_ROLES: readonly MessageRole[] = ["user", "assistant"];

/** Arguments of the `session_search` tool. */
export const SessionSearchArgs = z.object({
  query: z.string().optional().describe(
    "Words to find in past conversations (discovery). Terms are ANDed; use OR for alternatives, quotes for phrases, word* for prefixes.",
  ),
  session_id: z.string().optional().describe(
    "With around_message_id: the session to scroll in (scroll).",
  ),
  around_message_id: z.union([z.number(), z.string()]).optional().describe(
    "With session_id: the message id to centre the window on. To page, re-anchor on the first or last id of the previous window.",
  ),
  limit: z.number().optional().describe(
    "Discovery: sessions to return (default 3, max 10). Browse: sessions to list (default 10, max 50).",
  ),
  role_filter: z.union([z.string(), z.array(z.string())]).optional().describe(
    'Discovery: roles whose messages may match, e.g. "user,assistant" (default) or "tool".',
  ),
  sort: z.enum(["relevance", "newest", "oldest"]).optional().describe(
    "Discovery order: relevance (default), newest or oldest match first. Browse: oldest first (default) or newest.",
  ),
  window: z.number().optional().describe(
    "Scroll: messages on each side of the anchor (default 5, max 20).",
  ),
});

/** Parsed arguments of a session search. */
export type SessionSearchInput = z.infer<typeof SessionSearchArgs>;

function clamp(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(1, Math.trunc(value)));
}

function parseRoles(filter: string | string[] | undefined): MessageRole[] {
  if (filter === undefined) return [...DEFAULT_ROLES];
  const names = (Array.isArray(filter) ? filter : filter.split(","))
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((name) => !MESSAGE_ROLES.includes(name as MessageRole));
  if (unknown.length > 0 || names.length === 0) {
    throw new ToolError(
      "bad_role_filter",
      `role_filter must list roles from ${MESSAGE_ROLES.join(", ")}; got "${
        [filter].flat().join(",")
      }"`,
    );
  }
  return names as MessageRole[];
}

function parseMessageId(value: number | string): number {
  const id = typeof value === "number" ? value : Number(value.trim());
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new ToolError(
      "bad_message_id",
      `around_message_id must be a positive whole number; got ${JSON.stringify(value)}`,
    );
  }
  return id;
}

function unknownSession(id: string): ToolError {
  return new ToolError(
    "unknown_session",
    `No session "${id}"; use session_search with no arguments to list sessions, or a query to find one`,
  );
}

function requireSession(store: SessionStore, id: string) {
  const session = store.getSession(id);
  if (!session) throw unknownSession(id);
  return session;
}

/** What a session search returns, by shape. */
export type SessionSearchResult =
  | { shape: "discovery"; query: string | undefined; count: number; results: DiscoveryHit[] }
  | {
    shape: "scroll";
    session_id: string;
    around_message_id?: number;
    messages: SearchMessage[];
    messages_before: number;
    messages_after: number;
    at_start?: boolean;
    at_end?: boolean;
  }
  | {
    shape: "browse";
    count: number;
    sessions: {
      id: string;
      title: string | null;
      source: string;
      started_at: number;
      ended_at: number | null;
      message_count: number;
    }[];
  };

/** The FTS5 query and roles of a discovery search, checked. */
function discoveryTerms(input: SessionSearchInput): { ftsQuery: string; roles: MessageRole[] } {
  const ftsQuery = toFtsQuery(input.query ?? "");
  if (ftsQuery === "") {
    throw new ToolError(
      "unusable_query",
      `The query ${JSON.stringify(input.query)} has no words to search for`,
    );
  }
  return { ftsQuery, roles: parseRoles(input.role_filter) };
}

function discovery(
  store: SessionStore,
  input: SessionSearchInput,
  currentSessionId?: string,
): SessionSearchResult {
  const { ftsQuery, roles } = discoveryTerms(input);
  const limit = clamp(input.limit, DEFAULT_DISCOVERY_LIMIT, MAX_DISCOVERY_LIMIT);
  const order = input.sort ?? "relevance";
  // One hit per session: take ranked candidates until enough distinct sessions appear.
  const picked = new Map<string, { messageId: number; score: number }>();
  for (let candidates = 50 * limit;; candidates *= 10) {
    let hits;
    try {
      hits = store.searchHits(ftsQuery, {
        roles,
        excludeSessionId: currentSessionId,
        order,
        candidates,
      });
    } catch (error) {
      throw new ToolError(
        "unusable_query",
        `The query could not be searched: ${(error as Error).message}`,
      );
    }
    picked.clear();
    for (const hit of hits) {
      if (!picked.has(hit.sessionId)) picked.set(hit.sessionId, hit);
      if (picked.size === limit) break;
    }
    if (picked.size === limit || hits.length < candidates || candidates >= 100_000) break;
  }
  const results = [...picked].map(([sessionId, hit]) => {
    const session = store.getSession(sessionId)!;
    const window = store.messagesAround(
      sessionId,
      hit.messageId,
      DISCOVERY_WINDOW,
      DISCOVERY_WINDOW,
    );
    const bookends = store.bookends(sessionId, BOOKEND_COUNT, BOOKEND_ROLES);
    return searchHitView(session, hit.messageId, window, bookends);
  });
  return { shape: "discovery", query: input.query, count: results.length, results };
}

function scroll(store: SessionStore, input: SessionSearchInput): SessionSearchResult {
  const sessionId = input.session_id!;
  requireSession(store, sessionId);
  const half = clamp(input.window, SCROLL_WINDOW, MAX_SCROLL_WINDOW);
  let anchorId: number;
  if (input.around_message_id === undefined) {
    const first = store.getMessages(sessionId, { limit: 1 })[0];
    if (!first) {
      return {
        shape: "scroll",
        session_id: sessionId,
        messages: [],
        messages_before: 0,
        messages_after: 0,
      };
    }
    anchorId = first.id;
  } else {
    anchorId = parseMessageId(input.around_message_id);
  }
  const window = store.messagesAround(sessionId, anchorId, half, half);
  if (!window.anchor) {
    throw new ToolError(
      "message_not_in_session",
      `Message ${anchorId} is not in session "${sessionId}"; anchor on an id returned for that session`,
    );
  }
  return {
    shape: "scroll",
    session_id: sessionId,
    around_message_id: anchorId,
    messages: [...window.before, window.anchor, ...window.after].map(searchMessageView),
    messages_before: window.before.length,
    messages_after: window.after.length,
    at_start: window.before.length < half,
    at_end: window.after.length < half,
  };
}

function browse(
  store: SessionStore,
  input: SessionSearchInput,
  currentSessionId?: string,
): SessionSearchResult {
  const limit = clamp(input.limit, DEFAULT_BROWSE_LIMIT, MAX_BROWSE_LIMIT);
  const recent = store.listSessions({ limit: limit + 1 })
    .filter((session) => session.id !== currentSessionId)
    .slice(0, limit);
  const ordered = input.sort === "newest" ? recent : recent.reverse();
  return {
    shape: "browse",
    count: ordered.length,
    sessions: ordered.map((session) => ({
      id: session.id,
      title: session.title,
      source: session.source,
      started_at: session.startedAt,
      ended_at: session.endedAt,
      message_count: session.messageCount,
    })),
  };
}

/**
 * Runs a session search. Bad input throws {@link ToolError} with a message
 * for the model; nothing else is thrown for user-caused problems.
 *
 * @param currentSessionId the caller's live session, never returned as a hit.
 */
export function searchSessions(
  store: SessionStore,
  input: SessionSearchInput,
  currentSessionId?: string,
): SessionSearchResult {
  const shape = shapeOf(input);
  if (shape === "scroll") return scroll(store, input);
  if (shape === "discovery") return discovery(store, input, currentSessionId);
  return browse(store, input, currentSessionId);
}

/**
 * The answer of {@link searchSessions} where nothing is stored at all (a
 * profile without a state database): the input is checked the same way,
 * and the result is empty.
 *
 * @example
 * ```ts
 * searchNoSessions({ query: "deploy" }); // { shape: "discovery", query: "deploy", count: 0, results: [] }
 * ```
 */
export function searchNoSessions(input: SessionSearchInput): SessionSearchResult {
  const shape = shapeOf(input);
  if (shape === "scroll") throw unknownSession(input.session_id!);
  if (shape === "discovery") {
    discoveryTerms(input);
    return { shape: "discovery", query: input.query, count: 0, results: [] };
  }
  return { shape: "browse", count: 0, sessions: [] };
}

/** Which search the arguments ask for. */
function shapeOf(input: SessionSearchInput): SessionSearchResult["shape"] {
  if (input.around_message_id !== undefined && !input.session_id) {
    throw new ToolError(
      "missing_session_id",
      "around_message_id needs session_id (the session it belongs to)",
    );
  }
  if (input.session_id) return "scroll";
  if (input.query !== undefined && input.query.trim() !== "") return "discovery";
  return "browse";
}
