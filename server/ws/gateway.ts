/**
 * The JSON-RPC gateway behind `/api/ws`: one {@link GatewayConnection} per
 * socket, holding the agent sessions the client started. Sessions are
 * assembled exactly as `herald chat` assembles them (openProfileRuntime),
 * and typed lines go through the shared slash registry first. Approvals are
 * decided by core's policy (core/tools/approval_policy.ts) as in the
 * terminal; the gateway only asks the client (server/ws/approvals.ts).
 *
 * Methods (params → result):
 * - `session.start {profile?, resume?}` → `{session_key, session_id, profile, provider, model}`;
 *   `session_id` is null until the first message of a new session is stored.
 * - `session.send {session_key, text}` → one of
 *   `{kind: "turn", session_id, response, tool_calls, aborted, hit_max_turns}` (after the turn),
 *   `{kind: "reply", text}`, `{kind: "set_model", model, text}`, `{kind: "new_session", text}`,
 *   `{kind: "exit", text, session_id, deleted}` (the session is closed; `--delete` deletes it).
 * - `session.interrupt {session_key}` → `{interrupted}`; the partial turn stays stored.
 * - `session.close {session_key, delete?}` → `{closed: true, session_id, deleted}`.
 * - `commands.catalog {session_key?, profile?, prefix?}` → `{commands: [{name, description, kind, marker}]}`.
 * - `setup.runtime_check {profile?}` → `{ready, provider, model, reason?}`.
 * - `approval.respond {id, choice: once|session|always|deny}` → `{ok: true}`.
 *
 * Notifications (server → client): `message.delta {session_key, text}`,
 * `tool.start {session_key, tool_call_id, name, arguments}`,
 * `tool.complete {session_key, tool_call_id, name, ok, summary, duration_ms}`,
 * `message.complete {session_key, session_id, response, tool_calls, aborted, hit_max_turns}`,
 * `message.error {session_key, session_id, code, message}` (the turn failed; the call fails too),
 * `approval.request {id, session_key, tool, command, reason, rule_key, choices, timeout_ms}`,
 * `approval.expire {id, session_key, reason}`, `notice {level, message}`.
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

import { z } from "zod";
import type { AgentEvent, AgentSession, TurnResult } from "../../core/agent/session.ts";
import { createSlashRegistry, readSnapshot, type SlashRegistry } from "../../core/commands/mod.ts";
import { HeraldError } from "../../core/errors.ts";
import { mainProvider, resolveModelSettings } from "../../core/models/settings.ts";
import { type ApprovalNotice, ApprovalPolicy } from "../../core/tools/approval_policy.ts";
import {
  configAlwaysStore,
  ensureProfileHome,
  type ProfilePaths,
} from "../../adapters/home/mod.ts";
import { createSkillCatalog } from "../../adapters/skills/mod.ts";
import { importLazily } from "../../adapters/lazy.ts";
import type { ChatRuntime } from "../../adapters/runtime/profile_runtime.ts";

/**
 * The runtime assembly (tools, agent, skills, model clients) is loaded on the
 * first session or runtime check, so an idle dashboard does not hold it.
 */
function runtimeModule(): Promise<typeof import("../../adapters/runtime/profile_runtime.ts")> {
  // Through a variable: Deno pre-loads the graph behind a literal dynamic import.
  return importLazily("adapters/runtime/profile_runtime.ts");
}
import { ApprovalBroker } from "./approvals.ts";
import {
  CallBudget,
  domainError,
  handleFrame,
  method,
  notification,
  type RpcMethods,
} from "./jsonrpc.ts";
import {
  closeWithCode,
  type LimitedSocket,
  MAX_GATEWAY_SESSIONS,
  MAX_RPC_CALLS_IN_FLIGHT,
  MAX_RPC_MESSAGE_BYTES,
  MAX_SOCKET_BUFFERED_BYTES,
  messageBytesUpTo,
  sendBounded,
  tooBigReason,
  WsCloseCode,
} from "./limits.ts";
import { GOING_AWAY_REASON } from "./live.ts";

/** Surface name stored with sessions started through the gateway. */
export const GATEWAY_SOURCE = "dashboard";

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
  /** How long an approval request waits for an answer before it is denied. */
  approvalTimeoutMs?: number;
}

/** A running turn. */
interface Turn {
  controller: AbortController;
  done: Promise<TurnResult>;
}

/** One session a client started. */
interface GatewaySession {
  key: string;
  runtime: ChatRuntime;
  registry: SlashRegistry;
  session: AgentSession;
  turn?: Turn;
}

const SessionKey = z.string().min(1, "session_key is required");
const ProfileName = z.string().min(1).optional();

const StartParams = z.object({ profile: ProfileName, resume: z.string().min(1).optional() });
const SendParams = z.object({
  session_key: SessionKey,
  text: z.string().refine((text) => text.trim() !== "", "text must not be empty"),
});
const KeyParams = z.object({ session_key: SessionKey });
const CloseParams = z.object({ session_key: SessionKey, delete: z.boolean().optional() });
const CatalogParams = z.object({
  session_key: SessionKey.optional(),
  profile: ProfileName,
  prefix: z.string().optional(),
});
const CheckParams = z.object({ profile: ProfileName });
const RespondParams = z.object({
  id: z.string().min(1),
  choice: z.enum(["once", "session", "always", "deny"]),
});

function newSessionKey(): string {
  const random = crypto.getRandomValues(new Uint8Array(8));
  return `wsk_${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The gateway side of one WebSocket. */
export class GatewayConnection {
  readonly #options: GatewayOptions;
  readonly #sessions = new Map<string, GatewaySession>();
  readonly #approvals: ApprovalBroker;
  readonly #methods: RpcMethods;
  readonly #budget = new CallBudget(MAX_RPC_CALLS_IN_FLIGHT);
  /** Sessions being opened by `session.start`, counted against the session limit. */
  #opening = 0;
  #closed = false;

  /** Creates the connection's state; nothing is opened until `session.start`. */
  constructor(options: GatewayOptions) {
    this.#options = options;
    this.#approvals = new ApprovalBroker((name, params) => this.#notify(name, params));
    this.#methods = {
      "session.start": method(StartParams, (p) => this.#start(p.profile, p.resume)),
      "session.send": method(SendParams, (p) => this.#send(this.#session(p.session_key), p.text)),
      "session.interrupt": method(KeyParams, (p) => ({
        interrupted: this.#interrupt(this.#session(p.session_key)),
      })),
      "session.close": method(CloseParams, async (p) => ({
        closed: true,
        ...(await this.#closeSession(this.#session(p.session_key), p.delete ?? false)),
      })),
      "commands.catalog": method(CatalogParams, (p) => this.#catalog(p)),
      "setup.runtime_check": method(CheckParams, (p) => this.#runtimeCheck(p.profile)),
      "approval.respond": method(RespondParams, (p) => {
        if (!this.#approvals.respond(p.id, p.choice)) {
          throw domainError(
            "approval_not_found",
            `No approval request "${p.id}" is waiting (it was answered, timed out or its turn ended)`,
          );
        }
        return { ok: true };
      }),
    };
  }

  /**
   * Answers one message from the client: a text frame of JSON-RPC. A binary
   * message closes the socket with 1003, one over
   * {@link MAX_RPC_MESSAGE_BYTES} with 1009 (checked before parsing); either
   * way the connection's work ends.
   */
  async receive(data: unknown): Promise<void> {
    if (this.#closed) return;
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
    const answer = await handleFrame(this.#methods, data, { budget: this.#budget });
    if (answer !== undefined) this.#sendText(answer);
  }

  /**
   * The socket closed: pending approvals are denied, running turns aborted
   * (their partial turns stay stored) and every session's store is closed.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#approvals.denyAll();
    await Promise.all(
      [...this.#sessions.values()].map((entry) => this.#closeSession(entry, false)),
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
    closeWithCode(this.#options.socket, code, reason);
    await this.close();
  }

  #sendText(text: string): void {
    if (this.#closed) return;
    if (!sendBounded(this.#options.socket, text, MAX_SOCKET_BUFFERED_BYTES)) {
      // Not reading (closed with 1008 just now) or already closing: stop the work either way.
      this.close().catch(() => {});
    }
  }

  #notify(name: string, params: Record<string, unknown>): void {
    this.#sendText(JSON.stringify(notification(name, params)));
  }

  #session(key: string): GatewaySession {
    const entry = this.#sessions.get(key);
    if (!entry) {
      throw domainError(
        "session_not_found",
        `No open session "${key}" on this connection; start one with session.start`,
      );
    }
    return entry;
  }

  async #start(profile: string | undefined, resume: string | undefined) {
    if (this.#sessions.size + this.#opening >= MAX_GATEWAY_SESSIONS) {
      throw domainError(
        "too_many_sessions",
        `This connection already has ${MAX_GATEWAY_SESSIONS} open sessions (the limit); ` +
          "close one with session.close first",
      );
    }
    this.#opening++;
    try {
      return await this.#open(profile, resume);
    } finally {
      this.#opening--;
    }
  }

  async #open(profile: string | undefined, resume: string | undefined) {
    const paths = await this.#options.resolveProfile(profile);
    await ensureProfileHome(paths);
    const key = newSessionKey();
    const approvals = new ApprovalPolicy({
      ask: (request, options) => this.#approvals.ask(key, request, options),
      store: configAlwaysStore(paths.config),
      safeMode: false,
      timeoutMs: this.#options.approvalTimeoutMs,
      onNotice: (notice) => this.#approvalNotice(notice),
    });
    const runtime = await (await runtimeModule()).openProfileRuntime(paths, {
      safeMode: false,
      source: GATEWAY_SOURCE,
      cwd: this.#options.cwd,
      env: this.#options.env,
      approve: approvals.decide,
      onWarning: (file, message) =>
        this.#notify("notice", { level: "warning", message: `${file}: ${message}` }),
    });
    let session: AgentSession;
    try {
      if (this.#closed) throw domainError("connection_closed", "The connection closed");
      session = resume ? runtime.resume(resume) : runtime.start();
    } catch (error) {
      runtime.close();
      throw error;
    }
    approvals.allow(runtime.config.approvals.allow);
    const registry = createSlashRegistry({ catalog: runtime.catalog });
    this.#sessions.set(key, { key, runtime, registry, session });
    return {
      session_key: key,
      session_id: session.id ?? null,
      profile: paths.name,
      provider: session.client.provider,
      model: session.client.model,
    };
  }

  /** Tells the client what the approval policy decided without its answer. */
  #approvalNotice(notice: ApprovalNotice): void {
    // An expired question was already withdrawn with approval.expire.
    if (notice.code === "expired") return;
    this.#notify("notice", { level: "warning", message: notice.message });
  }

  #requireIdle(entry: GatewaySession): void {
    if (entry.turn) {
      throw domainError(
        "turn_running",
        "A turn is still running in this session; wait for message.complete or call session.interrupt",
      );
    }
  }

  async #send(entry: GatewaySession, text: string) {
    const session = entry.session;
    const outcome = await entry.registry.dispatch(text, {
      sessionId: session.id,
      model: session.client.model,
      provider: session.client.provider,
    });
    if (!outcome) return await this.#turn(entry, text);
    switch (outcome.kind) {
      case "reply":
        return { kind: "reply", text: outcome.text };
      case "send":
        return await this.#turn(entry, outcome.message);
      case "set_model":
        this.#requireIdle(entry);
        session.setClient(entry.runtime.withModel(outcome.model));
        return { kind: "set_model", model: outcome.model, text: outcome.text };
      case "new_session": {
        this.#requireIdle(entry);
        const next = entry.runtime.start();
        next.setClient(session.client);
        entry.session = next;
        return { kind: "new_session", text: outcome.text };
      }
      case "exit":
        return {
          kind: "exit",
          text: outcome.text,
          ...(await this.#closeSession(entry, outcome.deleteSession)),
        };
    }
  }

  async #turn(entry: GatewaySession, text: string) {
    this.#requireIdle(entry);
    const key = entry.key;
    const controller = new AbortController();
    const done = entry.session.send(text, {
      signal: controller.signal,
      onEvent: (event) => this.#onEvent(key, event),
    });
    const turn: Turn = { controller, done };
    entry.turn = turn;
    let result: TurnResult;
    try {
      result = await done;
    } catch (error) {
      const known = error instanceof HeraldError;
      this.#notify("message.error", {
        session_key: key,
        session_id: entry.session.id ?? null,
        code: known ? error.code : "internal_error",
        message: errorMessage(error),
      });
      throw error;
    } finally {
      if (entry.turn === turn) entry.turn = undefined;
    }
    const complete = {
      session_id: result.sessionId,
      response: result.response,
      tool_calls: result.toolCalls,
      aborted: result.aborted,
      hit_max_turns: result.hitMaxTurns,
    };
    this.#notify("message.complete", { session_key: key, ...complete });
    return { kind: "turn", ...complete };
  }

  #onEvent(key: string, event: AgentEvent): void {
    switch (event.type) {
      case "text":
        this.#notify("message.delta", { session_key: key, text: event.delta });
        break;
      case "tool_start":
        this.#notify("tool.start", {
          session_key: key,
          tool_call_id: event.call.id,
          name: event.call.name,
          arguments: event.call.arguments,
        });
        break;
      case "tool_end":
        this.#notify("tool.complete", {
          session_key: key,
          tool_call_id: event.call.id,
          name: event.call.name,
          ok: event.ok,
          summary: event.summary,
          duration_ms: Math.round(event.durationMs),
        });
        break;
      case "model_call":
        break;
    }
  }

  #interrupt(entry: GatewaySession): boolean {
    if (!entry.turn) return false;
    entry.turn.controller.abort();
    this.#approvals.denySession(entry.key);
    return true;
  }

  async #closeSession(entry: GatewaySession, deleteStored: boolean) {
    this.#sessions.delete(entry.key);
    const turn = entry.turn;
    if (turn) {
      this.#interrupt(entry);
      await turn.done.catch(() => {});
    }
    const sessionId = entry.session.id ?? null;
    let deleted = false;
    try {
      if (deleteStored) deleted = await entry.session.deleteStored();
    } finally {
      entry.runtime.close();
    }
    return { session_id: sessionId, deleted };
  }

  async #catalog(params: z.infer<typeof CatalogParams>) {
    let registry: SlashRegistry;
    if (params.session_key !== undefined) {
      registry = this.#session(params.session_key).registry;
    } else {
      const paths = await this.#options.resolveProfile(params.profile);
      registry = createSlashRegistry({ catalog: createSkillCatalog(paths.home) });
    }
    const read = registry.catalog ? await readSnapshot(registry.catalog) : undefined;
    const snapshot = read?.ok ? read.snapshot : undefined;
    return { commands: registry.complete(params.prefix ?? "", snapshot) };
  }

  /**
   * Ready only when the profile's model resolves with a usable credential,
   * through the same code as a session (keyless local providers need a set
   * or known endpoint). Nothing is sent to the provider.
   */
  async #runtimeCheck(profile: string | undefined) {
    const paths = await this.#options.resolveProfile(profile);
    let loaded;
    try {
      loaded = await (await runtimeModule()).loadRuntimeConfig(paths, {
        env: this.#options.env,
        safeMode: false,
        onWarning: () => {},
      });
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      return { ready: false, provider: null, model: null, reason: error.message };
    }
    const { config, credentials } = loaded;
    try {
      const settings = resolveModelSettings(config, credentials);
      return { ready: true, provider: settings.provider, model: settings.model };
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      return {
        ready: false,
        provider: mainProvider(config, credentials) ?? null,
        model: config.model.default?.trim() || null,
        reason: error.message,
      };
    }
  }
}
