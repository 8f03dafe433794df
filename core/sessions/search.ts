/**
 * Session search over the stored conversations, in three shapes inferred
 * from the arguments (there is no mode parameter):
 *
 * - discovery (`query`): full-text hits, one per session. With the default
 *   `adaptive` detail the top hit is `full` (the 5 messages before and after
 *   the match and the session's first and last 3 user/assistant messages)
 *   and the others `compact` (the matching message alone); `detail: "full"`
 *   gives every hit in full;
 * - scroll (`session_id` + `around_message_id`): a window centred on one
 *   message; page by re-anchoring on the first or last id of a window (the
 *   boundary message appears in both windows);
 * - browse (no arguments): recent sessions in chronological order.
 *
 * Browse and discovery leave out the sessions Herald runs for itself
 * ({@link INTERNAL_SESSION_SOURCES}) unless `include_internal` is set. Times
 * are ISO 8601 strings. Content comes back byte-for-byte from the database
 * unless a size cap is given (the `session_search` tool caps at
 * {@link MAX_SEARCH_RESULT_BYTES}): then long messages are cut (and marked
 * `truncated`), and the least useful parts go first until the JSON fits.
 * No model is called. Used by the `session_search` tool,
 * `herald sessions search` and `/api/sessions/search`.
 *
 * @module
 */

import { z } from "zod";
import { ToolError } from "../tools/types.ts";
import { fitSearchResult } from "./_fit.ts";
import { toFtsQuery } from "./fts_query.ts";
import { INTERNAL_SESSION_SOURCES } from "./sources.ts";
import { MESSAGE_ROLES, type MessageRole, type SessionStore } from "./store.ts";
import {
  browseSessionView,
  searchHitView,
  searchMessageView,
  type SessionSearchResult,
} from "./views.ts";

export type {
  BrowseSession,
  CutResult,
  DiscoveryHit,
  HitDetail,
  SearchMessage,
  SessionSearchResult,
} from "./views.ts";

/** Messages on each side of a discovery match. */
export const DISCOVERY_WINDOW = 5;
/** User and assistant messages at each end of a session in a discovery result. */
export const BOOKEND_COUNT = 3;
/** Default and largest scroll half-window. */
export const SCROLL_WINDOW = 5;
/** The most JSON (in UTF-8 bytes) the `session_search` tool hands the model at once. */
export const MAX_SEARCH_RESULT_BYTES = 12 * 1024;
const MAX_SCROLL_WINDOW = 20;
const DEFAULT_DISCOVERY_LIMIT = 3;
const MAX_DISCOVERY_LIMIT = 10;
const DEFAULT_BROWSE_LIMIT = 10;
const MAX_BROWSE_LIMIT = 50;
const DEFAULT_ROLES: readonly MessageRole[] = ["user", "assistant"];
const BOOKEND_ROLES: readonly MessageRole[] = ["user", "assistant"];

/** How much detail discovery gives: `adaptive` (the top hit full, the rest compact) or `full`. */
export const SEARCH_DETAILS = ["adaptive", "full"] as const;

/** One of {@link SEARCH_DETAILS}. */
export type SearchDetail = typeof SEARCH_DETAILS[number];

/** Orders of discovery: `relevance` (FTS5 rank), `newest` or `oldest` match first. */
export const SEARCH_SORTS = ["relevance", "newest", "oldest"] as const;

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
  sort: z.enum(SEARCH_SORTS).optional().describe(
    "Discovery order: relevance (default), newest or oldest match first. Browse: oldest first (default) or newest.",
  ),
  window: z.number().optional().describe(
    "Scroll: messages on each side of the anchor (default 5, max 20).",
  ),
  detail: z.enum(SEARCH_DETAILS).optional().describe(
    "Discovery: adaptive (default: the top hit with the messages around it and the session's first and last exchanges, the others with the matching message only) or full (every hit in full).",
  ),
  include_internal: z.boolean().optional().describe(
    `Browse and discovery: also show sessions Herald ran for itself (${
      INTERNAL_SESSION_SOURCES.join(", ")
    }); hidden by default.`,
  ),
});

/** Parsed arguments of a session search. */
export type SessionSearchInput = z.infer<typeof SessionSearchArgs>;

/** Options of {@link searchSessions} that are not the searcher's arguments. */
export interface SearchSessionsOptions {
  /** The caller's live session, never returned as a hit nor listed. */
  currentSessionId?: string;
  /** Cut the result until its JSON takes at most this many UTF-8 bytes (no cap without it). */
  maxBytes?: number;
}

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

function hiddenSources(input: SessionSearchInput): readonly string[] {
  return input.include_internal ? [] : INTERNAL_SESSION_SOURCES;
}

function discovery(
  store: SessionStore,
  input: SessionSearchInput,
  currentSessionId?: string,
): SessionSearchResult {
  const { ftsQuery, roles } = discoveryTerms(input);
  const limit = clamp(input.limit, DEFAULT_DISCOVERY_LIMIT, MAX_DISCOVERY_LIMIT);
  const order = input.sort ?? "relevance";
  const excludeSources = hiddenSources(input);
  // One hit per session: take ranked candidates until enough distinct sessions appear.
  const picked = new Map<string, { messageId: number; score: number }>();
  for (let candidates = 50 * limit;; candidates *= 10) {
    let hits;
    try {
      hits = store.searchHits(ftsQuery, {
        roles,
        excludeSessionId: currentSessionId,
        excludeSources,
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
  const full = input.detail === "full";
  const results = [...picked].map(([sessionId, hit], rank) => {
    const session = store.getSession(sessionId)!;
    const detail = full || rank === 0 ? "full" : "compact";
    const around = detail === "full" ? DISCOVERY_WINDOW : 0;
    const window = store.messagesAround(sessionId, hit.messageId, around, around);
    const bookends = detail === "full"
      ? store.bookends(sessionId, BOOKEND_COUNT, BOOKEND_ROLES)
      : { start: [], end: [] };
    return searchHitView(session, hit.messageId, window, bookends, detail);
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
  const recent = store.listSessions({ limit: limit + 1, excludeSources: hiddenSources(input) })
    .filter((session) => session.id !== currentSessionId)
    .slice(0, limit);
  const ordered = input.sort === "newest" ? recent : recent.reverse();
  return { shape: "browse", count: ordered.length, sessions: ordered.map(browseSessionView) };
}

/**
 * Runs a session search. Bad input throws {@link ToolError} with a message
 * for the model; nothing else is thrown for user-caused problems.
 *
 * @example
 * ```ts
 * const found = searchSessions(store, { query: "deploy" }, { maxBytes: MAX_SEARCH_RESULT_BYTES });
 * ```
 *
 * @param options the caller's live session (never a hit) and the size cap.
 */
export function searchSessions(
  store: SessionStore,
  input: SessionSearchInput,
  options: SearchSessionsOptions = {},
): SessionSearchResult {
  const { currentSessionId, maxBytes } = options;
  const shape = shapeOf(input);
  const result = shape === "scroll"
    ? scroll(store, input)
    : shape === "discovery"
    ? discovery(store, input, currentSessionId)
    : browse(store, input, currentSessionId);
  return maxBytes === undefined ? result : fitSearchResult(result, maxBytes);
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
