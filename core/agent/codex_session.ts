/**
 * A session whose turns the Codex app-server runs: the second
 * {@link TurnSession} beside Herald's own loop. The app-server starts with
 * the first turn (so a broken Codex never stops a conversation from
 * opening, and `/codex-runtime auto` can always be typed), one thread per
 * session. Each completed item is stored as it completes
 * (core/codex/items.ts), so what Codex did is kept even when it dies
 * mid-turn. Codex's server requests are answered here:
 *
 * - command and file-change approvals go through the profile's approval
 *   policy (yolo and allowed rules first, then the surface's human, else a
 *   fail-closed deny) and are mapped to Codex's decisions
 *   (core/codex/permissions.ts); a question still open when the turn is
 *   interrupted is answered `cancel`;
 * - a permission escalation is always declined;
 * - an MCP elicitation is accepted for Herald's own tool server and
 *   declined for every other server.
 *
 * A turn that does not complete within the timeout is interrupted and the
 * error is stored; the app-server's 401 from the model is a
 * {@link ModelError}; any other failure ends the turn with what was done,
 * `completed: false` and a response that says how to switch back.
 *
 * @module
 */

import { HeraldError, ModelError, NotFoundError } from "../errors.ts";
import { RpcError } from "../rpc/protocol.ts";
import { sleep } from "../_util/sleep.ts";
import type { ToolCall } from "../models/types.ts";
import type { ApprovalHandler, ApprovalRequest } from "../tools/types.ts";
import { SessionRecord, type SessionRecordOptions } from "./session_record.ts";
import { toNewMessage } from "./history.ts";
import type {
  AgentEvent,
  SendOptions,
  SessionUsage,
  TurnResult,
  TurnSession,
} from "./turn_runtime.ts";
import { toolSummary } from "./turn_view.ts";
import type {
  AppServerConnection,
  AppServerLauncher,
  CodexNotification,
  CodexServerRequest,
} from "../codex/app_server.ts";
import {
  type CodexItem,
  type FileChange,
  fileChanges,
  isCodexItem,
  itemCall,
  projectCall,
  projectItems,
  summariseFileChanges,
} from "../codex/items.ts";
import { approvalDecision } from "../codex/permissions.ts";

/** The provider name a Codex session reports (Codex picks the model provider itself). */
export const CODEX_PROVIDER = "codex";

/** What a user types to leave the Codex runtime. */
export const SWITCH_BACK_HINT =
  "Switch back to Herald's own runtime with /codex-runtime auto if this goes on.";

/** Where a session's Codex thread id is kept, so a resumed session continues its thread. */
export interface CodexThreads {
  get(sessionId: string): Promise<string | undefined>;
  set(sessionId: string, threadId: string): Promise<void>;
}

/** Everything a Codex session needs. */
export interface CodexSessionOptions extends SessionRecordOptions {
  /** Starts an app-server. */
  launch: AppServerLauncher;
  /** The profile's approval policy (the surface's human behind it). */
  approve: ApprovalHandler;
  threads: CodexThreads;
  /** The model asked for at thread start; absent: Codex's own default. */
  model?: string;
  /** `untrusted` to have every command asked about (`codex.permissions: approval-required`). */
  approvalPolicy?: "untrusted";
  /** The name Herald's tool server has in Codex's config (`herald`). */
  toolServer: string;
  /** A turn not completed within this is interrupted and an error recorded. */
  turnTimeoutMs: number;
  /** Herald's version, told to Codex as the client's. */
  clientVersion: string;
  /** How long the handshake, thread start and `turn/start` may take (default 60 s). */
  startTimeoutMs?: number;
  /**
   * Whether Codex's config starts Herald's tool server; then the first turn
   * waits (up to 30 s) for it to be ready, so its tools are offered.
   */
  toolServerConfigured?: () => Promise<boolean>;
}

/** How long an interrupted turn gets to report its end before it is taken as ended. */
const INTERRUPT_GRACE_MS = 5_000;

/** The pause before asking again to interrupt a turn Codex did not take as active yet. */
const INTERRUPT_RETRY_MS = 50;

/** How long the handshake, thread start and `turn/start` may take by default. */
const DEFAULT_START_TIMEOUT_MS = 60_000;

/** Ids of ended turns remembered (their late notifications are dropped). */
const ENDED_TURNS_KEPT = 64;

/** How long Herald's tool server may take to start before the first turn goes ahead without it. */
const TOOL_SERVER_WAIT_MS = 30_000;

/** How long to wait for Codex to report the tool server at all. */
const TOOL_SERVER_UNREPORTED_MS = 3_000;

/** Codex's config warning that means its config.toml was ignored (it would use api.openai.com). */
const INVALID_CONFIG = "Invalid configuration";

type TurnEnd =
  | { kind: "completed"; status: string; error: Record<string, unknown> | null }
  | { kind: "exited"; reason: string }
  | { kind: "timeout" };

/** The state of the turn that runs. */
interface RunningTurn {
  onEvent: (event: AgentEvent) => void;
  /** Aborted when the caller stops the turn or the timeout passes. */
  signal: AbortSignal;
  turnId: string | undefined;
  /** Streamed text per agent-message item, until the item completes. */
  texts: Map<string, string>;
  /** Completed items not stored yet (an agent text waits for a call that may follow it). */
  unstored: CodexItem[];
  /** The file changes of started `fileChange` items, for approval prompts. */
  changes: Map<string, FileChange[]>;
  started: Map<string, number>;
  finalText: string;
  toolCalls: TurnResult["toolCalls"];
  errorMessage: string | undefined;
  end: PromiseWithResolvers<TurnEnd>;
  /** Stores completed items in order, one write at a time. */
  writes: Promise<void>;
  /** Why storing an item failed, when it did (told once the turn ends). */
  storeError: string | undefined;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Shell syntax that makes a command more than one program with arguments. */
const COMPOUND = /[;&|<>`\n]|\$\(/;

/**
 * The approval rule of a Codex command: `codex_exec:<program>` for one
 * simple command (`git push` → `codex_exec:git`), else the whole command
 * (`codex_exec:echo hi && rm -rf ~`), so approving "always" never covers a
 * command that merely starts with an allowed program.
 */
export function commandRule(command: string): string {
  const shell = /^\S*\b(?:ba|z)?sh\s+-l?c\s+(['"])([\s\S]*)\1\s*$/.exec(command.trim());
  const inner = (shell ? shell[2] : command).trim();
  if (inner === "") return "codex_exec:command";
  if (COMPOUND.test(inner)) return `codex_exec:${inner}`;
  return `codex_exec:${inner.split(/\s+/)[0].split("/").pop()}`;
}

/** The HTTP status of a turn error (`codexErrorInfo.httpConnectionFailed.httpStatusCode`), if any. */
function errorStatus(error: Record<string, unknown> | null): number | undefined {
  const info = error?.codexErrorInfo;
  if (info === "unauthorized") return 401;
  const failed = record(record(info).httpConnectionFailed);
  return typeof failed.httpStatusCode === "number" ? failed.httpStatusCode : undefined;
}

/** One session run by the Codex app-server. */
export class CodexSession implements TurnSession {
  readonly #options: CodexSessionOptions;
  readonly #record: SessionRecord;
  #connection: AppServerConnection | undefined;
  #connecting: Promise<AppServerConnection> | undefined;
  /** Ids of ended turns (recent ones). */
  readonly #ended = new Set<string>();
  /** MCP servers' start states as Codex reports them, by name. */
  readonly #serverStates = new Map<string, string>();
  #serverChanged: (() => void) | undefined;
  #threadId: string | undefined;
  #model: string | undefined;
  #turn: RunningTurn | undefined;
  #closed = false;
  readonly #usage = { inputTokens: 0, outputTokens: 0, modelCalls: 0, context: 0 };
  #contextWindow: number | null = null;

  private constructor(options: CodexSessionOptions, id?: string, threadId?: string) {
    this.#options = options;
    this.#record = new SessionRecord(options, id);
    this.#threadId = threadId;
    this.#model = options.model;
  }

  /** A new session; nothing runs or is stored until its first turn. */
  static start(options: CodexSessionOptions): CodexSession {
    return new CodexSession(options);
  }

  /**
   * Continues the stored session `sessionId`: in its Codex thread when it
   * had one, else in a new thread.
   *
   * @throws NotFoundError for an unknown session id.
   */
  static async resume(options: CodexSessionOptions, sessionId: string): Promise<CodexSession> {
    if (!options.store.getSession(sessionId)) {
      throw new NotFoundError("Session", sessionId, "list sessions with `herald sessions list`");
    }
    return new CodexSession(options, sessionId, await options.threads.get(sessionId));
  }

  get id(): string | undefined {
    return this.#record.id;
  }

  get model(): string {
    return this.#model ?? "codex default";
  }

  get provider(): string {
    return CODEX_PROVIDER;
  }

  get title(): string | null {
    return this.#record.title;
  }

  /**
   * Asks Codex for `model` from the next turn on. Codex chooses its own
   * provider, so another provider is refused.
   *
   * @throws HeraldError `codex_provider` when `provider` is not Codex's.
   */
  setModel(model: string, provider?: string): void {
    if (provider !== undefined && provider !== CODEX_PROVIDER) {
      throw new HeraldError(
        "codex_provider",
        "usage",
        `The Codex runtime uses Codex's own model provider; give a model name only (/model ${model}), ` +
          "or switch back to Herald's own runtime with /codex-runtime auto.",
      );
    }
    this.#model = model;
  }

  // deno-lint-ignore require-await
  async setTitle(title: string): Promise<void> {
    this.#record.setTitle(title);
  }

  async end(reason: string): Promise<void> {
    this.#record.end(reason);
    await this.close();
  }

  async deleteStored(): Promise<boolean> {
    await this.close();
    return await this.#record.deleteStored();
  }

  usage(): SessionUsage {
    return {
      contextTokens: this.#usage.context,
      contextWindow: this.#contextWindow,
      inputTokens: this.#usage.inputTokens,
      outputTokens: this.#usage.outputTokens,
      modelCalls: this.#usage.modelCalls,
    };
  }

  /** Stops the app-server; a later turn starts it again in the same thread. */
  async close(): Promise<void> {
    this.#closed = true;
    const connection = this.#connection;
    this.#connection = undefined;
    await connection?.close();
  }

  async send(input: string, options: SendOptions = {}): Promise<TurnResult> {
    const controller = new AbortController();
    const caller = options.signal;
    const stop = () => controller.abort(caller?.reason);
    if (caller?.aborted) stop();
    caller?.addEventListener("abort", stop, { once: true });
    const turn: RunningTurn = {
      onEvent: options.onEvent ?? (() => {}),
      signal: controller.signal,
      turnId: undefined,
      texts: new Map(),
      unstored: [],
      changes: new Map(),
      started: new Map(),
      finalText: "",
      toolCalls: [],
      errorMessage: undefined,
      end: Promise.withResolvers<TurnEnd>(),
      writes: Promise.resolve(),
      storeError: undefined,
    };
    const sessionId = this.#record.ensure(input, {
      model: this.#model ?? null,
      systemPrompt: null,
    });
    await this.#record.append([{ role: "user", content: input, timestamp: this.#record.now() }]);
    this.#closed = false;
    try {
      const connection = await this.#connect(turn);
      if (this.#threadId) await this.#options.threads.set(sessionId, this.#threadId);
      return await this.#run(connection, turn, input, controller);
    } catch (error) {
      if (error instanceof ModelError) throw error;
      return await this.#failed(turn, error);
    } finally {
      caller?.removeEventListener("abort", stop);
      if (this.#turn === turn) this.#turn = undefined;
    }
  }

  async #run(
    connection: AppServerConnection,
    turn: RunningTurn,
    input: string,
    controller: AbortController,
  ): Promise<TurnResult> {
    this.#turn = turn;
    if (turn.signal.aborted) {
      return await this.#finish(turn, { kind: "completed", status: "interrupted", error: null });
    }
    // Why the turn is stopped early, if it is: the timeout wins over an interrupt it causes.
    const stopped = Promise.withResolvers<"timeout" | "abort">();
    const timer = setTimeout(() => {
      stopped.resolve("timeout");
      controller.abort(new Error("turn timeout"));
    }, this.#options.turnTimeoutMs);
    const onAbort = () => stopped.resolve("abort");
    turn.signal.addEventListener("abort", onAbort, { once: true });
    const { approvalPolicy } = this.#options;
    try {
      // Not cancelled with the turn: its id is what an interrupt needs.
      const started = await connection.request<{ turn?: { id?: string } }>("turn/start", {
        threadId: this.#threadId,
        input: [{ type: "text", text: input, text_elements: [] }],
        ...(this.#model ? { model: this.#model } : {}),
        ...(approvalPolicy ? { approvalPolicy } : {}),
      }, { timeoutMs: this.#options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS });
      turn.turnId ??= started.turn?.id;
      const first = await Promise.race([turn.end.promise, stopped.promise]);
      if (typeof first !== "string") return await this.#finish(turn, first);
      const end = await this.#interrupt(connection, turn);
      if (end?.kind === "exited") return await this.#finish(turn, end);
      return await this.#finish(
        turn,
        first === "timeout"
          ? { kind: "timeout" }
          : { kind: "completed", status: "interrupted", error: null },
      );
    } catch (error) {
      // The turn could not start: Codex ended, or answered with an error.
      const ended = await Promise.race([turn.end.promise, Promise.resolve(undefined)]);
      if (ended?.kind === "exited") return await this.#finish(turn, ended);
      throw error;
    } finally {
      clearTimeout(timer);
      turn.signal.removeEventListener("abort", onAbort);
      if (turn.turnId) this.#forget(turn.turnId);
    }
  }

  /** Remembers that turn `id` ended, so its late notifications reach no later turn. */
  #forget(id: string): void {
    this.#ended.add(id);
    if (this.#ended.size > ENDED_TURNS_KEPT) {
      this.#ended.delete(this.#ended.values().next().value!);
    }
  }

  /**
   * Asks Codex to stop the turn and waits, for a grace period, for Codex to
   * end it; resolves to how it ended, or undefined when it did not say.
   */
  async #interrupt(
    connection: AppServerConnection,
    turn: RunningTurn,
  ): Promise<TurnEnd | undefined> {
    if (!turn.turnId || !this.#threadId) return undefined;
    const grace = AbortSignal.timeout(INTERRUPT_GRACE_MS);
    const gone = new Promise<undefined>((resolve) =>
      grace.addEventListener("abort", () => resolve(undefined), { once: true })
    );
    const params = { threadId: this.#threadId, turnId: turn.turnId };
    let ended: TurnEnd | undefined;
    turn.end.promise.then((end) => ended = end);
    // A turn that has only just started may not be active yet ("no active turn to
    // interrupt"): asked again until Codex takes it, the turn ends, or the grace is over.
    while (!grace.aborted && ended === undefined) {
      try {
        await connection.request("turn/interrupt", params, { signal: grace });
        break;
      } catch (error) {
        if (!(error instanceof RpcError)) break;
        await Promise.race([turn.end.promise, gone, sleep(INTERRUPT_RETRY_MS)]);
      }
    }
    return await Promise.race([turn.end.promise, gone]);
  }

  /** Stores what is left of the turn and makes its result. */
  async #finish(turn: RunningTurn, end: TurnEnd): Promise<TurnResult> {
    await this.#settle(turn);
    const sessionId = this.#record.id!;
    const base = {
      sessionId,
      toolCalls: turn.toolCalls,
      hitMaxTurns: false,
      modelCalls: 1,
    };
    this.#usage.modelCalls += 1;
    if (end.kind === "timeout") {
      const seconds = Math.round(this.#options.turnTimeoutMs / 1000);
      const message = `The Codex turn did not complete within ${seconds} s and was interrupted.`;
      turn.onEvent({ type: "notice", level: "warning", code: "codex_turn_timeout", message });
      await this.#record.append([{
        role: "assistant",
        content: `[${message}]`,
        timestamp: this.#record.now(),
      }]);
      return {
        ...base,
        response: this.#withNote(turn.finalText, `${message} ${SWITCH_BACK_HINT}`),
        aborted: false,
        completed: false,
      };
    }
    if (end.kind === "exited") {
      this.#connection = undefined;
      const message =
        `Codex stopped during the turn (${end.reason}); what it did so far is stored.`;
      turn.onEvent({ type: "notice", level: "warning", code: "codex_exited", message });
      return {
        ...base,
        response: this.#withNote(turn.finalText, `${message} ${SWITCH_BACK_HINT}`),
        aborted: false,
        completed: false,
      };
    }
    if (end.status === "interrupted") {
      return { ...base, response: turn.finalText, aborted: true };
    }
    if (end.status === "failed") {
      const reason = text(end.error?.message) || turn.errorMessage || "the turn failed";
      const status = errorStatus(end.error);
      if (status === 401) {
        throw new ModelError(
          "model_auth",
          `Codex's model provider refused the credentials (401 Unauthorized): ${reason}. ` +
            "Sign Codex in with `codex login` or set OPENAI_API_KEY, or switch back with /codex-runtime auto.",
          CODEX_PROVIDER,
          401,
        );
      }
      return {
        ...base,
        response: this.#withNote(
          turn.finalText,
          `Codex could not finish the turn: ${reason}. ${SWITCH_BACK_HINT}`,
        ),
        aborted: false,
        completed: false,
      };
    }
    return { ...base, response: turn.finalText, aborted: false };
  }

  #withNote(partial: string, note: string): string {
    return partial === "" ? note : `${partial}\n\n${note}`;
  }

  /** A turn that could not run (Codex did not start, a protocol error): a partial result. */
  async #failed(turn: RunningTurn, error: unknown): Promise<TurnResult> {
    await this.#settle(turn).catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    turn.onEvent({ type: "notice", level: "warning", code: "codex_failed", message: reason });
    return {
      sessionId: this.#record.id!,
      response: this.#withNote(
        turn.finalText,
        `The Codex runtime failed: ${reason}. ${SWITCH_BACK_HINT}`,
      ),
      toolCalls: turn.toolCalls,
      aborted: false,
      hitMaxTurns: false,
      modelCalls: 0,
      completed: false,
    };
  }

  /** Stores the completed items not stored yet and any text still streaming. */
  async #settle(turn: RunningTurn): Promise<void> {
    await turn.writes;
    if (turn.storeError) {
      turn.onEvent({
        type: "notice",
        level: "warning",
        code: "codex_store_failed",
        message: `Some of what Codex did could not be stored in the session: ${turn.storeError}`,
      });
    }
    for (const [id, partial] of turn.texts) {
      if (partial === "") continue;
      turn.unstored.push({ type: "agentMessage", id, text: partial });
      turn.finalText = partial;
    }
    turn.texts.clear();
    const rest = turn.unstored.splice(0);
    if (rest.length > 0) await this.#store(rest);
  }

  async #store(items: CodexItem[]): Promise<void> {
    const now = this.#record.now();
    const messages = projectItems(items).map((message) => toNewMessage(message, now));
    if (messages.length > 0) await this.#record.append(messages);
  }

  /**
   * The app-server connection and thread, started (or resumed) on first
   * use; concurrent callers share one start.
   */
  #connect(turn: RunningTurn): Promise<AppServerConnection> {
    if (this.#connection) return Promise.resolve(this.#connection);
    this.#connecting ??= this.#start(turn).finally(() => this.#connecting = undefined);
    return this.#connecting;
  }

  async #start(turn: RunningTurn): Promise<AppServerConnection> {
    const connection = await this.#options.launch((method, params) => this.#answer(method, params));
    const warnings: string[] = [];
    this.#serverStates.clear();
    const stop = connection.onNotification((notification) => {
      if (notification.method === "configWarning") {
        const summary = text(notification.params.summary);
        if (summary.includes(INVALID_CONFIG)) {
          warnings.push(`${summary} ${text(notification.params.details)}`.trim());
        }
      }
      this.#dispatch(notification);
    });
    const timeoutMs = this.#options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    try {
      await connection.request("initialize", {
        clientInfo: { name: "herald", title: "Herald", version: this.#options.clientVersion },
        capabilities: { experimentalApi: false },
      }, { timeoutMs });
      await connection.notify("initialized");
      const thread = await this.#openThread(connection, timeoutMs, turn);
      if (warnings.length > 0) {
        throw new HeraldError(
          "codex_config_invalid",
          "state",
          `Codex ignored its config.toml (${
            warnings[0]
          }); fix the file, or run \`herald codex-runtime migrate\`.`,
        );
      }
      this.#threadId = text(record(thread.thread).id);
      const model = text(thread.model);
      if (model) this.#model ??= model;
      if (await this.#options.toolServerConfigured?.()) await this.#toolServerReady();
    } catch (error) {
      stop();
      await connection.close();
      throw error;
    }
    // One listener per app-server: its end ends whatever turn runs then.
    connection.exited.then((reason) => {
      if (this.#connection === connection) this.#connection = undefined;
      this.#turn?.end.resolve({ kind: "exited", reason });
    });
    if (this.#closed) {
      await connection.close();
      throw new Error("the session was closed");
    }
    this.#connection = connection;
    return connection;
  }

  /**
   * Waits until Codex reports Herald's tool server started (or failed), so
   * the first turn is offered its tools; gives up after
   * {@link TOOL_SERVER_WAIT_MS}, or after a few seconds without any report.
   */
  async #toolServerReady(): Promise<void> {
    const name = this.#options.toolServer;
    const started = Date.now();
    while (Date.now() - started < TOOL_SERVER_WAIT_MS) {
      const state = this.#serverStates.get(name);
      if (state !== undefined && state !== "starting") return;
      if (state === undefined && Date.now() - started > TOOL_SERVER_UNREPORTED_MS) return;
      const changed = Promise.withResolvers<void>();
      this.#serverChanged = changed.resolve;
      await Promise.race([changed.promise, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
  }

  async #openThread(
    connection: AppServerConnection,
    timeoutMs: number,
    turn: RunningTurn,
  ): Promise<Record<string, unknown>> {
    if (this.#threadId) {
      try {
        return await connection.request("thread/resume", { threadId: this.#threadId }, {
          timeoutMs,
        });
      } catch (error) {
        // Only Codex's own refusal means the thread is gone (another CODEX_HOME, deleted);
        // a timeout or a dead app-server is the turn's failure.
        if (!(error instanceof RpcError)) throw error;
        turn.onEvent({
          type: "notice",
          level: "warning",
          code: "codex_thread_lost",
          message: `Codex no longer has this session's thread (${error.message}); it continues ` +
            "in a new one without the earlier turns.",
        });
      }
    }
    const { approvalPolicy } = this.#options;
    return await connection.request("thread/start", {
      cwd: this.#options.cwd,
      ...(this.#model ? { model: this.#model } : {}),
      ...(approvalPolicy ? { approvalPolicy } : {}),
    }, { timeoutMs });
  }

  /** Routes a notification of this session's thread to the running turn. */
  #dispatch({ method, params }: CodexNotification): void {
    if (params.threadId !== undefined && params.threadId !== this.#threadId) return;
    if (method === "mcpServer/startupStatus/updated") {
      this.#serverStates.set(text(params.name), text(params.status));
      this.#serverChanged?.();
      return;
    }
    if (method === "thread/tokenUsage/updated") this.#countUsage(params);
    const turn = this.#turn;
    if (!turn) return;
    // Notifications of a turn: only the running one's count. Its id comes from `turn/started`
    // (or the `turn/start` answer); until then a late one of an earlier turn is dropped.
    const turnId = text(params.turnId) || text(record(params.turn).id);
    if (turnId) {
      if (this.#ended.has(turnId)) return;
      if (turn.turnId === undefined && method === "turn/started") turn.turnId = turnId;
      if (turnId !== turn.turnId) return;
    }
    switch (method) {
      case "item/agentMessage/delta": {
        const id = text(params.itemId);
        const delta = text(params.delta);
        turn.texts.set(id, (turn.texts.get(id) ?? "") + delta);
        if (delta !== "") turn.onEvent({ type: "text", delta });
        return;
      }
      case "item/started":
        return this.#itemStarted(turn, params.item);
      case "item/completed":
        return this.#itemCompleted(turn, params.item);
      case "error":
        turn.errorMessage = text(record(params.error).message) || turn.errorMessage;
        return;
      case "turn/completed": {
        const ended = record(params.turn);
        const error = ended.error ? record(ended.error) : null;
        turn.end.resolve({ kind: "completed", status: text(ended.status), error });
        return;
      }
    }
  }

  #itemStarted(turn: RunningTurn, value: unknown): void {
    if (!isCodexItem(value)) return;
    if (value.type === "fileChange") turn.changes.set(value.id, fileChanges(value));
    const call = itemCall(value);
    if (!call) return;
    turn.started.set(value.id, Date.now());
    turn.onEvent({ type: "tool_start", call });
  }

  #itemCompleted(turn: RunningTurn, value: unknown): void {
    if (!isCodexItem(value) || value.type === "userMessage") return;
    if (value.type === "agentMessage") {
      turn.texts.delete(value.id);
      turn.finalText = text(value.text);
      const earlier = turn.unstored.splice(0);
      turn.unstored.push(value);
      if (earlier.length > 0) this.#queueStore(turn, earlier);
      return;
    }
    const projected = projectCall(value);
    if (!projected) return;
    const items = [...turn.unstored.splice(0), value];
    this.#queueStore(turn, items);
    turn.toolCalls.push({
      name: projected.call.name,
      arguments: projected.call.arguments,
      ok: projected.ok,
    });
    const startedAt = turn.started.get(value.id);
    turn.onEvent({
      type: "tool_end",
      call: projected.call as ToolCall,
      ok: projected.ok,
      summary: projected.ok ? toolSummary(projected.result) : projected.failure ?? "failed",
      durationMs: startedAt === undefined ? 0 : Date.now() - startedAt,
      content: projected.result,
      failure: projected.failure,
    });
  }

  #queueStore(turn: RunningTurn, items: CodexItem[]): void {
    turn.writes = turn.writes.then(() => this.#store(items)).catch((error) => {
      turn.storeError ??= error instanceof Error ? error.message : String(error);
    });
  }

  #countUsage(params: Record<string, unknown>): void {
    const usage = record(params.tokenUsage);
    const last = record(usage.last);
    const input = typeof last.inputTokens === "number" ? last.inputTokens : 0;
    const output = typeof last.outputTokens === "number" ? last.outputTokens : 0;
    this.#usage.inputTokens += input;
    this.#usage.outputTokens += output;
    this.#usage.context = input + output;
    if (typeof usage.modelContextWindow === "number") {
      this.#contextWindow = usage.modelContextWindow;
    }
    const id = this.#record.id;
    if (id) {
      try {
        this.#options.store.addUsage(id, {
          inputTokens: input,
          outputTokens: output,
          apiCallCount: 1,
        });
      } catch {
        // The session was deleted meanwhile.
      }
    }
  }

  /** Answers one of Codex's server requests. */
  async #answer(
    method: CodexServerRequest,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const turn = this.#turn;
    switch (method) {
      case "item/commandExecution/requestApproval": {
        const command = text(params.command) || "a command";
        const cwd = text(params.cwd) || this.#options.cwd;
        const why = text(params.reason);
        return {
          decision: await this.#decide(turn, {
            tool: "codex",
            command,
            reason: `Codex requests exec in ${cwd}${why ? `: ${why}` : ""}`,
            ruleKey: commandRule(command),
          }),
        };
      }
      case "item/fileChange/requestApproval": {
        const summary = summariseFileChanges(turn?.changes.get(text(params.itemId)) ?? []);
        const why = text(params.reason);
        const root = text(params.grantRoot);
        return {
          decision: await this.#decide(turn, {
            tool: "codex",
            command: summary || why || "file changes",
            reason: `Codex requests file changes${root ? ` and write access to ${root}` : ""}` +
              (why && summary ? `: ${why}` : ""),
            ruleKey: "codex_file_change",
          }),
        };
      }
      case "item/permissions/requestApproval":
        turn?.onEvent({
          type: "notice",
          level: "warning",
          code: "codex_permissions_declined",
          message: `Declined Codex's request for more permissions${
            text(params.reason) ? ` (${text(params.reason)})` : ""
          }: Herald never grants an escalation; change codex.permissions instead.`,
        });
        return { permissions: {}, scope: "turn" };
      case "mcpServer/elicitation/request": {
        if (text(params.serverName) === this.#options.toolServer) {
          return { action: "accept", content: {}, _meta: null };
        }
        turn?.onEvent({
          type: "notice",
          level: "info",
          code: "codex_elicitation_declined",
          message: `Declined a request for input from the MCP server "${
            text(params.serverName)
          }" under Codex: only Herald's own tool server is answered.`,
        });
        return { action: "decline", content: null, _meta: null };
      }
    }
  }

  /** One approval through the policy, as Codex's decision. */
  async #decide(turn: RunningTurn | undefined, request: ApprovalRequest): Promise<string> {
    if (!turn) return "decline";
    if (turn.signal.aborted) return "cancel";
    turn.onEvent({ type: "approval_request", request });
    const choice = await this.#options.approve(request, { signal: turn.signal });
    turn.onEvent({ type: "approval_result", request, choice });
    if (turn.signal.aborted) return "cancel";
    return approvalDecision(choice);
  }
}
