/**
 * The port between a conversation and what runs its turns. Herald's own
 * agent loop ({@link AgentSession}, assembled for a profile by
 * adapters/runtime/agent_runtime.ts) implements it today; an external
 * runtime (the Codex app-server) implements the same two interfaces, so a
 * surface never holds a concrete session: it holds a
 * {@link Conversation} over a {@link TurnRuntime}.
 *
 * @module
 */

import type { ToolCall } from "../models/types.ts";
import type { SkillCatalog } from "../skills/mod.ts";
import type { ApprovalChoice, ApprovalRequest } from "../tools/types.ts";

/** Progress reported while a turn runs. */
export type AgentEvent =
  | { type: "text"; delta: string }
  | { type: "model_call"; index: number }
  | { type: "tool_start"; call: ToolCall }
  | { type: "tool_end"; call: ToolCall; ok: boolean; summary: string; durationMs: number }
  /** A dangerous action goes to the approval handler (a rule granted for the session does not). */
  | { type: "approval_request"; request: ApprovalRequest }
  /** The approval handler decided. */
  | { type: "approval_result"; request: ApprovalRequest; choice: ApprovalChoice };

/** What a turn produced. */
export interface TurnResult {
  sessionId: string;
  /** The answer to show: the model's final text plus the verifier footer, after plugin hooks. */
  response: string;
  toolCalls: { name: string; arguments: string; ok: boolean }[];
  /** True when the caller's signal stopped the turn; `response` is then the partial text. */
  aborted: boolean;
  /** True when `maxTurns` model calls were spent before a final answer. */
  hitMaxTurns: boolean;
  modelCalls: number;
}

/** Options of one turn. */
export interface SendOptions {
  signal?: AbortSignal;
  onEvent?(event: AgentEvent): void;
}

/**
 * One thread of turns: a stored session of the agent loop, or an external
 * runtime's thread. Events reach the caller through `send`'s `onEvent`.
 */
export interface TurnSession {
  /** The stored session id, once the first message has been stored. */
  readonly id: string | undefined;
  /** The model the next turn uses. */
  readonly model: string;
  /** The provider of {@link model}. */
  readonly provider: string;
  /**
   * Runs one user turn to its end; an aborted `signal` ends it early with
   * the partial answer stored.
   */
  send(text: string, options?: SendOptions): Promise<TurnResult>;
  /** Uses another model name (same provider) from the next turn on. */
  setModel(model: string): void;
  /** Deletes what is stored of the session; false when nothing was. */
  deleteStored(): Promise<boolean>;
}

/** Options of {@link TurnRuntime.start}. */
export interface StartOptions {
  /** The model of the new session (a `/model` switch carried over by `/new`). */
  model?: string;
}

/** What runs the turns of one profile's conversations. */
export interface TurnRuntime {
  /** The profile's name (`default` for the root home). */
  readonly profile: string;
  /** The surface stored with new sessions: `cli`, `dashboard`, ... */
  readonly source: string;
  /** The profile's skills and bundles, offered as `/<name>`; absent when there are none. */
  readonly catalog?: SkillCatalog;
  /** A fresh session; nothing is stored until its first turn. */
  start(options?: StartOptions): Promise<TurnSession>;
  /**
   * Continues a stored session.
   *
   * @throws NotFoundError for an unknown session id.
   */
  resume(sessionId: string): Promise<TurnSession>;
  /** Releases what the runtime holds (the state database, a child process). */
  close(): void | Promise<void>;
}
