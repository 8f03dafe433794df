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

import type { KanbanOpener } from "../kanban/service.ts";
import type { Automations } from "../schedules/automations.ts";
import type { RetryInfo, ToolCall } from "../models/types.ts";
import type { SkillCatalog } from "../skills/mod.ts";
import type { ApprovalChoice, ApprovalRequest } from "../tools/types.ts";
import type { SessionRollback } from "./checkpoints.ts";

/** Progress reported while a turn runs. */
export type AgentEvent =
  | { type: "text"; delta: string }
  | { type: "model_call"; index: number }
  | { type: "tool_start"; call: ToolCall }
  | {
    type: "tool_end";
    call: ToolCall;
    ok: boolean;
    summary: string;
    durationMs: number;
    /** The result as the model sees it (JSON text), for surfaces that preview output. */
    content: string;
    /**
     * write_file that succeeded: the file's text before the write (null: it
     * was new), as the tool read it after the write guard allowed the write;
     * absent when not shown (too large, not text, another tool).
     */
    before?: string | null;
    /**
     * Why the call failed from the user's point of view (`exit 1`, `timed
     * out`, the tool's error), or null (core/tools/outcome_failure.ts).
     */
    failure: string | null;
  }
  /** A dangerous action goes to the approval handler (a rule granted for the session does not). */
  | { type: "approval_request"; request: ApprovalRequest }
  /** The approval handler decided. */
  | { type: "approval_result"; request: ApprovalRequest; choice: ApprovalChoice }
  /**
   * The prompt passed `compression.threshold`, and the middle of the history
   * was summarised to fit the context; `message` is the one line to show the
   * user. (`/compact` answers with that line instead.)
   */
  | {
    type: "compressed";
    /** Messages the summary now stands for. */
    summarised: number;
    /** Estimated prompt tokens before and after. */
    tokensBefore: number;
    tokensAfter: number;
    message: string;
  }
  /**
   * Something the user should know that does not stop the turn: an unknown
   * context length (`context_length_unknown`), a failed compression
   * (`compression_failed`), a model repeating a failing call (`tool_loop`),
   * a fallback provider or another key taking over (`model_fallback`,
   * `model_key_rotated`), a `/model` switch that could not be applied after
   * the turn (`model_switch_failed`).
   */
  | {
    type: "notice";
    level: "info" | "warning";
    code: string;
    message: string;
    /** For `model_retry`: the wait before the next attempt, and which attempt of how many it is. */
    retry?: RetryInfo;
  };

/** Why a turn ended before the model's final answer, when something stopped it. */
export interface TurnStop {
  /** `tool_loop`: the same call failed the same way `agent.loop_guard` times on an unattended surface. */
  code: "tool_loop";
  /** The message that ends the response. */
  message: string;
}

/** What `/compact` did. */
export type CompactResult =
  | {
    ok: true;
    /** Messages the summary now stands for. */
    summarised: number;
    tokensBefore: number;
    tokensAfter: number;
    /** The one line to show the user. */
    message: string;
  }
  | {
    ok: false;
    /** `nothing_to_compact` (too few messages), `interrupted`, `unsupported` (the runtime cannot). */
    code: "nothing_to_compact" | "interrupted" | "unsupported";
    message: string;
  };

/** Options of {@link TurnSession.compact}. */
export interface CompactOptions extends SendOptions {
  /** What the summary should pay particular attention to. */
  focus?: string;
}

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
  /** Set when something ended the turn early (the loop guard on an unattended surface). */
  stopped?: TurnStop;
  /**
   * False when the runtime could not finish the turn (an external runtime
   * failed or timed out); `response` then says what happened and how to
   * switch back. Absent: the turn ran to its end (or was aborted).
   */
  completed?: false;
}

/** Options of one turn. */
export interface SendOptions {
  signal?: AbortSignal;
  onEvent?(event: AgentEvent): void;
  /** The chat the turn serves as a target (`telegram:<chat>`), told to its tools. */
  origin?: string;
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
  /**
   * Uses another model name from the next turn on: of `provider` when given
   * (`/model provider:model`), else of the same provider. Never called while
   * a turn runs (the conversation waits for its end).
   *
   * @throws ModelError `model_not_configured` when that provider has no endpoint or key.
   */
  setModel(model: string, provider?: string): void;
  /** Deletes what is stored of the session; false when nothing was. */
  deleteStored(): Promise<boolean>;
  /** The session's title (stored, or set before the first message was stored); null when none. */
  readonly title: string | null;
  /**
   * Gives the session a title (`/title`); before anything is stored, the
   * title is kept and stored with the first message.
   *
   * @throws SessionTitleTakenError when another session of the profile has it.
   */
  setTitle(title: string): Promise<void>;
  /**
   * Records that the session ended and why (`exit`, `closed`, `new_session`):
   * its stored row gets `ended_at` and `end_reason`. Nothing happens when
   * nothing was stored.
   */
  end(reason: string): Promise<void>;
  /**
   * Summarises the middle of the history now (`/compact`); absent when the
   * runtime cannot.
   *
   * @throws ModelError when the summarising model call fails (nothing changes).
   */
  compact?(options?: CompactOptions): Promise<CompactResult>;
  /** `/rollback` of the session's file checkpoints; absent when the runtime has none or they are off. */
  readonly checkpoints?: SessionRollback;
  /** What the session has used (`/usage`); absent when the runtime cannot tell. */
  usage?(): SessionUsage;
  /** The tools the model is offered (`/tools`); absent when the runtime cannot tell. */
  tools?(): readonly ToolListing[];
}

/** What a session has used so far, for `/usage` and a status line. */
export interface SessionUsage {
  /** The next request's estimated size in tokens. */
  contextTokens: number;
  /** The model's context window in tokens; null until a turn has asked for it. */
  contextWindow: number | null;
  /** Tokens and model calls spent by this process on the session (not earlier runs). */
  inputTokens: number;
  outputTokens: number;
  modelCalls: number;
}

/** A tool the session offers the model, as `/tools` lists it. */
export interface ToolListing {
  name: string;
  description: string;
}

/** Options of {@link TurnRuntime.start}. */
export interface StartOptions {
  /** The model of the new session (a `/model` switch carried over by `/new`). */
  model?: string;
  /** The provider of {@link model}, when a `/model provider:model` switch chose another. */
  provider?: string;
}

/** Shows and switches what runs a profile's turns (`/codex-runtime`). */
export interface RuntimeSwitch {
  /** The state to show: the runtime in use, whether Codex is installed, its config file. */
  describe(): Promise<string>;
  /**
   * Switches the runtime of the next session; `ok` false when refused
   * (Codex missing: config.yaml is left as it was). `text` is the line to show.
   */
  apply(mode: "auto" | "codex_app_server"): Promise<{ ok: boolean; text: string }>;
}

/** What runs the turns of one profile's conversations. */
export interface TurnRuntime {
  /** The profile's name (`default` for the root home). */
  readonly profile: string;
  /** The surface stored with new sessions: `cli`, `dashboard`, ... */
  readonly source: string;
  /** The profile's skills and bundles, offered as `/<name>`; absent when there are none. */
  readonly catalog?: SkillCatalog;
  /** The profile's scheduled jobs, for `/cron` and `/blueprint`; absent where they cannot be reached. */
  readonly automations?: Automations;
  /** The shared kanban board, for `/kanban`; absent where it cannot be reached. */
  readonly kanban?: KanbanOpener;
  /** `/codex-runtime`; absent where the runtime cannot be switched (safe mode). */
  readonly runtimeSwitch?: RuntimeSwitch;
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
