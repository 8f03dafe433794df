/**
 * The gateway's session methods: `session.start`, `session.send`,
 * `session.interrupt` and `session.close` (params and results in
 * server/ws/gateway.ts). Each session is a conversation object
 * (core/agent/conversation.ts) over the profile's agent runtime, opened
 * exactly as `herald chat` opens one, so slash commands and their outcomes
 * are handled there; this module only maps calls to it and its results and
 * progress to the client. A turn opens with `message.start {session_key,
 * session_id}` (before anything else of it), streams `message.delta`,
 * `tool.start` and `tool.complete` (with an `output` preview and, for a
 * write_file that went ahead, `before`: the file's old text as the tool read
 * it), and ends with `message.complete` or `message.error`; a context
 * compression or a warning during it (an unknown context length, a tool
 * loop) arrives as `notice {level, code, session_key, message}`. What a tool
 * call shows goes out with the profile's secrets hidden
 * (core/agent/preview_secrets.ts); the server reads no file for it.
 *
 * @module
 */

import { z } from "zod";
import { Conversation, type ConversationResult } from "../../../core/agent/conversation.ts";
import type { AgentEvent, TurnResult } from "../../../core/agent/turn_runtime.ts";
import {
  toolCompleteView,
  toolOutputView,
  toolStartView,
  toolSummary,
  turnView,
} from "../../../core/agent/turn_view.ts";
import { SecretRedactor } from "../../../core/agent/preview_secrets.ts";
import { HeraldError } from "../../../core/errors.ts";
import type { ApprovalNotice, ApprovalSurface } from "../../../core/tools/approval_policy.ts";
import { openAgentRuntimeLazily } from "../../../adapters/runtime/lazy_agent_runtime.ts";
import { readEnvFile } from "../../../adapters/home/env_file.ts";
import type { ProfilePaths } from "../../../adapters/home/layout.ts";
import { findSession, type GatewaySession, type GatewayState } from "../_gateway_state.ts";
import { domainError, method, type RpcMethods } from "../jsonrpc.ts";
import { MAX_GATEWAY_SESSIONS } from "../limits.ts";
import { ProfileName, SessionKey } from "./_params.ts";

/** Surface name stored with sessions started through the gateway. */
const GATEWAY_SOURCE = "dashboard";

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
  const key = newSessionKey();
  const runtime = await openAgentRuntimeLazily(paths, {
    safeMode: false,
    source: GATEWAY_SOURCE,
    cwd: state.options.cwd,
    env: state.options.env,
    approvals: clientApprovals(state, key),
    onWarning: (file, message) =>
      state.notify("notice", { level: "warning", message: `${file}: ${message}` }),
  });
  const conversation = await Conversation.open({
    runtime,
    resume,
    events: state.options.events,
  });
  if (state.closed) {
    await conversation.close();
    throw domainError("connection_closed", "The connection closed");
  }
  state.sessions.set(key, {
    key,
    conversation,
    readSecrets: secretsReader(paths, state.options.env, runtime.config),
  });
  return {
    session_key: key,
    session_id: conversation.sessionId ?? null,
    profile: paths.name,
    provider: conversation.provider,
    model: conversation.model,
  };
}

/**
 * The gateway's approval surface for session `key`: questions go to the
 * client (server/ws/approvals.ts); the policy is the profile's, as in the terminal.
 */
function clientApprovals(state: GatewayState, key: string): ApprovalSurface {
  return {
    ask: (request, options) => state.approvals.ask(key, request, options),
    onNotice: (notice) => approvalNotice(state, notice),
  };
}

/** Tells the client what the approval policy decided without its answer. */
function approvalNotice(state: GatewayState, notice: ApprovalNotice): void {
  // An expired question was already withdrawn with approval.expire.
  if (notice.code === "expired") return;
  state.notify("notice", { level: "warning", message: notice.message });
}

/**
 * Reads the profile's known secrets for a turn's previews: its `.env` again
 * each time (a key set meanwhile is hidden too), the process environment and
 * the runtime's configuration. An `.env` that cannot be read leaves the
 * secrets read before.
 */
function secretsReader(
  paths: ProfilePaths,
  env: Record<string, string | undefined>,
  config: unknown,
): () => Promise<SecretRedactor> {
  let last = new SecretRedactor({ dotenv: new Map(), env, config });
  return async () => {
    try {
      last = new SecretRedactor({ dotenv: (await readEnvFile(paths.env)).values, env, config });
    } catch {
      // Unreadable now (the runtime read it when it opened): the secrets known before.
    }
    return last;
  };
}

async function send(state: GatewayState, entry: GatewaySession, text: string) {
  const key = entry.key;
  const secrets = await entry.readSecrets();
  const result: ConversationResult = await entry.conversation.input(text, {
    onEvent: (event) => onEvent(state, key, event, secrets),
    // `/blueprint <name>` says what it starts before its fill request runs as a turn.
    onNotice: (text) =>
      state.notify("notice", { session_key: key, level: "info", code: "command", message: text }),
    // Before the turn's first event, so a client can open the answer's bubble.
    onTurnStart: (sessionId) =>
      state.notify("message.start", { session_key: key, session_id: sessionId }),
    onTurnError: (error, sessionId) => {
      state.notify("message.error", {
        session_key: key,
        session_id: sessionId,
        code: error instanceof HeraldError ? error.code : "internal_error",
        message: errorMessage(error),
      });
    },
  });
  switch (result.kind) {
    case "turn":
      return { kind: "turn", ...completed(state, key, result.result, secrets) };
    case "reply":
      return { kind: result.kind, text: result.text };
    case "new_session":
      return { kind: result.kind, text: result.text, clear: result.clear };
    case "resumed":
      return { kind: result.kind, session_id: result.sessionId, text: result.text };
    case "pick_session":
      return { kind: result.kind, text: result.text };
    case "set_model":
      return {
        kind: "set_model",
        model: result.model,
        ...(result.provider ? { provider: result.provider } : {}),
        text: result.text,
      };
    case "exit":
      state.sessions.delete(key);
      return {
        kind: "exit",
        text: result.text,
        session_id: result.sessionId,
        deleted: result.deleted,
      };
  }
}

/**
 * Notifies `message.complete` and returns the turn as the client sees it
 * (its tool calls' arguments with the profile's secrets hidden, as on `tool.start`).
 */
function completed(
  state: GatewayState,
  key: string,
  result: TurnResult,
  secrets: SecretRedactor,
) {
  const view = turnView(result);
  const complete = {
    ...view,
    tool_calls: view.tool_calls.map((call) => ({
      ...call,
      arguments: secrets.json(call.arguments),
    })),
    // Only when something ended the turn early (the loop guard on an unattended session).
    ...(result.stopped ? { stopped: result.stopped.code } : {}),
  };
  state.notify("message.complete", { session_key: key, ...complete });
  return complete;
}

/**
 * Maps a turn's events to notifications. What a tool call shows (its
 * arguments, summary, output and a write's old text) goes out with the
 * profile's secrets hidden (`secrets`).
 */
function onEvent(
  state: GatewayState,
  key: string,
  event: AgentEvent,
  secrets: SecretRedactor,
): void {
  switch (event.type) {
    case "text":
      state.notify("message.delta", { session_key: key, text: event.delta });
      break;
    case "tool_start": {
      const start = toolStartView(event);
      state.notify("tool.start", {
        session_key: key,
        ...start,
        arguments: secrets.json(start.arguments),
      });
      break;
    }
    case "tool_end": {
      const complete = toolCompleteView(event);
      const content = secrets.json(event.content);
      state.notify("tool.complete", {
        session_key: key,
        ...complete,
        // From the hidden result: a summary cut first could end in part of a secret.
        summary: event.ok ? toolSummary(content) : secrets.text(complete.summary),
        failure: complete.failure === null ? null : secrets.text(complete.failure),
        ...toolOutputView(content),
        // write_file that went ahead: the file's text before it (null: a new file), for a diff.
        ...(event.before === undefined
          ? {}
          : { before: event.before === null ? null : secrets.text(event.before) }),
      });
      break;
    }
    case "compressed":
      state.notify("notice", {
        level: "info",
        code: "compressed",
        session_key: key,
        message: event.message,
      });
      break;
    case "notice":
      state.notify("notice", {
        level: event.level,
        code: event.code,
        session_key: key,
        message: event.message,
      });
      break;
    default:
      // Model calls are not shown; approvals reach the client as approval.request.
      break;
  }
}

function interrupt(state: GatewayState, entry: GatewaySession): boolean {
  if (!entry.conversation.busy) return false;
  // Denied before the turn is aborted, so a question waiting for the client ends without
  // approval.expire, as an answer the interrupt made.
  state.approvals.denySession(entry.key);
  return entry.conversation.interrupt();
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
  state.approvals.denySession(entry.key);
  const closed = await entry.conversation.close({ delete: deleteStored });
  return { session_id: closed.sessionId, deleted: closed.deleted };
}
