/**
 * The state one gateway connection shares with its method handlers
 * (server/ws/methods/): the options the server gave it, the sessions the
 * client started, its event subscriptions, the approval broker and the way
 * to notify the client.
 * Private to server/ws/.
 *
 * @module
 */

import type { Conversation } from "../../core/agent/conversation.ts";
import type { SecretRedactor } from "../../core/agent/preview_secrets.ts";
import type { EventBus } from "../../core/events/mod.ts";
import type { ProfilePaths } from "../../adapters/home/mod.ts";
import type { ApprovalBroker, Notify } from "./approvals.ts";
import { domainError } from "./jsonrpc.ts";
import type { LimitedSocket } from "./limits.ts";

/** What a connection needs from the server. */
export interface GatewayOptions {
  /** The process environment: the credentials fallback after each profile's `.env`. */
  env: Record<string, string | undefined>;
  /**
   * The profile a call names, or the connection's default when it names
   * none. Throws (an ApiError 404) for a profile that does not exist.
   */
  resolveProfile(name: string | undefined): Promise<ProfilePaths>;
  /** The client's WebSocket: answers and notifications go out on it, limits close it. */
  socket: LimitedSocket;
  /** Working directory of the sessions' tools. */
  cwd: string;
  /**
   * The server's event bus: the connection's conversations publish to it,
   * and `events.subscribe` watches it. Absent: nothing is published and
   * there is nothing to watch.
   */
  events?: EventBus;
  /**
   * The profile a pinned dashboard serves; `events.subscribe` without a
   * profile then watches only it (otherwise every profile).
   */
  pinnedProfile?: string;
}

/** One session a client started: a conversation and the key the client names it by. */
export interface GatewaySession {
  key: string;
  conversation: Conversation;
  /** The profile's known secrets, read for each turn: hidden in what its tool calls show. */
  readSecrets(): Promise<SecretRedactor>;
}

/** The state of one connection, owned by the gateway and read by its method handlers. */
export interface GatewayState {
  readonly options: GatewayOptions;
  /** The open sessions, by session key. */
  readonly sessions: Map<string, GatewaySession>;
  readonly approvals: ApprovalBroker;
  /**
   * The open `events.subscribe` subscriptions, each id to the function that
   * ends it; the gateway ends them all when the connection closes.
   */
  readonly subscriptions: Map<string, () => void>;
  /** Sessions being opened by `session.start`, counted against the session limit. */
  opening: number;
  /** Set once the connection closed; no session opens after that. */
  closed: boolean;
  /** Sends a notification to the client. */
  notify: Notify;
}

/** The open session `key`, or a `session_not_found` error. */
export function findSession(state: GatewayState, key: string): GatewaySession {
  const entry = state.sessions.get(key);
  if (!entry) {
    throw domainError(
      "session_not_found",
      `No open session "${key}" on this connection; start one with session.start`,
    );
  }
  return entry;
}
