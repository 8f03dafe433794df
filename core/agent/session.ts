/**
 * The turn loop. One {@link AgentSession} is one conversation: it sends the
 * history to the model, runs the tools it asks for (independent calls in
 * parallel), appends the results and repeats until the model answers
 * without tools or `agent.max_turns` model calls are spent. Every message is
 * stored as it happens, so an interrupted turn is recorded up to the point
 * it reached.
 *
 * @module
 */

import { NotFoundError } from "../errors.ts";
import type { ChatMessage, ModelClient, ModelResponse, ToolCall } from "../models/types.ts";
import type { SessionFiles } from "../sessions/files.ts";
import type { SessionStore } from "../sessions/store.ts";
import type { ToolOutcome, ToolRegistry } from "../tools/registry.ts";
import type { ApprovalHandler, ApprovalRequest, ToolContext } from "../tools/types.ts";
import type { Checkpoints, SessionRollback, TurnCheckpoint } from "./checkpoints.ts";
import { type LlmHooks, runOutputHooks } from "./hooks.ts";
import { historyEntriesFromStored, toNewMessage } from "./history.ts";
import {
  type Compaction,
  compactionFromRecord,
  type CompactionStore,
  type CompressionOptions,
} from "./compression.ts";
import { SessionContext } from "./session_context.ts";
import {
  DEFAULT_LOOP_GUARD,
  LoopGuard,
  loopStopMessage,
  type LoopStreak,
  withLoopWarning,
} from "./loop_guard.ts";
import type {
  CompactOptions,
  CompactResult,
  SendOptions,
  SessionUsage,
  ToolListing,
  TurnResult,
  TurnSession,
  TurnStop,
} from "./turn_runtime.ts";
import { SessionRecord } from "./session_record.ts";
import { toolSummary } from "./turn_view.ts";
import { MutationTracker } from "./verifier.ts";
import { toolCallFailure } from "../tools/outcome_failure.ts";

export type { AgentEvent, SendOptions, TurnResult } from "./turn_runtime.ts";

/** Everything a session needs from its surroundings. */
export interface AgentSessionOptions {
  client: ModelClient;
  store: SessionStore;
  tools: ToolRegistry;
  /** Transcript and request-dump files; omitted in tests that need none. */
  files?: SessionFiles;
  hooks?: readonly LlmHooks[];
  /** Decides dangerous actions the session has not already approved. */
  approve: ApprovalHandler;
  /**
   * A client for another model name (`/model`), of `provider` when given,
   * else of the same provider; without it the model is fixed.
   */
  clientFor?(model: string, provider?: string): ModelClient;
  cwd: string;
  home: string;
  /** Surface that owns the session: `cli`, `dashboard`, `telegram`, ... */
  source: string;
  /** The system prompt for a new session (a resumed one keeps its stored prompt). */
  systemPrompt: string;
  maxTurns: number;
  verifyFileMutations: boolean;
  dumpRequests: boolean;
  maxTokens?: number;
  now?: () => number;
  /** Context compression; without it the whole history is always sent. */
  compression?: CompressionOptions;
  /** Where compression checkpoints are kept, so a resumed session sends what it sent before. */
  compactions?: CompactionStore;
  /**
   * Identical failing tool calls in a row before the model is warned
   * (`agent.loop_guard`, default 3; 0: never).
   */
  loopGuard?: number;
  /** Nobody watches the turns (`chat -q`, gateways, cron, kanban): the loop guard stops the turn. */
  unattended?: boolean;
  /** File checkpoints before the turns' writes, for `/rollback` (`checkpoints.enabled`). */
  checkpoints?: Checkpoints;
}

function summarise(outcome: ToolOutcome): string {
  return outcome.ok ? toolSummary(outcome.content) : outcome.message;
}

/** One conversation with the agent; the agent loop's {@link TurnSession}. */
export class AgentSession implements TurnSession {
  readonly #options: AgentSessionOptions;
  readonly #history: ChatMessage[];
  readonly #system: string;
  readonly #approvedRules = new Set<string>();
  #client: ModelClient;
  /** The stored row: id, title, end and deletion. */
  readonly #record: SessionRecord;
  #requestSequence = 0;
  /** The stored id of each message of {@link #history}. */
  readonly #ids: number[];
  /** What the requests send (the compression checkpoint) and how big they are. */
  readonly #context: SessionContext;
  /** Tokens and calls this process spent on the session. */
  readonly #spent = { inputTokens: 0, outputTokens: 0, modelCalls: 0 };

  private constructor(
    options: AgentSessionOptions,
    id: string | undefined,
    system: string,
    history: ChatMessage[],
    ids: number[] = [],
    compaction?: Compaction,
  ) {
    this.#options = options;
    this.#client = options.client;
    this.#record = new SessionRecord(options, id);
    this.#system = system;
    this.#history = history;
    this.#ids = ids;
    this.#context = new SessionContext({
      history,
      ids,
      system,
      specs: () => options.tools.specs(),
      sessionId: () => this.#record.id,
      model: () => this.#client.model,
      provider: () => this.#client.provider,
      now: () => this.#now(),
      compression: options.compression,
      compactions: options.compactions,
    }, compaction);
  }

  /** A new conversation; its database row is created with the first message. */
  static start(options: AgentSessionOptions): AgentSession {
    return new AgentSession(options, undefined, options.systemPrompt, []);
  }

  /**
   * Continues a stored conversation with its stored system prompt and history.
   *
   * @throws NotFoundError for an unknown session id.
   */
  static resume(options: AgentSessionOptions, sessionId: string): AgentSession {
    const stored = options.store.getSystemPrompt(sessionId);
    if (stored === undefined) {
      throw new NotFoundError("Session", sessionId, "list sessions with `herald sessions list`");
    }
    const entries = historyEntriesFromStored(options.store.getMessages(sessionId));
    const record = options.compactions?.latestCompaction(sessionId);
    return new AgentSession(
      options,
      sessionId,
      stored ?? options.systemPrompt,
      entries.map((entry) => entry.message),
      entries.map((entry) => entry.id),
      record && compactionFromRecord(entries, record),
    );
  }

  /** The session id, once the first message has been stored. */
  get id(): string | undefined {
    return this.#record.id;
  }

  /** The model the next turn uses. */
  get model(): string {
    return this.#client.model;
  }

  /** The provider of {@link model}. */
  get provider(): string {
    return this.#client.provider;
  }

  /** The system prompt every request of this session starts with. */
  get systemPrompt(): string {
    return this.#system;
  }

  /** A copy of the conversation so far. */
  get history(): readonly ChatMessage[] {
    return [...this.#history];
  }

  /**
   * Switches to another model name for the following turns: of `provider`
   * when given, else of the same provider.
   *
   * @throws TypeError when the session was opened without `clientFor`.
   */
  setModel(model: string, provider?: string): void {
    if (!this.#options.clientFor) throw new TypeError("This session cannot switch models");
    this.#client = this.#options.clientFor(model, provider);
  }

  /** The stored title, or the one given before anything was stored; null when none. */
  get title(): string | null {
    return this.#record.title;
  }

  /**
   * Gives the session a title, unique within the profile; before anything
   * is stored it is kept and stored with the first message.
   *
   * @throws SessionTitleTakenError when another session has it.
   */
  // deno-lint-ignore require-await
  async setTitle(title: string): Promise<void> {
    this.#record.setTitle(title);
  }

  /** Records `ended_at` and `end_reason`; nothing when nothing was stored (or it was deleted). */
  // deno-lint-ignore require-await
  async end(reason: string): Promise<void> {
    this.#record.end(reason);
  }

  /** Deletes the session's rows, transcript and request dumps. Returns false when nothing was stored. */
  deleteStored(): Promise<boolean> {
    return this.#record.deleteStored();
  }

  /** `/rollback` of this session; undefined when checkpoints are off. */
  get checkpoints(): SessionRollback | undefined {
    const checkpoints = this.#options.checkpoints;
    if (!checkpoints) return undefined;
    return {
      list: () => Promise.resolve(this.#record.id ? checkpoints.list(this.#record.id) : []),
      rollback: async (number) => {
        if (!this.#record.id) {
          return { ok: false, code: "no_session", message: "Nothing to roll back yet." };
        }
        const outcome = await checkpoints.rollback(this.#record.id, number);
        return outcome.ok ? { ...outcome, dropped: this.#dropFrom(outcome.messageId) } : outcome;
      },
    };
  }

  /**
   * Forgets the exchanges from stored message `messageId` on, in state.db
   * and in memory; returns how many user messages went.
   */
  #dropFrom(messageId: number): number {
    this.#options.store.deleteMessagesFrom(this.#record.id!, messageId);
    const from = this.#ids.findIndex((id) => id >= messageId);
    if (from === -1) return 0;
    const dropped = this.#history.slice(from).filter((message) => message.role === "user").length;
    this.#history.splice(from);
    this.#ids.splice(from);
    this.#context.dropped(from);
    return dropped;
  }

  #now(): number {
    return this.#record.now();
  }

  async #append(messages: readonly ChatMessage[]): Promise<void> {
    this.#history.push(...messages);
    const stored = await this.#record.append(
      messages.map((message) => toNewMessage(message, this.#now())),
    );
    this.#ids.push(...stored.map((row) => row.id));
  }

  #ensureSession(firstText: string): string {
    return this.#record.ensure(firstText, {
      model: this.#client.model,
      systemPrompt: this.#system,
    });
  }

  #toolContext(
    sessionId: string,
    signal: AbortSignal,
    onEvent: SendOptions["onEvent"],
    origin: string | undefined,
  ): ToolContext {
    return {
      sessionId,
      cwd: this.#options.cwd,
      home: this.#options.home,
      signal,
      ...(origin === undefined ? {} : { origin }),
      approve: async (request) => {
        const full: ApprovalRequest = { ...request, ruleKey: request.ruleKey ?? request.command };
        if (this.#approvedRules.has(full.ruleKey)) return true;
        onEvent?.({ type: "approval_request", request: full });
        const choice = await this.#options.approve(full, { signal });
        onEvent?.({ type: "approval_result", request: full, choice });
        if (choice === "session" || choice === "always") this.#approvedRules.add(full.ruleKey);
        return choice !== "deny";
      },
    };
  }

  /** Runs `calls` in their lanes; through `checkpoint` (the turn's bookkeeping) when given. */
  async #runTools(
    calls: readonly ToolCall[],
    context: ToolContext,
    onEvent: SendOptions["onEvent"],
    checkpoint: TurnCheckpoint | undefined,
  ): Promise<ToolOutcome[]> {
    const outcomes: ToolOutcome[] = new Array(calls.length);
    const lanes = new Map<string, Promise<void>>();
    const runs = calls.map((call, index) => {
      const lane = this.#options.tools.lane(call, context, index);
      const run = (lanes.get(lane) ?? Promise.resolve()).then(async () => {
        if (context.signal.aborted) {
          outcomes[index] = {
            ok: false,
            code: "interrupted",
            message: "interrupted by the user",
            content: JSON.stringify({ error: "interrupted by the user", code: "interrupted" }),
          };
          return;
        }
        onEvent?.({ type: "tool_start", call });
        const started = performance.now();
        const outcome = await (checkpoint?.execute(this.#options.tools, call, context) ??
          this.#options.tools.execute(call, context));
        outcomes[index] = outcome;
        onEvent?.({
          type: "tool_end",
          call,
          ok: outcome.ok,
          summary: summarise(outcome),
          durationMs: performance.now() - started,
          content: outcome.content,
          ...(outcome.ok && outcome.display?.before !== undefined
            ? { before: outcome.display.before }
            : {}),
          failure: toolCallFailure({
            name: call.name,
            ok: outcome.ok,
            content: outcome.content,
            message: outcome.ok ? undefined : outcome.message,
          }),
        });
      });
      lanes.set(lane, run);
      return run;
    });
    await Promise.all(runs);
    return outcomes;
  }

  /** What the session has used: the next request's size, the window, what this process spent. */
  usage(): SessionUsage {
    return {
      contextTokens: this.#context.estimateTokens(),
      contextWindow: this.#context.lastContextWindow,
      ...this.#spent,
    };
  }

  /** The tools the model is offered. */
  tools(): ToolListing[] {
    return this.#options.tools.specs().map((spec) => ({
      name: spec.name,
      description: spec.description,
    }));
  }

  /**
   * Summarises the middle of the history now (`/compact`), whatever the
   * request's size and even when automatic compression is off.
   *
   * @throws ModelError when the summarising model call fails; nothing changes.
   */
  compact(options: CompactOptions = {}): Promise<CompactResult> {
    return this.#context.compact(options);
  }

  /**
   * Runs one user turn to its end.
   *
   * @throws ModelError when the model cannot be reached or refuses the request;
   *   the user message and everything before the failure stay stored.
   */
  async send(text: string, options: SendOptions = {}): Promise<TurnResult> {
    const signal = options.signal ?? new AbortController().signal;
    const onEvent = options.onEvent;
    const sessionId = this.#ensureSession(text);
    const context = this.#toolContext(sessionId, signal, onEvent, options.origin);
    const tracker = new MutationTracker();
    const toolCalls: TurnResult["toolCalls"] = [];
    const loopGuard = this.#options.loopGuard ?? DEFAULT_LOOP_GUARD;
    const guard = new LoopGuard(loopGuard);
    const compressing = { blocked: false };
    await this.#append([{ role: "user", content: text }]);
    const checkpoint = this.#options.checkpoints?.turn({
      sessionId,
      messageId: this.#ids[this.#ids.length - 1],
      text,
    });

    let finalText = "";
    let aborted = false;
    let hitMaxTurns = false;
    let stopped: TurnStop | undefined;
    let modelCalls = 0;
    while (true) {
      if (modelCalls >= this.#options.maxTurns) {
        hitMaxTurns = true;
        break;
      }
      await this.#context.compressIfFull(compressing, signal, onEvent);
      if (signal.aborted) {
        aborted = true;
        finalText = "";
        break;
      }
      modelCalls++;
      onEvent?.({ type: "model_call", index: modelCalls });
      const response = await this.#callModel(sessionId, signal, onEvent);
      if (response.finishReason === "aborted") {
        aborted = true;
        finalText = response.text;
        if (response.text) await this.#append([{ role: "assistant", content: response.text }]);
        break;
      }
      await this.#append([{
        role: "assistant",
        content: response.text === "" && response.toolCalls.length ? null : response.text,
        ...(response.toolCalls.length ? { toolCalls: response.toolCalls } : {}),
      }]);
      this.#context.recordUsage(response.usage);
      finalText = response.text;
      if (response.toolCalls.length === 0) break;

      const outcomes = await this.#runTools(response.toolCalls, context, onEvent, checkpoint);
      let streak: LoopStreak | undefined;
      await this.#append(response.toolCalls.map((call, index) => {
        const outcome = outcomes[index];
        const hit = guard.record(
          call,
          outcome.ok,
          outcome.content,
          outcome.ok ? "" : outcome.message,
        );
        streak = hit ?? streak;
        return {
          role: "tool" as const,
          toolCallId: call.id,
          name: call.name,
          content: hit ? withLoopWarning(outcome.content, hit) : outcome.content,
          ...(outcome.ok ? {} : { isError: true }),
        };
      }));
      response.toolCalls.forEach((call, index) => {
        const outcome = outcomes[index];
        toolCalls.push({ name: call.name, arguments: call.arguments, ok: outcome.ok });
        if (outcome.mutatedPath) {
          tracker.record(outcome.mutatedPath, outcome.ok, outcome.ok ? "" : outcome.message);
        }
      });
      if (signal.aborted) {
        aborted = true;
        finalText = "";
        break;
      }
      if (streak) {
        if (this.#options.unattended) {
          stopped = { code: "tool_loop", message: loopStopMessage(streak) };
          break;
        }
        if (streak.count === loopGuard) {
          onEvent?.({
            type: "notice",
            level: "warning",
            code: "tool_loop",
            message: `The model repeated a failing ${streak.call.name} call ${streak.count} ` +
              "times in a row; it was told to change course.",
          });
        }
      }
    }

    if (aborted) {
      return { sessionId, response: finalText, toolCalls, aborted, hitMaxTurns, modelCalls };
    }
    let response = finalText;
    if (hitMaxTurns) {
      response += `${
        response ? "\n\n" : ""
      }(Stopped after ${modelCalls} model calls: agent.max_turns is ${this.#options.maxTurns}.)`;
    }
    if (stopped) response += `${response ? "\n\n" : ""}(${stopped.message})`;
    if (this.#options.verifyFileMutations) response += tracker.footer();
    response = await runOutputHooks(this.#options.hooks ?? [], response, {
      sessionId,
      model: this.#client.model,
      provider: this.#client.provider,
      userMessage: text,
    });
    return {
      sessionId,
      response,
      toolCalls,
      aborted,
      hitMaxTurns,
      modelCalls,
      ...(stopped ? { stopped } : {}),
    };
  }

  async #callModel(
    sessionId: string,
    signal: AbortSignal,
    onEvent: SendOptions["onEvent"],
  ): Promise<ModelResponse> {
    const request = {
      system: this.#system,
      messages: this.#context.requestMessages(),
      tools: this.#options.tools.specs(),
      maxTokens: this.#options.maxTokens,
      signal,
    };
    if (this.#options.dumpRequests && this.#options.files) {
      const { signal: _signal, ...body } = request;
      await this.#options.files.dumpRequest(sessionId, ++this.#requestSequence, {
        provider: this.#client.provider,
        model: this.#client.model,
        ...body,
      });
    }
    const response = await this.#client.complete(request, {
      onText: (delta) => onEvent?.({ type: "text", delta }),
      // A fallback provider or another key took over.
      onNotice: (notice) => onEvent?.({ type: "notice", level: "warning", ...notice }),
    });
    this.#spent.inputTokens += response.usage.inputTokens;
    this.#spent.outputTokens += response.usage.outputTokens;
    this.#spent.modelCalls++;
    this.#options.store.addUsage(sessionId, {
      apiCallCount: 1,
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      cacheReadTokens: response.usage.cacheReadTokens,
      cacheWriteTokens: response.usage.cacheWriteTokens,
    });
    return response;
  }
}
