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
import type { ApprovalChoice, ApprovalRequest, ToolContext } from "../tools/types.ts";
import { type LlmHooks, runOutputHooks } from "./hooks.ts";
import { historyFromStored, toNewMessage } from "./history.ts";
import type { SendOptions, TurnResult, TurnSession } from "./turn_runtime.ts";
import { MutationTracker } from "./verifier.ts";

export type { AgentEvent, SendOptions, TurnResult } from "./turn_runtime.ts";

/**
 * Decides approval requests the session has not already granted. `signal`
 * is the turn's: once it is aborted the answer no longer matters, and a
 * handler should withdraw its question and deny.
 */
export type SessionApprovalHandler = (
  request: ApprovalRequest,
  options: { signal: AbortSignal },
) => Promise<ApprovalChoice>;

/** Everything a session needs from its surroundings. */
export interface AgentSessionOptions {
  client: ModelClient;
  store: SessionStore;
  tools: ToolRegistry;
  /** Transcript and request-dump files; omitted in tests that need none. */
  files?: SessionFiles;
  hooks?: readonly LlmHooks[];
  /** Decides dangerous actions the session has not already approved. */
  approve: SessionApprovalHandler;
  /** A client for another model name of the same provider (`/model`); without it the model is fixed. */
  clientFor?(model: string): ModelClient;
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
}

function summarise(outcome: ToolOutcome): string {
  if (!outcome.ok) return outcome.message;
  const text = outcome.content;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function titleFrom(text: string): string {
  const line = text.trim().split("\n")[0];
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/** One conversation with the agent; the agent loop's {@link TurnSession}. */
export class AgentSession implements TurnSession {
  readonly #options: AgentSessionOptions;
  readonly #history: ChatMessage[];
  readonly #system: string;
  readonly #approvedRules = new Set<string>();
  #client: ModelClient;
  #id: string | undefined;
  #requestSequence = 0;

  private constructor(
    options: AgentSessionOptions,
    id: string | undefined,
    system: string,
    history: ChatMessage[],
  ) {
    this.#options = options;
    this.#client = options.client;
    this.#id = id;
    this.#system = system;
    this.#history = history;
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
    const history = historyFromStored(options.store.getMessages(sessionId));
    return new AgentSession(options, sessionId, stored ?? options.systemPrompt, history);
  }

  /** The session id, once the first message has been stored. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The model client in use. */
  get client(): ModelClient {
    return this.#client;
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

  /** Switches the model for the following turns (never in the middle of one). */
  setClient(client: ModelClient): void {
    this.#client = client;
  }

  /**
   * Switches to another model name of the same provider for the following turns.
   *
   * @throws TypeError when the session was opened without `clientFor`.
   */
  setModel(model: string): void {
    if (!this.#options.clientFor) throw new TypeError("This session cannot switch models");
    this.#client = this.#options.clientFor(model);
  }

  /** Deletes the session's rows, transcript and request dumps. Returns false when nothing was stored. */
  async deleteStored(): Promise<boolean> {
    if (!this.#id) return false;
    const deleted = this.#options.store.deleteSession(this.#id);
    await this.#options.files?.deleteSessionFiles(this.#id);
    return deleted;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  async #append(messages: readonly ChatMessage[]): Promise<void> {
    this.#history.push(...messages);
    const id = this.#id!;
    const stored = this.#options.store.appendMessages(
      id,
      messages.map((message) => toNewMessage(message, this.#now())),
    );
    await this.#options.files?.appendTranscript(id, stored);
  }

  #ensureSession(firstText: string): string {
    if (!this.#id) {
      this.#id = this.#options.store.createSession({
        source: this.#options.source,
        model: this.#client.model,
        title: titleFrom(firstText) || null,
        systemPrompt: this.#system,
        startedAt: this.#now(),
      }).id;
    }
    return this.#id;
  }

  #toolContext(
    sessionId: string,
    signal: AbortSignal,
    onEvent: SendOptions["onEvent"],
  ): ToolContext {
    return {
      sessionId,
      cwd: this.#options.cwd,
      home: this.#options.home,
      signal,
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

  async #runTools(
    calls: readonly ToolCall[],
    context: ToolContext,
    onEvent: SendOptions["onEvent"],
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
        const outcome = await this.#options.tools.execute(call, context);
        outcomes[index] = outcome;
        onEvent?.({
          type: "tool_end",
          call,
          ok: outcome.ok,
          summary: summarise(outcome),
          durationMs: performance.now() - started,
        });
      });
      lanes.set(lane, run);
      return run;
    });
    await Promise.all(runs);
    return outcomes;
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
    const context = this.#toolContext(sessionId, signal, onEvent);
    const tracker = new MutationTracker();
    const toolCalls: TurnResult["toolCalls"] = [];
    await this.#append([{ role: "user", content: text }]);

    let finalText = "";
    let aborted = false;
    let hitMaxTurns = false;
    let modelCalls = 0;
    while (true) {
      if (modelCalls >= this.#options.maxTurns) {
        hitMaxTurns = true;
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
      finalText = response.text;
      if (response.toolCalls.length === 0) break;

      const outcomes = await this.#runTools(response.toolCalls, context, onEvent);
      await this.#append(response.toolCalls.map((call, index) => ({
        role: "tool" as const,
        toolCallId: call.id,
        name: call.name,
        content: outcomes[index].content,
        ...(outcomes[index].ok ? {} : { isError: true }),
      })));
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
    if (this.#options.verifyFileMutations) response += tracker.footer();
    response = await runOutputHooks(this.#options.hooks ?? [], response, {
      sessionId,
      model: this.#client.model,
      provider: this.#client.provider,
      userMessage: text,
    });
    return { sessionId, response, toolCalls, aborted, hitMaxTurns, modelCalls };
  }

  async #callModel(
    sessionId: string,
    signal: AbortSignal,
    onEvent: SendOptions["onEvent"],
  ): Promise<ModelResponse> {
    const request = {
      system: this.#system,
      messages: [...this.#history],
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
    });
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
