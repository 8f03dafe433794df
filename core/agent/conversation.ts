/**
 * The conversation object: one conversation on one surface, the same for
 * the terminal chat, the dashboard's gateway and, later, messaging channels,
 * kanban workers and cron runs. It holds the turn runtime (behind
 * {@link TurnRuntime}, so the agent loop and an external runtime are
 * interchangeable), the current session and the slash registry, and carries
 * out every slash outcome itself: a surface hands it the user's text and
 * renders the {@link ConversationResult}.
 *
 * Given an event publisher, it publishes the conversation's session,
 * message, tool and approval events (core/events), so a surface that did
 * not start it can watch it.
 *
 * @module
 */

import { HeraldError, isCallerKind } from "../errors.ts";
import { createSlashRegistry, parseSlashInput, runCatalogCommand } from "../commands/mod.ts";
import type { SlashRegistry } from "../commands/registry.ts";
import { eventOf, type EventPayload, type EventPublisher, type EventType } from "../events/mod.ts";
import type { SkillCatalog } from "../skills/mod.ts";
import { rollbackReply } from "./checkpoints.ts";
import { toolCompleteView, toolStartView } from "./turn_view.ts";
import type {
  AgentEvent,
  SendOptions,
  SessionUsage,
  TurnResult,
  TurnRuntime,
  TurnSession,
} from "./turn_runtime.ts";

/** What one line of input did. */
export type ConversationResult =
  /**
   * The text (or the message a skill or bundle made of it) ran as a turn;
   * `notice` is what the command showed first (also told to `onNotice`).
   */
  | { kind: "turn"; result: TurnResult; notice?: string }
  /** A command answered; the session goes on. */
  | { kind: "reply"; text: string }
  /**
   * The following turns use `model` (of `provider`, when the switch named
   * one); asked for during a turn, the switch applies when that turn ends.
   */
  | { kind: "set_model"; model: string; provider?: string; text: string }
  /**
   * A fresh session replaced the current one (which stays stored); with
   * `clear` (`/clear`) the surface also clears what it shows.
   */
  | { kind: "new_session"; text: string; clear: boolean }
  /** `/resume <id>`: the stored session `sessionId` replaced the current one. */
  | { kind: "resumed"; sessionId: string; text: string }
  /**
   * `/resume` without an id: a surface that can offers its recent sessions,
   * then sends `/resume <id>`; one that cannot shows `text`.
   */
  | { kind: "pick_session"; text: string }
  /** The conversation is closed; with `/exit --delete` its session was deleted. */
  | { kind: "exit"; text: string; sessionId: string | null; deleted: boolean };

/** Options of {@link Conversation.open}. */
export interface ConversationOptions {
  /** What runs the turns; the conversation closes it when it closes. */
  runtime: TurnRuntime;
  /** Continue this stored session instead of starting a new one. */
  resume?: string;
  /** Where the conversation's events go; without it none are published. */
  events?: EventPublisher;
  /**
   * The chat the conversation is in, as a delivery target
   * (`telegram:<chat>[:<thread>]`): jobs made here deliver back to it.
   */
  origin?: string;
}

/** Options of one input or question. */
export interface InputOptions extends SendOptions {
  /**
   * Told when the turn itself fails (the model could not be reached, ...),
   * not when the input is refused, just before the error is thrown.
   */
  onTurnError?(error: unknown, sessionId: string | null): void;
  /**
   * Told when the input starts a turn (the text, or the message a skill or
   * bundle made of it, is stored), before any of the turn's events.
   */
  onTurnStart?(sessionId: string | null): void;
  /**
   * Told the text a command shows before the turn it starts (`/blueprint
   * <name>` explains, then its fill request runs as the user's turn).
   */
  onNotice?(text: string): void;
}

/** A `chat -q` question that names no command, skill or bundle: nothing was sent. */
export class UnknownCommandError extends HeraldError {
  /** Creates the error for `/name`. */
  constructor(readonly command: string) {
    super(
      "unknown_command",
      "usage",
      `Unknown command /${command}: no skill or bundle has that name, so nothing was sent to ` +
        "the model; list them with `herald skills list` and `herald bundles list`",
      { details: { command } },
    );
  }
}

/** A `chat -q` skill or bundle command that loaded nothing: nothing was sent. */
export class NothingToSendError extends HeraldError {
  /** Creates the error for `/name`, with the `reason` the command gave. */
  constructor(readonly command: string, reason: string) {
    super("nothing_to_send", "usage", reason, { details: { command } });
  }
}

/** What {@link Conversation.close} did. */
export interface ClosedConversation {
  /** The session that was open, or null when it had stored nothing. */
  sessionId: string | null;
  /** True when the stored session was deleted. */
  deleted: boolean;
}

/** A turn is running and the input needs the conversation idle. */
export class TurnRunningError extends HeraldError {
  /** Creates the error. */
  constructor() {
    super(
      "turn_running",
      "conflict",
      "A turn is still running in this session; wait for its answer or interrupt it",
    );
  }
}

/** Input reached a conversation that was closed. */
export class ConversationClosedError extends HeraldError {
  /** Creates the error. */
  constructor() {
    super("conversation_closed", "conflict", "This conversation is closed; start a new one");
  }
}

interface RunningTurn {
  controller: AbortController;
  /** The turn (or `/compact`) running; settles when it ends. */
  done: Promise<unknown>;
}

function errorCode(error: unknown): string {
  return error instanceof HeraldError ? error.code : "internal_error";
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `1234567` as `1,234,567`. (Not Intl: loading its locale data costs every process megabytes.) */
function formatCount(n: number): string {
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** What `/usage` shows for `session`. */
function usageText(session: TurnSession): string {
  const usage = session.usage?.();
  if (!usage) return "This runtime does not report its usage.";
  const window = usage.contextWindow;
  const context = window
    ? `${formatCount(usage.contextTokens)} of ${formatCount(window)} tokens (${
      Math.round(usage.contextTokens / window * 100)
    }%)`
    : `${formatCount(usage.contextTokens)} tokens (the window is known after the first turn)`;
  return [
    `Context: ${context}`,
    `This run: ${usage.modelCalls} model call${usage.modelCalls === 1 ? "" : "s"}, ` +
    `${formatCount(usage.inputTokens)} tokens in, ${formatCount(usage.outputTokens)} out`,
    `Model: ${session.provider}/${session.model}`,
  ].join("\n");
}

/** What `/tools` shows for `session`. */
function toolsText(session: TurnSession): string {
  const tools = session.tools?.();
  if (!tools) return "This runtime does not list its tools.";
  if (tools.length === 0) return "No tools are enabled.";
  const width = Math.max(...tools.map((tool) => tool.name.length));
  return [
    `Tools (${tools.length}):`,
    ...tools.map((tool) => `  ${tool.name.padEnd(width)}  ${firstSentence(tool.description)}`),
  ].join("\n");
}

function firstSentence(text: string): string {
  const line = text.split("\n")[0];
  const end = line.search(/\.\s/);
  const sentence = end === -1 ? line : line.slice(0, end + 1);
  return sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
}

/**
 * One conversation.
 *
 * @example
 * ```ts
 * const conversation = await Conversation.open({ runtime, events: bus });
 * const result = await conversation.input("/review the diff", { onEvent: show });
 * if (result.kind === "exit") return;
 * ```
 */
export class Conversation {
  readonly #runtime: TurnRuntime;
  readonly #registry: SlashRegistry;
  readonly #events: EventPublisher | undefined;
  readonly #origin: string | undefined;
  #session: TurnSession;
  #announced = false;
  #turn: RunningTurn | undefined;
  #closing: Promise<ClosedConversation> | undefined;
  /** A `/model` switch asked for during a turn, applied when it ends. */
  #pendingModel: { model: string; provider?: string; onEvent?: SendOptions["onEvent"] } | undefined;

  private constructor(options: ConversationOptions, session: TurnSession) {
    this.#runtime = options.runtime;
    this.#events = options.events;
    this.#origin = options.origin;
    this.#registry = createSlashRegistry({ catalog: options.runtime.catalog });
    this.#session = session;
  }

  /**
   * Opens a conversation on a new session, or on the stored session
   * `options.resume`. When that fails the runtime is closed.
   *
   * @throws NotFoundError for an unknown session to resume.
   */
  static async open(options: ConversationOptions): Promise<Conversation> {
    const { runtime } = options;
    let session: TurnSession;
    try {
      session = options.resume ? await runtime.resume(options.resume) : await runtime.start();
    } catch (error) {
      await runtime.close();
      throw error;
    }
    const conversation = new Conversation(options, session);
    conversation.#announce(options.resume !== undefined);
    return conversation;
  }

  /** The stored session id, once the session has stored its first message. */
  get sessionId(): string | undefined {
    return this.#session.id;
  }

  /** The model the next turn uses. */
  get model(): string {
    return this.#session.model;
  }

  /** The provider of {@link model}. */
  get provider(): string {
    return this.#session.provider;
  }

  /** The profile the conversation belongs to. */
  get profile(): string {
    return this.#runtime.profile;
  }

  /** The profile's skills and bundles, when it has a catalog. */
  get catalog(): SkillCatalog | undefined {
    return this.#runtime.catalog;
  }

  /** The slash commands of this conversation (for completion). */
  get registry(): SlashRegistry {
    return this.#registry;
  }

  /** What the current session has used; undefined when its runtime cannot tell. */
  get usage(): SessionUsage | undefined {
    return this.#session.usage?.();
  }

  /** True while a turn runs. */
  get busy(): boolean {
    return this.#turn !== undefined;
  }

  /** True once the conversation is closed (by `/exit` or {@link close}). */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /**
   * Handles one line the user typed: a slash command is carried out (and
   * a skill or bundle runs as the turn it makes), anything else runs as a
   * turn. `/exit` closes the conversation. `/model` during a turn switches
   * when that turn ends.
   *
   * @throws TurnRunningError for a turn or `/new` while a turn runs.
   * @throws ConversationClosedError once the conversation is closed.
   * @throws ModelError when the turn's model call fails (the turn's messages stay stored).
   */
  async input(text: string, options: InputOptions = {}): Promise<ConversationResult> {
    this.#requireOpen();
    const session = this.#session;
    const outcome = await this.#registry.dispatch(text, {
      sessionId: session.id,
      model: session.model,
      provider: session.provider,
      ...(this.#runtime.automations ? { automations: this.#runtime.automations } : {}),
      ...(this.#runtime.kanban ? { kanban: this.#runtime.kanban } : {}),
      ...(this.#origin === undefined ? {} : { origin: this.#origin }),
      // Read only by `/title`: a stored session's title is a database read.
      get title() {
        return session.title;
      },
    });
    if (!outcome) return { kind: "turn", result: await this.#runTurn(text, options) };
    switch (outcome.kind) {
      case "reply":
        return { kind: "reply", text: outcome.text };
      case "send":
        return { kind: "turn", result: await this.#runTurn(outcome.message, options) };
      case "seed":
        options.onNotice?.(outcome.text);
        return {
          kind: "turn",
          result: await this.#runTurn(outcome.message, options),
          notice: outcome.text,
        };
      case "set_model":
        return this.#setModel(outcome, options);
      case "new_session":
        await this.#newSession();
        return { kind: "new_session", text: outcome.text, clear: outcome.clear ?? false };
      case "resume":
        if (outcome.target === null) {
          return {
            kind: "pick_session",
            text: "Give the session's id: /resume <id> (`herald sessions list` lists them)",
          };
        }
        return await this.#resume(outcome.target);
      case "usage":
        return { kind: "reply", text: usageText(this.#session) };
      case "tools":
        return { kind: "reply", text: toolsText(this.#session) };
      case "exit": {
        const closed = await this.#close(outcome.deleteSession, "exit");
        return { kind: "exit", text: outcome.text, ...closed };
      }
      case "set_title":
        return { kind: "reply", text: await this.#setTitle(outcome.title) };
      case "rollback":
        this.#requireOpen();
        this.#requireIdle();
        return {
          kind: "reply",
          text: await rollbackReply(this.#session, outcome.checkpoint ?? undefined),
        };
      case "compact":
        return { kind: "reply", text: await this.#compact(outcome.focus, options) };
      case "set_runtime":
        return { kind: "reply", text: await this.#setRuntime(outcome.mode, options) };
    }
  }

  /**
   * One question, as `herald chat -q` (and later a scheduled run) asks it:
   * a leading `/<skill>` (or several) or `/<bundle>` becomes the message it
   * makes; built-in commands and any other text are sent as typed. A
   * `/<name>` that is no command, skill or bundle, or a skill or bundle that
   * loads nothing, is refused before anything reaches the model.
   *
   * @throws UnknownCommandError for a `/<name>` that names nothing.
   * @throws NothingToSendError for a skill or bundle that loaded nothing (the reason says why).
   * @throws TurnRunningError while a turn runs.
   * @throws ConversationClosedError once the conversation is closed.
   */
  async ask(text: string, options: InputOptions = {}): Promise<TurnResult> {
    this.#requireOpen();
    let message = text;
    const input = parseSlashInput(text);
    if (input && !this.#registry.find(input.name)) {
      const catalog = this.#runtime.catalog;
      const outcome = catalog && await runCatalogCommand(catalog, input.name, input.args);
      if (!outcome) throw new UnknownCommandError(input.name);
      if (outcome.kind !== "send") {
        const reason = outcome.kind === "reply" ? outcome.text : `/${input.name} sent nothing`;
        throw new NothingToSendError(input.name, reason);
      }
      message = outcome.message;
    }
    return await this.#runTurn(message, options);
  }

  /** Stops the running turn (its partial answer stays stored); false when none runs. */
  interrupt(): boolean {
    if (!this.#turn) return false;
    this.#turn.controller.abort();
    return true;
  }

  /**
   * Closes the conversation: interrupts a running turn and waits for it to
   * end, deletes the stored session when `options.delete` is set, and
   * closes the runtime. Closing again returns the first close's result.
   */
  close(options: { delete?: boolean } = {}): Promise<ClosedConversation> {
    return this.#close(options.delete ?? false, "closed");
  }

  #close(deleteStored: boolean, reason: "closed" | "exit"): Promise<ClosedConversation> {
    this.#closing ??= (async () => {
      const running = this.#turn;
      if (running) {
        running.controller.abort();
        await running.done.catch(() => {});
      }
      const session = this.#session;
      const sessionId = session.id ?? null;
      let deleted = false;
      try {
        if (deleteStored) deleted = await session.deleteStored();
        else await session.end(reason);
      } finally {
        await this.#runtime.close();
      }
      if (sessionId) this.#publish(session, "session.ended", { reason, deleted });
      return { sessionId, deleted };
    })();
    return this.#closing;
  }

  #requireOpen(): void {
    if (this.#closing) throw new ConversationClosedError();
  }

  /** `/title <text>`: the line to show, also when the title cannot be used. */
  async #setTitle(title: string): Promise<string> {
    try {
      await this.#session.setTitle(title);
    } catch (error) {
      if (error instanceof HeraldError && isCallerKind(error.kind)) return error.message;
      throw error;
    }
    return `Title set to "${title}".`;
  }

  #requireIdle(): void {
    if (this.#turn) throw new TurnRunningError();
  }

  /**
   * `/model [provider:]name`: switches now, or, while a turn runs, when it
   * ends (the running turn keeps its model). A switch that fails then is
   * told to the asker's `onEvent` as a `model_switch_failed` notice.
   *
   * @throws ModelError when the provider has no endpoint or key (idle only).
   */
  #setModel(
    outcome: { model: string; provider?: string; text: string },
    options: InputOptions,
  ): ConversationResult {
    this.#requireOpen();
    const { model, provider } = outcome;
    const result = { kind: "set_model" as const, model, ...(provider ? { provider } : {}) };
    const running = this.#turn;
    if (!running) {
      this.#pendingModel = undefined;
      this.#session.setModel(model, provider);
      return { ...result, text: outcome.text };
    }
    const first = this.#pendingModel === undefined;
    this.#pendingModel = { model, provider, onEvent: options.onEvent };
    // The turn's own continuation (which clears #turn) was queued before this one.
    if (first) running.done.then(() => this.#applyPendingModel(), () => this.#applyPendingModel());
    return { ...result, text: `${outcome.text.replace(/\.$/, "")} once the current turn ends.` };
  }

  #applyPendingModel(): void {
    const pending = this.#pendingModel;
    this.#pendingModel = undefined;
    if (!pending || this.#closing) return;
    try {
      this.#session.setModel(pending.model, pending.provider);
    } catch (error) {
      const spec = pending.provider ? `${pending.provider}:${pending.model}` : pending.model;
      pending.onEvent?.({
        type: "notice",
        level: "warning",
        code: "model_switch_failed",
        message: `The switch to ${spec} after the turn failed: ${errorMessage(error)}`,
      });
    }
  }

  /**
   * `/codex-runtime [mode]`: shows the state, or switches the runtime of the
   * next session; while a turn runs the switch waits for its end (so no
   * turn spans two transports) and its outcome is told to the asker's
   * `onEvent` as a `runtime_switched` or `runtime_switch_failed` notice.
   */
  async #setRuntime(
    mode: "auto" | "codex_app_server" | null,
    options: InputOptions,
  ): Promise<string> {
    this.#requireOpen();
    const control = this.#runtime.runtimeSwitch;
    if (!control) return "The runtime cannot be switched here (safe mode ignores config.yaml).";
    if (mode === null) return await control.describe();
    const running = this.#turn;
    if (!running) return (await control.apply(mode)).text;
    const apply = async () => {
      if (this.#closing) return;
      try {
        const result = await control.apply(mode);
        options.onEvent?.({
          type: "notice",
          level: result.ok ? "info" : "warning",
          code: result.ok ? "runtime_switched" : "runtime_switch_failed",
          message: result.text,
        });
      } catch (error) {
        options.onEvent?.({
          type: "notice",
          level: "warning",
          code: "runtime_switch_failed",
          message: `The runtime switch after the turn failed: ${errorMessage(error)}`,
        });
      }
    };
    running.done.then(apply, apply);
    return `The switch to ${mode} applies once the current turn ends.`;
  }

  /** `/resume <id>`: the stored session replaces the current one (which stays stored). */
  async #resume(target: string): Promise<ConversationResult> {
    this.#requireOpen();
    this.#requireIdle();
    const previous = this.#session;
    if (previous.id === target) {
      return { kind: "reply", text: "This is the session you are in." };
    }
    let next: TurnSession;
    try {
      next = await this.#runtime.resume(target);
    } catch (error) {
      if (error instanceof HeraldError && isCallerKind(error.kind)) {
        return { kind: "reply", text: error.message };
      }
      throw error;
    }
    this.#session = next;
    this.#announced = false;
    await previous.end("resumed_other");
    if (previous.id) {
      this.#publish(previous, "session.ended", { reason: "resumed_other", deleted: false });
    }
    this.#announce(true);
    return { kind: "resumed", sessionId: target, text: `Resumed session ${target}.` };
  }

  async #newSession(): Promise<void> {
    this.#requireOpen();
    this.#requireIdle();
    const previous = this.#session;
    const next = await this.#runtime.start({ model: previous.model, provider: previous.provider });
    this.#session = next;
    this.#announced = false;
    await previous.end("new_session");
    if (previous.id) {
      this.#publish(previous, "session.ended", { reason: "new_session", deleted: false });
    }
  }

  /**
   * `/compact`: summarises the middle of the history now. It counts as a
   * turn while it runs (busy, interruptible); the answer is the line to show.
   */
  async #compact(focus: string, options: InputOptions): Promise<string> {
    this.#requireOpen();
    this.#requireIdle();
    const session = this.#session;
    if (!session.compact) return "This runtime cannot compress its context.";
    const compact = session.compact.bind(session);
    const { done, release } = this.#track(
      session,
      options,
      (signal, onEvent) => compact({ focus: focus || undefined, signal, onEvent }),
    );
    try {
      return (await done).message;
    } finally {
      release();
    }
  }

  /**
   * Starts `run` as the conversation's running work: interruptible through
   * the caller's signal and {@link interrupt}, its events relayed to the bus
   * and the caller. `release` ends the tracking (call it once `done` settles).
   */
  #track<T>(
    session: TurnSession,
    options: InputOptions,
    run: (signal: AbortSignal, onEvent: (event: AgentEvent) => void) => Promise<T>,
  ): { done: Promise<T>; release(): void } {
    const controller = new AbortController();
    const caller = options.signal;
    const stop = () => controller.abort(caller?.reason);
    if (caller?.aborted) stop();
    caller?.addEventListener("abort", stop, { once: true });
    const done = run(controller.signal, (event) => {
      this.#relay(session, event);
      options.onEvent?.(event);
    });
    const running: RunningTurn = { controller, done };
    this.#turn = running;
    return {
      done,
      release: () => {
        if (this.#turn === running) this.#turn = undefined;
        caller?.removeEventListener("abort", stop);
      },
    };
  }

  async #runTurn(text: string, options: InputOptions): Promise<TurnResult> {
    this.#requireOpen();
    this.#requireIdle();
    const session = this.#session;
    const { done, release } = this.#track(
      session,
      options,
      (signal, onEvent) =>
        session.send(text, {
          signal,
          onEvent,
          ...(this.#origin === undefined ? {} : { origin: this.#origin }),
        }),
    );
    this.#announce(false);
    this.#publish(session, "message.user", { text });
    options.onTurnStart?.(session.id ?? null);
    let result: TurnResult;
    try {
      result = await done;
    } catch (error) {
      options.onTurnError?.(error, session.id ?? null);
      this.#publish(session, "message.error", {
        code: errorCode(error),
        message: errorMessage(error),
      });
      throw error;
    } finally {
      release();
    }
    this.#announce(false);
    this.#publish(session, "message.complete", {
      response: result.response,
      tool_calls: result.toolCalls,
      aborted: result.aborted,
      hit_max_turns: result.hitMaxTurns,
    });
    return result;
  }

  /** Publishes `session.started` once the current session has an id. */
  #announce(resumed: boolean): void {
    const session = this.#session;
    if (this.#announced || !session.id) return;
    this.#announced = true;
    this.#publish(session, "session.started", {
      model: session.model,
      provider: session.provider,
      resumed,
    });
  }

  #relay(session: TurnSession, event: AgentEvent): void {
    if (session === this.#session) this.#announce(false);
    switch (event.type) {
      case "text":
        return this.#publish(session, "message.delta", { text: event.delta });
      case "tool_start":
        return this.#publish(session, "tool.start", toolStartView(event));
      case "tool_end":
        return this.#publish(session, "tool.complete", toolCompleteView(event));
      case "approval_request":
        return this.#publish(session, "approval.requested", {
          tool: event.request.tool,
          command: event.request.command,
          reason: event.request.reason,
          rule_key: event.request.ruleKey,
        });
      case "approval_result":
        return this.#publish(session, "approval.resolved", {
          rule_key: event.request.ruleKey,
          choice: event.choice,
          approved: event.choice !== "deny",
        });
      case "model_call":
      case "compressed":
      case "notice":
        // Shown by the surface running the turn; the bus has no family for them yet.
        return;
    }
  }

  #publish<T extends EventType>(session: TurnSession, type: T, payload: EventPayload<T>): void {
    if (!this.#events) return;
    const subject = {
      profile: this.#runtime.profile,
      session_id: session.id ?? null,
      source: this.#runtime.source,
    };
    this.#events.publish(eventOf(type, subject, payload));
  }
}
