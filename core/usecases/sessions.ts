/**
 * The stored-session use cases: list, search, show, page through messages,
 * rename, export and delete; and for resuming, the newest session of a
 * directory, the recent sessions a picker offers and a recap of the last
 * exchanges. Each is one function over a profile's
 * {@link SessionData} (its state database and the files beside it);
 * `herald sessions ...` and `/api/sessions...` call them and only render.
 * A profile without a state database has no sessions: reads never create it.
 *
 * @example
 * ```ts
 * const profile = openProfileContext(paths, env);
 * const sessions = await listSessions(profile, { limit: 20 });
 * const { files } = await deleteSession(profile, sessions[0].id);
 * ```
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import { SessionDeleteRefusedError, SessionNotFoundError } from "../sessions/errors.ts";
import { type RecapEntry, type RecapOptions, sessionRecap } from "../sessions/recap.ts";
import {
  SEARCH_DETAILS,
  SEARCH_SORTS,
  searchNoSessions,
  searchSessions,
  type SessionSearchInput,
  type SessionSearchResult,
} from "../sessions/search.ts";
import { INTERNAL_SESSION_SOURCES } from "../sessions/sources.ts";
import type { ListSessionsOptions, SessionRecord, SessionStore } from "../sessions/store.ts";
import { parseSessionTitle } from "../sessions/titles.ts";
import {
  type MessageView,
  messageView,
  type RecentSessionView,
  recentSessionViews,
  type SessionView,
  sessionView,
  sessionViews,
  type SessionWithMessagesView,
  sessionWithMessagesView,
} from "../sessions/views.ts";
import { ToolError } from "../tools/types.ts";
import type { ProfileContext } from "./ports.ts";

/** The `format` of an exported session. */
export const SESSION_EXPORT_FORMAT = "herald.session.v1";

/** Orders of a page of messages: from the first message, or counted back from the newest. */
export const MESSAGE_PAGE_ORDERS = ["oldest", "latest"] as const;

/** One of {@link MESSAGE_PAGE_ORDERS}. */
export type MessagePageOrder = typeof MESSAGE_PAGE_ORDERS[number];

function usage(code: string, message: string): HeraldError {
  return new HeraldError(code, "usage", message);
}

/** `value` when it is one of `choices`, else a usage error naming them. */
function oneOf<T extends string>(
  value: string,
  choices: readonly T[],
  what: string,
): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  const list = `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`;
  throw usage("bad_request", `${what} must be ${list}; got ${JSON.stringify(value)}`);
}

function requireSession(
  profile: ProfileContext,
  store: SessionStore | undefined,
  id: string,
): { store: SessionStore; session: SessionRecord } {
  const session = store?.getSession(id);
  if (!store || !session) throw new SessionNotFoundError(id, profile.name);
  return { store, session };
}

/** Which sessions {@link listSessions} returns. */
export interface ListSessionsRequest {
  /** How many, at most. */
  limit: number;
  /** How many of the newest to skip first. */
  offset?: number;
  /** Only sessions from this surface (`cli`, `dashboard`, `telegram`, ...). */
  source?: string;
  /**
   * Also sessions the model never answered (their first model call failed);
   * without it they are left out, so they do not clutter the list.
   */
  all?: boolean;
}

/**
 * The profile's sessions, newest first, each with a preview of its first
 * user message; sessions the model never answered only with `all`.
 */
export async function listSessions(
  profile: ProfileContext,
  request: ListSessionsRequest,
): Promise<SessionView[]> {
  return await profile.sessions.withStore((store) =>
    store
      ? sessionViews(
        store.listSessions({
          limit: request.limit,
          offset: request.offset,
          source: request.source,
          answeredOnly: !request.all,
        }),
        store,
      )
      : []
  );
}

/** Which sessions the resume use cases ({@link latestSessionIn}, {@link recentSessions}) consider. */
export interface ResumeFilter {
  /**
   * Only sessions from this surface; without it every surface a person
   * uses (sessions Herald ran for itself, INTERNAL_SESSION_SOURCES, are left out).
   */
  source?: string;
  /** Also sessions the model never answered (left out by default). */
  all?: boolean;
}

function resumeOptions(filter: ResumeFilter, cwd: string | undefined): ListSessionsOptions {
  return {
    source: filter.source,
    excludeSources: filter.source === undefined ? INTERNAL_SESSION_SOURCES : [],
    cwd,
    answeredOnly: !filter.all,
  };
}

/**
 * The id of the newest session started in exactly the directory `cwd`
 * (`herald --continue`), or null when there is none. Sessions the model
 * never answered, and sessions Herald ran for itself, are passed over
 * unless `filter` asks for them.
 *
 * @example
 * ```ts
 * const id = await latestSessionIn(profile, "/home/ada/project", { source: "cli" });
 * ```
 */
export async function latestSessionIn(
  profile: ProfileContext,
  cwd: string,
  filter: ResumeFilter = {},
): Promise<string | null> {
  return await profile.sessions.withStore((store) =>
    store?.listSessions({ ...resumeOptions(filter, cwd), limit: 1 })[0]?.id ?? null
  );
}

/**
 * The session `--continue` resumes: the newest one started in `cwd`.
 *
 * @throws HeraldError `no_session_here` (not found) when none was started there.
 */
export async function continueTarget(profile: ProfileContext, cwd: string): Promise<string> {
  const id = await latestSessionIn(profile, cwd);
  if (id === null) {
    throw new HeraldError(
      "no_session_here",
      "not_found",
      `No session was started in ${cwd} yet; start one with \`herald\` (or pick any with \`herald resume\`)`,
    );
  }
  return id;
}

/** Which sessions {@link recentSessions} offers. */
export interface RecentSessionsRequest extends ResumeFilter {
  /** How many, at most. */
  limit: number;
  /** Only sessions started in exactly this directory. */
  cwd?: string;
}

/**
 * The sessions a resume picker offers, newest started first: title, start
 * and last activity, message count, the first line of the first user
 * message and the directory, read in two queries whatever the count.
 * Sessions the model never answered, and sessions Herald ran for itself,
 * are left out unless `request` asks for them.
 *
 * @example
 * ```ts
 * for (const session of await recentSessions(profile, { limit: 20 })) {
 *   console.log(session.title ?? session.first_line);
 * }
 * ```
 */
export async function recentSessions(
  profile: ProfileContext,
  request: RecentSessionsRequest,
): Promise<RecentSessionView[]> {
  return await profile.sessions.withStore((store) =>
    store
      ? recentSessionViews(
        store.listSessions({ ...resumeOptions(request, request.cwd), limit: request.limit }),
        store,
      )
      : []
  );
}

/**
 * The recap a resumed session shows: its last exchanges (default 3), each
 * text at most `maxChars` (default 300) characters (core/sessions/recap.ts).
 *
 * @throws SessionNotFoundError when the profile has no such session.
 */
export async function recapOf(
  profile: ProfileContext,
  sessionId: string,
  options: RecapOptions = {},
): Promise<RecapEntry[]> {
  return await profile.sessions.withStore((found) => {
    const { store } = requireSession(profile, found, sessionId);
    return sessionRecap(store.getMessages(sessionId), options);
  });
}

/** What {@link searchStoredSessions} looks for. */
export interface SessionSearchRequest {
  /** The words to find (FTS5 syntax is made safe). */
  query: string;
  /** Sessions to return (1-10; default 3). */
  limit?: number;
  /** Roles whose messages may match, comma-separated (default `user,assistant`). */
  role?: string;
  /** `relevance` (default), `newest` or `oldest`. */
  sort?: string;
  /** `adaptive` (default: the top hit in full, the others compact) or `full`. */
  detail?: string;
  /** Also find sessions Herald ran for itself (INTERNAL_SESSION_SOURCES); hidden by default. */
  includeInternal?: boolean;
}

/**
 * Finds stored messages: the same discovery search as the agent's
 * `session_search` tool (the top hit with the messages around it, the
 * others compact unless `detail` is `full`; internal sessions hidden unless
 * asked), without the tool's size cap.
 *
 * @throws HeraldError (usage) for a query with no words, a bad role, sort or detail.
 */
export async function searchStoredSessions(
  profile: ProfileContext,
  request: SessionSearchRequest,
): Promise<SessionSearchResult> {
  const query = request.query.trim();
  if (query === "") throw usage("bad_request", "A search needs a query: the words to find");
  const input: SessionSearchInput = {
    query,
    limit: request.limit,
    role_filter: request.role,
    sort: request.sort === undefined || request.sort === ""
      ? undefined
      : oneOf(request.sort, SEARCH_SORTS, "The sort"),
    detail: request.detail === undefined || request.detail === ""
      ? undefined
      : oneOf(request.detail, SEARCH_DETAILS, "The detail"),
    include_internal: request.includeInternal ?? false,
  };
  return await profile.sessions.withStore((store) => {
    try {
      return store ? searchSessions(store, input) : searchNoSessions(input);
    } catch (error) {
      // The search speaks to the model in ToolErrors; to a person they are usage errors.
      if (error instanceof ToolError) throw usage(error.code, error.message);
      throw error;
    }
  });
}

/**
 * One session's summary.
 *
 * @throws SessionNotFoundError when the profile has no such session.
 */
export async function sessionSummary(profile: ProfileContext, id: string): Promise<SessionView> {
  return await profile.sessions.withStore((found) => {
    const { store, session } = requireSession(profile, found, id);
    return sessionView(session, store);
  });
}

/**
 * One session and every one of its messages, in order.
 *
 * @throws SessionNotFoundError when the profile has no such session.
 */
export async function showSession(
  profile: ProfileContext,
  id: string,
): Promise<SessionWithMessagesView> {
  return await profile.sessions.withStore((found) => {
    const { store, session } = requireSession(profile, found, id);
    return sessionWithMessagesView(session, store);
  });
}

/** Which messages {@link sessionMessagesPage} returns. */
export interface MessagesPageRequest {
  /** How many, at most. */
  limit: number;
  /** How many to skip: from the first message (`oldest`) or back from the newest (`latest`). */
  offset: number;
  /** `oldest` (default) or `latest`. */
  order?: string;
  /**
   * A message id: the page is the `limit` messages centred on it (as far as
   * the session's ends allow), and `offset` and `order` are not used.
   */
  around?: number;
}

/** A page of a session's messages, always in time order. */
export interface MessagesPage {
  order: MessagePageOrder;
  /** How many messages the session has. */
  total: number;
  /** The position of the page's first message, counted from the session's first (0). */
  start: number;
  messages: MessageView[];
}

/**
 * A page of a session's messages. With `latest` the offset counts back
 * from the newest message; with `around` the page is centred on that
 * message (a search hit opened in its session). The page itself stays in
 * time order, and `start` says where it begins.
 *
 * @example
 * ```ts
 * const page = await sessionMessagesPage(profile, "ses_abc", { limit: 100, offset: 0, around: 42 });
 * page.messages[page.messages.findIndex((m) => m.id === 42)]; // the message, near the middle
 * ```
 *
 * @throws SessionNotFoundError when the profile has no such session.
 * @throws HeraldError (usage) for an order other than `oldest` or `latest`.
 * @throws HeraldError `message_not_in_session` (not found) for an `around` id the session lacks.
 */
export async function sessionMessagesPage(
  profile: ProfileContext,
  id: string,
  request: MessagesPageRequest,
): Promise<MessagesPage> {
  const order = oneOf(request.order ?? "oldest", MESSAGE_PAGE_ORDERS, "The order");
  return await profile.sessions.withStore((found) => {
    const { store } = requireSession(profile, found, id);
    const all = store.getMessages(id);
    const { limit, offset, around } = request;
    let start: number;
    let end: number;
    if (around !== undefined) {
      const index = all.findIndex((message) => message.id === around);
      if (index < 0) {
        throw new HeraldError(
          "message_not_in_session",
          "not_found",
          `Message ${around} is not in session "${id}"; open the session without it`,
          { details: { session_id: id, message_id: around } },
        );
      }
      start = Math.max(0, Math.min(index - Math.floor(limit / 2), all.length - limit));
      end = start + limit;
    } else {
      end = order === "latest" ? Math.max(0, all.length - offset) : offset + limit;
      start = order === "latest" ? Math.max(0, end - limit) : offset;
    }
    return {
      order,
      total: all.length,
      start: Math.min(start, all.length),
      messages: all.slice(start, end).map(messageView),
    };
  });
}

/** A session with every message, in the `herald.session.v1` format. */
export interface SessionExport extends SessionWithMessagesView {
  format: typeof SESSION_EXPORT_FORMAT;
}

/**
 * A session and all its messages as `herald.session.v1`, for backups and other tools.
 *
 * @throws SessionNotFoundError when the profile has no such session.
 */
export async function exportSession(profile: ProfileContext, id: string): Promise<SessionExport> {
  return { format: SESSION_EXPORT_FORMAT, ...(await showSession(profile, id)) };
}

/**
 * Gives a session a title (`herald sessions rename`, `PATCH /api/sessions/:id`,
 * and, by the same store rule, `/title` in a chat). Titles are unique within
 * the profile, ignoring ASCII case; surrounding whitespace is dropped.
 *
 * @example
 * ```ts
 * const view = await renameSession(profile, "ses_abc", "Fix the deploy");
 * view.title; // "Fix the deploy"
 * ```
 *
 * @throws SessionTitleInvalidError for an empty, multi-line or over-long title.
 * @throws SessionTitleTakenError (naming the other session) for a title in use.
 * @throws SessionNotFoundError when the profile has no such session.
 */
export async function renameSession(
  profile: ProfileContext,
  id: string,
  title: string,
): Promise<SessionView> {
  const checked = parseSessionTitle(title);
  return await profile.sessions.withStore((found) => {
    const { store } = requireSession(profile, found, id);
    return sessionView(store.updateSession(id, { title: checked }), store);
  });
}

/** What {@link deleteSession} removed. */
export interface DeletedSession {
  /** The session's id. */
  deleted: string;
  /** How many files (transcript, request dumps) went with it. */
  files: number;
}

/** Options of {@link deleteSession}. */
export interface DeleteSessionOptions {
  /**
   * Asks a person to confirm, once the session is known to exist (the
   * database is not held open meanwhile); false keeps the session.
   */
  confirm?: (session: SessionView) => Promise<boolean>;
}

/**
 * Deletes a session: its rows and messages, its transcript and its request dumps.
 *
 * @throws SessionNotFoundError when the profile has no such session.
 * @throws SessionDeleteRefusedError (`session_delete_cancelled`) when `confirm` said no.
 */
export async function deleteSession(
  profile: ProfileContext,
  id: string,
  options: DeleteSessionOptions = {},
): Promise<DeletedSession> {
  if (options.confirm) {
    const session = await sessionSummary(profile, id);
    if (!(await options.confirm(session))) {
      throw new SessionDeleteRefusedError(id, "session_delete_cancelled");
    }
  }
  return await profile.sessions.withStore(async (found) => {
    const { store } = requireSession(profile, found, id);
    store.deleteSession(id);
    return { deleted: id, files: await profile.sessions.files.deleteSessionFiles(id) };
  });
}
