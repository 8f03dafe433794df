/**
 * The JSON-RPC gateway behind `/api/ws`: one {@link GatewayConnection} per
 * socket, holding the agent sessions the client started. The connection
 * owns the socket's lifecycle (receive, limits, close, going away); the
 * methods are one handler map per domain in server/ws/methods/, merged here
 * over the connection's shared state, and answered by core's JSON-RPC peer
 * (core/rpc/peer.ts) with WebSocket text frames as its framing. Each session
 * is a conversation object (core/agent/conversation.ts) over the runtime
 * `herald chat` uses (adapters/runtime/agent_runtime.ts), so slash commands
 * and their outcomes are the terminal's. Approvals are decided by core's
 * policy as in the terminal; the gateway only asks the client
 * (server/ws/approvals.ts).
 *
 * Methods (params → result):
 * - `session.start {profile?, resume?}` → `{session_key, session_id, profile, provider, model}`;
 *   `session_id` is null until the first message of a new session is stored.
 * - `session.send {session_key, text}` → one of
 *   `{kind: "turn", session_id, response, tool_calls, aborted, hit_max_turns, stopped?}` (after
 *   the turn), `{kind: "reply", text}`, `{kind: "set_model", model, provider?, text}` (`provider`
 *   when the switch named one), `{kind: "new_session", text}`,
 *   `{kind: "exit", text, session_id, deleted}` (the session is closed; `--delete` deletes it).
 * - `session.interrupt {session_key}` → `{interrupted}`; the partial turn stays stored.
 * - `session.close {session_key, delete?}` → `{closed: true, session_id, deleted}`.
 * - `commands.catalog {session_key?, profile?, prefix?}` → `{commands: [{name, description, kind, marker}]}`.
 * - `setup.runtime_check {profile?}` → `{ready, provider, model, reason?}`.
 * - `approval.respond {id, choice: once|session|always|deny}` → `{ok: true}`.
 * - `events.subscribe {profile?, types?, session_id?}` → `{subscription_id}`; the server's
 *   event bus, seen as `event` notifications (server/ws/methods/events.ts).
 * - `events.unsubscribe {subscription_id}` → `{unsubscribed}`.
 *
 * Notifications (server → client):
 * `message.start {session_key, session_id}` (a turn begins, before its first delta),
 * `message.delta {session_key, text}`,
 * `tool.start {session_key, tool_call_id, name, arguments}`,
 * `tool.complete {session_key, tool_call_id, name, ok, summary, duration_ms, failure}`,
 * `message.complete {session_key, session_id, response, tool_calls, aborted, hit_max_turns,
 * stopped?}` (`stopped: "tool_loop"` when the loop guard ended the turn early),
 * `message.error {session_key, session_id, code, message}` (the turn failed; the call fails too),
 * `approval.request {id, session_key, tool, command, reason, rule_key, choices, timeout_ms}`,
 * `approval.expire {id, session_key, reason}`,
 * `notice {level, code?, session_key?, message}` (`code` and `session_key` on a turn's notices:
 * `compressed`, `compression_failed`, `context_length_unknown`, `tool_loop`, `model_fallback`,
 * `model_key_rotated`, `model_switch_failed`), and
 * `event {subscription_id, dropped, event}` for each event a subscription receives.
 *
 * The socket is one framing of core's JSON-RPC peer (core/rpc/peer.ts):
 * each text frame is one message (a request or a batch), handed to the
 * peer once its size is checked; the peer's answers and notifications go
 * out through {@link sendBounded}.
 *
 * Limits (server/ws/limits.ts): a message is one text frame of at most
 * {@link MAX_RPC_MESSAGE_BYTES} (larger: close 1009, unparsed; binary:
 * close 1003), at most {@link MAX_RPC_CALLS_IN_FLIGHT} calls run or wait per
 * connection, at most {@link MAX_GATEWAY_SESSIONS} sessions stay open, and a
 * client that stops reading is cut off (close 1008) once
 * {@link MAX_SOCKET_BUFFERED_BYTES} wait to be sent to it. Whenever the
 * server closes the socket, the connection's work ends at once, as in
 * {@link GatewayConnection.close}; a dashboard that stops closes it with
 * 1001 ({@link GatewayConnection.goAway}).
 *
 * @module
 */

import type { GatewayOptions, GatewayState } from "./_gateway_state.ts";
import { ApprovalBroker } from "./approvals.ts";
import { RpcPeer } from "../../core/rpc/mod.ts";
import { CallBudget, describeServerError, type RpcMethods } from "./jsonrpc.ts";
import {
  closeWithCode,
  MAX_RPC_CALLS_IN_FLIGHT,
  MAX_RPC_MESSAGE_BYTES,
  MAX_SOCKET_BUFFERED_BYTES,
  messageBytesUpTo,
  sendBounded,
  tooBigReason,
  WsCloseCode,
} from "./limits.ts";
import { GOING_AWAY_REASON } from "./live.ts";
import {
  approvalMethods,
  closeSession,
  commandMethods,
  eventMethods,
  sessionMethods,
  setupMethods,
} from "./methods/mod.ts";

export type { GatewayOptions } from "./_gateway_state.ts";

/** The gateway side of one WebSocket. */
export class GatewayConnection {
  readonly #state: GatewayState;
  readonly #methods: RpcMethods;
  readonly #peer: RpcPeer;

  /** Creates the connection's state; nothing is opened until `session.start`. */
  constructor(options: GatewayOptions) {
    const notify = (name: string, params: Record<string, unknown>) => this.#notify(name, params);
    this.#state = {
      options,
      sessions: new Map(),
      subscriptions: new Map(),
      approvals: new ApprovalBroker(notify),
      opening: 0,
      closed: false,
      notify,
    };
    this.#methods = {
      ...sessionMethods(this.#state),
      ...commandMethods(this.#state),
      ...setupMethods(this.#state),
      ...approvalMethods(this.#state),
      ...eventMethods(this.#state),
    };
    // The peer frames nothing itself: each text frame goes to receive(), each answer to #sendText.
    this.#peer = new RpcPeer({ send: (text) => this.#sendText(text) }, {
      methods: this.#methods,
      budget: new CallBudget(MAX_RPC_CALLS_IN_FLIGHT),
      describeError: describeServerError,
    });
  }

  /**
   * Answers one message from the client: a text frame of JSON-RPC. A binary
   * message closes the socket with 1003, one over
   * {@link MAX_RPC_MESSAGE_BYTES} with 1009 (checked before parsing); either
   * way the connection's work ends.
   */
  async receive(data: unknown): Promise<void> {
    if (this.#state.closed) return;
    if (typeof data !== "string") {
      return await this.#refuse(
        WsCloseCode.unsupportedData,
        "JSON-RPC goes in text frames; binary frames are not accepted",
      );
    }
    if (messageBytesUpTo(data, MAX_RPC_MESSAGE_BYTES) > MAX_RPC_MESSAGE_BYTES) {
      return await this.#refuse(
        WsCloseCode.messageTooBig,
        tooBigReason("Message", MAX_RPC_MESSAGE_BYTES),
      );
    }
    await this.#peer.receive(data);
  }

  /**
   * The socket closed: event subscriptions end, pending approvals are
   * denied, running turns aborted (their partial turns stay stored) and
   * every session's store is closed.
   */
  async close(): Promise<void> {
    const state = this.#state;
    if (state.closed) return;
    state.closed = true;
    this.#peer.close();
    for (const unsubscribe of state.subscriptions.values()) unsubscribe();
    state.subscriptions.clear();
    state.approvals.denyAll();
    await Promise.all(
      [...state.sessions.values()].map((entry) => closeSession(state, entry, false)),
    );
  }

  /**
   * The dashboard is stopping: closes the socket with 1001 (going away),
   * aborts running turns (their partial turns stay stored) and closes every
   * session, as {@link close} does.
   */
  goAway(): Promise<void> {
    return this.#refuse(WsCloseCode.goingAway, GOING_AWAY_REASON);
  }

  /** Closes the socket with `code` and ends the connection's work. */
  async #refuse(code: number, reason: string): Promise<void> {
    closeWithCode(this.#state.options.socket, code, reason);
    await this.close();
  }

  #sendText(text: string): void {
    if (this.#state.closed) return;
    if (!sendBounded(this.#state.options.socket, text, MAX_SOCKET_BUFFERED_BYTES)) {
      // Not reading (closed with 1008 just now) or already closing: stop the work either way.
      this.close().catch(() => {});
    }
  }

  #notify(name: string, params: Record<string, unknown>): void {
    if (this.#state.closed) return;
    this.#peer.notify(name, params).catch(() => {});
  }
}
