/**
 * The gateway's session methods: `session.start`, `session.send`,
 * `session.interrupt` and `session.close` (params and results in
 * server/ws/gateway.ts). Sessions are assembled exactly as `herald chat`
 * assembles them (openProfileRuntime), and typed lines go through the
 * shared slash registry first. A turn streams `message.delta`, `tool.start`
 * and `tool.complete`, and ends with `message.complete` or `message.error`.
 *
 * @module
 */

import { z } from "zod";
import type { AgentEvent, AgentSession, TurnResult } from "../../../core/agent/session.ts";
import { createSlashRegistry } from "../../../core/commands/mod.ts";
import { HeraldError } from "../../../core/errors.ts";
import { type ApprovalNotice, ApprovalPolicy } from "../../../core/tools/approval_policy.ts";
import { configAlwaysStore, ensureProfileHome } from "../../../adapters/home/mod.ts";
import {
  findSession,
  type GatewaySession,
  type GatewayState,
  runtimeModule,
  type Turn,
} from "../_gateway_state.ts";
import { domainError, method, type RpcMethods } from "../jsonrpc.ts";
import { MAX_GATEWAY_SESSIONS } from "../limits.ts";
import { ProfileName, SessionKey } from "./_params.ts";

/** Surface name stored with sessions started through the gateway. */
export const GATEWAY_SOURCE = "dashboard";

const StartParams = z.object({ profile: ProfileName, resume: z.string().min(1).optional() });
const SendParams = z.object({
  session_key: SessionKey,
  text: z.string().refine((text) => text.trim() !== "", "text must not be empty"),
});
const KeyParams = z.object({ session_key: SessionKey });
const CloseParams = z.object({ session_key: SessionKey, delete: z.boolean().optional() });

/**
 * The session methods of the connection whose state is `state`.
 *
 * @example
 * ```ts
 * const methods: RpcMethods = { ...sessionMethods(state), ...approvalMethods(state) };
 * ```
 */
export function sessionMethods(state: GatewayState): RpcMethods {
  return {
    "session.start": method(StartParams, (p) => start(state, p.profile, p.resume)),
    "session.send": method(
      SendParams,
      (p) => send(state, findSession(state, p.session_key), p.text),
    ),
    "session.interrupt": method(KeyParams, (p) => ({
      interrupted: interrupt(state, findSession(state, p.session_key)),
    })),
    "session.close": method(CloseParams, async (p) => ({
      closed: true,
      ...(await closeSession(state, findSession(state, p.session_key), p.delete ?? false)),
    })),
  };
}

function newSessionKey(): string {
  const random = crypto.getRandomValues(new Uint8Array(8));
  return `wsk_${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function start(state: GatewayState, profile: string | undefined, resume: string | undefined) {
  if (state.sessions.size + state.opening >= MAX_GATEWAY_SESSIONS) {
    throw domainError(
      "too_many_sessions",
      `This connection already has ${MAX_GATEWAY_SESSIONS} open sessions (the limit); ` +
        "close one with session.close first",
    );
  }
  state.opening++;
  try {
    return await open(state, profile, resume);
  } finally {
    state.opening--;
  }
}

async function open(state: GatewayState, profile: string | undefined, resume: string | undefined) {
  const paths = await state.options.resolveProfile(profile);
  await ensureProfileHome(paths);
  const key = newSessionKey();
  const approvals = new ApprovalPolicy({
    ask: (request, options) => state.approvals.ask(key, request, options),
    store: configAlwaysStore(paths.config),
    safeMode: false,
    timeoutMs: state.options.approvalTimeoutMs,
    onNotice: (notice) => approvalNotice(state, notice),
  });
  const runtime = await (await runtimeModule()).openProfileRuntime(paths, {
    safeMode: false,
    source: GATEWAY_SOURCE,
    cwd: state.options.cwd,
    env: state.options.env,
    approve: approvals.decide,
    onWarning: (file, message) =>
      state.notify("notice", { level: "warning", message: `${file}: ${message}` }),
  });
  let session: AgentSession;
  try {
    if (state.closed) throw domainError("connection_closed", "The connection closed");
    session = resume ? runtime.resume(resume) : runtime.start();
  } catch (error) {
    runtime.close();
    throw error;
  }
  approvals.allow(runtime.config.approvals.allow);
  const registry = createSlashRegistry({ catalog: runtime.catalog });
  state.sessions.set(key, { key, runtime, registry, session });
  return {
    session_key: key,
    session_id: session.id ?? null,
    profile: paths.name,
    provider: session.client.provider,
    model: session.client.model,
  };
}

/** Tells the client what the approval policy decided without its answer. */
function approvalNotice(state: GatewayState, notice: ApprovalNotice): void {
  // An expired question was already withdrawn with approval.expire.
  if (notice.code === "expired") return;
  state.notify("notice", { level: "warning", message: notice.message });
}

function requireIdle(entry: GatewaySession): void {
  if (entry.turn) {
    throw domainError(
      "turn_running",
      "A turn is still running in this session; wait for message.complete or call session.interrupt",
    );
  }
}

async function send(state: GatewayState, entry: GatewaySession, text: string) {
  const session = entry.session;
  const outcome = await entry.registry.dispatch(text, {
    sessionId: session.id,
    model: session.client.model,
    provider: session.client.provider,
  });
  if (!outcome) return await turn(state, entry, text);
  switch (outcome.kind) {
    case "reply":
      return { kind: "reply", text: outcome.text };
    case "send":
      return await turn(state, entry, outcome.message);
    case "set_model":
      requireIdle(entry);
      session.setClient(entry.runtime.withModel(outcome.model));
      return { kind: "set_model", model: outcome.model, text: outcome.text };
    case "new_session": {
      requireIdle(entry);
      const next = entry.runtime.start();
      next.setClient(session.client);
      entry.session = next;
      return { kind: "new_session", text: outcome.text };
    }
    case "exit":
      return {
        kind: "exit",
        text: outcome.text,
        ...(await closeSession(state, entry, outcome.deleteSession)),
      };
  }
}

async function turn(state: GatewayState, entry: GatewaySession, text: string) {
  requireIdle(entry);
  const key = entry.key;
  const controller = new AbortController();
  const done = entry.session.send(text, {
    signal: controller.signal,
    onEvent: (event) => onEvent(state, key, event),
  });
  const running: Turn = { controller, done };
  entry.turn = running;
  let result: TurnResult;
  try {
    result = await done;
  } catch (error) {
    const known = error instanceof HeraldError;
    state.notify("message.error", {
      session_key: key,
      session_id: entry.session.id ?? null,
      code: known ? error.code : "internal_error",
      message: errorMessage(error),
    });
    throw error;
  } finally {
    if (entry.turn === running) entry.turn = undefined;
  }
  const complete = {
    session_id: result.sessionId,
    response: result.response,
    tool_calls: result.toolCalls,
    aborted: result.aborted,
    hit_max_turns: result.hitMaxTurns,
  };
  state.notify("message.complete", { session_key: key, ...complete });
  return { kind: "turn", ...complete };
}

function onEvent(state: GatewayState, key: string, event: AgentEvent): void {
  switch (event.type) {
    case "text":
      state.notify("message.delta", { session_key: key, text: event.delta });
      break;
    case "tool_start":
      state.notify("tool.start", {
        session_key: key,
        tool_call_id: event.call.id,
        name: event.call.name,
        arguments: event.call.arguments,
      });
      break;
    case "tool_end":
      state.notify("tool.complete", {
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

function interrupt(state: GatewayState, entry: GatewaySession): boolean {
  if (!entry.turn) return false;
  entry.turn.controller.abort();
  state.approvals.denySession(entry.key);
  return true;
}

/**
 * Closes one session: aborts its running turn (the partial turn stays
 * stored), deletes the stored session when `deleteStored` is set, and closes
 * its runtime.
 */
export async function closeSession(
  state: GatewayState,
  entry: GatewaySession,
  deleteStored: boolean,
): Promise<{ session_id: string | null; deleted: boolean }> {
  state.sessions.delete(entry.key);
  const running = entry.turn;
  if (running) {
    interrupt(state, entry);
    await running.done.catch(() => {});
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
