/**
 * The interactive chat: `herald` (or `herald chat`) on a terminal.
 *
 * The prompt is drawn first and the agent runtime loads behind it, so the
 * user can start typing at once. Finished output (the user's messages, the
 * rendered answer, tool blocks) scrolls up as ordinary terminal text; the
 * live region below it (the answer's unfinished tail, the spinner, queued
 * messages, the input box and the status line) is redrawn in place, so text
 * typed during a turn never lands inside the answer: it is shown as queued
 * and sent when the turn ends.
 *
 * The conversation object (core/agent/conversation.ts) does the work; this
 * module only turns keys into its input and its events into lines.
 *
 * @module
 */

import type { Conversation, ConversationResult } from "../../core/agent/conversation.ts";
import type { AgentEvent, SessionUsage, TurnResult } from "../../core/agent/turn_runtime.ts";
import type { ToolCall } from "../../core/models/types.ts";
import type { ApprovalNotice } from "../../core/tools/approval_policy.ts";
import type { BackendHooks } from "../chat/tui_backend.ts";
import type { ApprovalChoice, ApprovalRequest } from "../../core/tools/types.ts";
import { toolBlock, toolTitle } from "./blocks.ts";
import { combineCompleters, pathCompleter, slashCompleter, type SlashEntry } from "./complete.ts";
import { LineEditor } from "./editor.ts";
import { History } from "./history.ts";
import { type Key, KeyDecoder } from "./keys.ts";
import { MarkdownStream } from "./markdown.ts";
import { LiveScreen } from "./screen.ts";
import { sanitizeText, type Style } from "./style.ts";
import type { TuiTerminal } from "./terminal.ts";
import { ansi } from "./terminal.ts";
import {
  approvalLines,
  type PickerEntry,
  pickerLines,
  PROMPT,
  queuedLines,
  type RecapLine,
  recapLines,
  replyLines,
  spinnerLine,
  statusLine,
  userEcho,
} from "./views.ts";
import { wrap } from "./wrap.ts";

/** What the TUI hands the code that opens the conversation. */
export type TuiHooks = BackendHooks;

/** Options of {@link runTui}. */
export interface TuiOptions {
  terminal: TuiTerminal;
  style: Style;
  /** The profile's name, for the status line. */
  profile: string;
  /** The program's version, for the header. */
  version: string;
  /** The folder the agent works in (paths after `@` complete from here). */
  cwd: string;
  /** Where the input history is kept; absent: not kept. */
  historyPath?: string;
  /**
   * Opens the conversation; called once, right after the prompt is drawn.
   * `resumed` names the stored session it continues (its recap is shown).
   */
  open(hooks: TuiHooks): Promise<{ conversation: Conversation; resumed?: string }>;
  /** The last exchanges of a stored session, for the recap after a resume. */
  recap?(sessionId: string): Promise<RecapLine[]>;
  /** The profile's recent sessions, for `/resume` without an id. */
  recentSessions?(): Promise<PickerEntry[]>;
  /** Open the session picker first (`herald resume`). */
  pick?: boolean;
}

/** How the interactive chat ended. */
export interface TuiResult {
  /** The session that was open, or null when nothing was stored. */
  sessionId: string | null;
  deleted: boolean;
  /** True when a turn failed (the exit code says so). */
  failed: boolean;
  /** True when the conversation could not be opened (the screen said why). */
  startFailed: boolean;
}

/** How long a second Ctrl-C at an idle prompt has to come to exit. */
const EXIT_WINDOW_MS = 2000;
/** Redraws of the live region while text streams, at most this often. */
const FRAME_MS = 16;

interface PendingApproval {
  request: ApprovalRequest;
  /** When the question appeared (epoch ms). */
  shownAt: number;
  deadline: number;
  answer(choice: ApprovalChoice): void;
}

/** Keys pressed this soon after the approval question appeared do not answer it. */
const APPROVAL_GRACE_MS = 400;

const APPROVAL_KEYS: Record<string, ApprovalChoice> = {
  o: "once",
  y: "once",
  s: "session",
  a: "always",
  d: "deny",
  n: "deny",
};

/**
 * Runs the interactive chat on `options.terminal` until the user leaves
 * (`/exit`, Ctrl-D, Ctrl-C twice at an idle prompt, or the end of input).
 */
export async function runTui(options: TuiOptions): Promise<TuiResult> {
  const history = options.historyPath
    ? await History.load(options.historyPath).catch(() => History.memory())
    : History.memory();
  const tui = new ChatTui(options, history);
  return await tui.run();
}

class ChatTui {
  readonly #options: TuiOptions;
  readonly #style: Style;
  readonly #screen: LiveScreen;
  readonly #editor: LineEditor;
  readonly #decoder = new KeyDecoder();
  readonly #done = Promise.withResolvers<TuiResult>();
  #conversation: Conversation | undefined;
  #opening: Promise<Conversation | undefined> | undefined;
  #slashEntries: SlashEntry[] = [];
  #usage: SessionUsage | undefined;
  readonly #queue: string[] = [];
  #busy = false;
  #spinner: { label: string; since: number } | undefined;
  /** A failed request waiting for its next attempt: what failed, and when it is retried. */
  #retry: { message: string; at: number; attempt: number; attempts: number } | undefined;
  #markdown: MarkdownStream | undefined;
  #streamed = "";
  /** The tool calls running now, by id. */
  readonly #tools = new Map<string, ToolCall>();
  #approval: PendingApproval | undefined;
  #picker: { entries: PickerEntry[]; selected: number } | undefined;
  #exitArmedUntil = 0;
  /** When the last key arrived (epoch ms), to tell a deliberate key press from typing. */
  #lastKeyAt = 0;
  #statusMessage: string | undefined;
  #tick: ReturnType<typeof setInterval> | undefined;
  #frame: ReturnType<typeof setTimeout> | undefined;
  #escapeTimer: ReturnType<typeof setTimeout> | undefined;
  #exitHintTimer: ReturnType<typeof setTimeout> | undefined;
  #failed = false;
  #startFailed = false;
  #closing = false;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(options: TuiOptions, history: History) {
    this.#options = options;
    this.#style = options.style;
    this.#screen = new LiveScreen(options.terminal);
    this.#editor = new LineEditor({
      history,
      complete: combineCompleters(
        slashCompleter(() => this.#slashEntries),
        pathCompleter(options.cwd),
      ),
    });
  }

  async run(): Promise<TuiResult> {
    const { terminal, style } = this.#options;
    const stopResize = terminal.onResize(() => this.#redraw());
    // Killed or hung up: leave like Ctrl-D, so the terminal is given back as it was.
    const stopSignals = terminal.onTerminate?.(() => void this.#leave()) ?? (() => {});
    let reading: Promise<void> | undefined;
    try {
      terminal.setRaw(true);
      terminal.write(ansi.bracketedPasteOn);
      this.#screen.print(
        [style.bold(`Herald ${this.#options.version}`) + style.muted(` · ${this.#options.cwd}`)],
        ...this.#compose(),
      );
      this.#opening = this.#open();
      reading = this.#readKeys();
      return await this.#done.promise;
    } finally {
      stopResize();
      stopSignals();
      clearInterval(this.#tick);
      clearTimeout(this.#frame);
      clearTimeout(this.#escapeTimer);
      clearTimeout(this.#exitHintTimer);
      await this.#reader?.cancel().catch(() => {});
      await reading?.catch(() => {});
      terminal.write(ansi.bracketedPasteOff + ansi.showCursor);
      terminal.setRaw(false);
    }
  }

  // -- the conversation ----------------------------------------------------

  async #open(): Promise<Conversation | undefined> {
    const style = this.#style;
    try {
      const { conversation, resumed } = await this.#options.open({
        approvals: {
          ask: (request, { timeoutMs, signal }) => this.#ask(request, timeoutMs, signal),
          onNotice: (notice) => this.#print(this.#noticeLines(notice)),
        },
        warn: (message) =>
          this.#print(
            wrap(`! ${sanitizeText(message)}`, this.#screen.columns).map((line) =>
              style.warning(line)
            ),
          ),
      });
      this.#conversation = conversation;
      this.#usage = conversation.usage;
      await this.#refreshCompletions();
      if (resumed) await this.#showRecap(resumed);
      if (this.#options.pick) await this.#openPicker();
      this.#redraw();
      return conversation;
    } catch (error) {
      this.#startFailed = true;
      this.#print(this.#errorLines(error));
      await this.#finish({ sessionId: null, deleted: false });
      return undefined;
    }
  }

  async #refreshCompletions(): Promise<void> {
    const conversation = this.#conversation;
    if (!conversation) return;
    const snapshot = await conversation.catalog?.snapshot().catch(() => undefined);
    this.#slashEntries = conversation.registry.complete("", snapshot).map((entry) => ({
      name: entry.name,
      description: entry.description,
    }));
  }

  #submit(text: string): void {
    if (text.trim() === "") return;
    if (this.#busy || !this.#conversation) {
      this.#queue.push(text);
      if (!this.#busy) void this.#drain();
      return;
    }
    void this.#send(text);
  }

  /** Sends queued messages one after another, once the conversation is open and idle. */
  async #drain(): Promise<void> {
    if (this.#busy) return;
    const conversation = this.#conversation ?? await this.#opening;
    if (!conversation || this.#busy) return;
    const next = this.#queue.shift();
    if (next !== undefined) await this.#send(next);
  }

  /** Runs one input to its end; never rejects (a failure is shown and remembered). */
  async #send(text: string): Promise<void> {
    const conversation = this.#conversation;
    if (!conversation || this.#closing) return;
    const style = this.#style;
    this.#busy = true;
    this.#spinner = { label: "thinking", since: Date.now() };
    this.#retry = undefined;
    this.#startAnswer();
    this.#tick = setInterval(() => this.#redraw(), 80);
    this.#print(userEcho(style, this.#screen.columns, text));
    try {
      const result = await conversation.input(text, {
        onEvent: (event) => this.#onEvent(event),
        // `/blueprint <name>` says what it starts before its fill request runs as a turn.
        onNotice: (notice) => this.#print(replyLines(notice, this.#screen.columns)),
      });
      this.#stopSpinner();
      // Still busy: a recap or the picker loads before the next message goes.
      await this.#show(result);
    } catch (error) {
      this.#stopSpinner();
      this.#endAnswer();
      this.#failed = true;
      this.#print(this.#errorLines(error));
    } finally {
      this.#stopSpinner();
      this.#busy = false;
    }
    if (!conversation.closed) {
      this.#usage = conversation.usage;
      // Skills or bundles added meanwhile complete from now on.
      await this.#refreshCompletions().catch(() => {});
    }
    this.#redraw();
    if (!this.#closing && this.#queue.length > 0) void this.#drain();
  }

  #stopSpinner(): void {
    clearInterval(this.#tick);
    this.#tick = undefined;
    this.#spinner = undefined;
    this.#retry = undefined;
    this.#tools.clear();
  }

  async #show(result: ConversationResult): Promise<void> {
    const style = this.#style;
    const width = this.#screen.columns;
    switch (result.kind) {
      case "turn":
        return this.#finishTurn(result.result);
      case "reply":
      case "set_model":
        this.#endAnswer();
        return this.#print(replyLines(result.text, width));
      case "new_session":
        this.#endAnswer();
        if (result.clear) this.#screen.clear();
        return this.#print([style.muted(result.text)]);
      case "resumed":
        this.#endAnswer();
        this.#print([style.muted(result.text)]);
        return await this.#showRecap(result.sessionId);
      case "pick_session":
        this.#endAnswer();
        return await this.#openPicker();
      case "exit":
        this.#endAnswer();
        this.#print([style.muted(result.text)]);
        return await this.#finish({ sessionId: result.sessionId, deleted: result.deleted });
    }
  }

  #finishTurn(result: TurnResult): void {
    const style = this.#style;
    // The final answer may add to what streamed (a verifier footer), or not have streamed at all.
    if (result.response.startsWith(this.#streamed)) {
      this.#markdown?.push(result.response.slice(this.#streamed.length));
    } else {
      this.#endAnswer();
      this.#startAnswer();
      this.#markdown?.push(result.response);
    }
    this.#endAnswer();
    if (result.aborted) this.#print([style.muted("(interrupted)")]);
    if (result.hitMaxTurns) {
      this.#print([style.warning("! the turn used all its model calls (agent.max_turns)")]);
    }
  }

  async #showRecap(sessionId: string): Promise<void> {
    const recap = await this.#options.recap?.(sessionId).catch(() => []) ?? [];
    this.#print(recapLines(this.#style, this.#screen.columns, recap));
  }

  async #openPicker(): Promise<void> {
    const entries = await this.#options.recentSessions?.().catch(() => []) ?? [];
    const current = this.#conversation?.sessionId;
    this.#picker = { entries: entries.filter((entry) => entry.id !== current), selected: 0 };
    this.#redraw();
  }

  // -- events of a turn ----------------------------------------------------

  #onEvent(event: AgentEvent): void {
    const style = this.#style;
    switch (event.type) {
      case "text":
        this.#retry = undefined;
        this.#streamed += event.delta;
        this.#print(this.#markdown?.push(event.delta) ?? []);
        return this.#schedule();
      case "model_call":
        this.#retry = undefined;
        this.#setSpinner("thinking");
        return this.#schedule();
      case "tool_start":
        this.#endAnswer();
        this.#startAnswer();
        this.#tools.set(event.call.id, event.call);
        this.#setSpinner(`running ${event.call.name}`);
        return this.#schedule();
      case "tool_end": {
        this.#tools.delete(event.call.id);
        const width = this.#screen.columns;
        // A write_file's diff comes from the tool's own `before` on the event.
        this.#print([toolTitle(event.call, style, width), ...toolBlock(event, style, width)]);
        if (this.#tools.size === 0) this.#setSpinner("thinking");
        return;
      }
      case "compressed":
        return this.#print([style.muted(`· ${sanitizeText(event.message)}`)]);
      case "notice":
        if (event.code === "model_retry" && event.retry) {
          this.#retry = {
            message: sanitizeText(event.retry.reason),
            at: Date.now() + event.retry.delayMs,
            attempt: event.retry.attempt,
            attempts: event.retry.attempts,
          };
          return this.#schedule();
        }
        return this.#print(
          wrap(
            `${event.level === "warning" ? "!" : "·"} ${sanitizeText(event.message)}`,
            this.#screen.columns,
          ).map((line) => event.level === "warning" ? style.warning(line) : style.muted(line)),
        );
      case "approval_request":
      case "approval_result":
        return;
    }
  }

  #setSpinner(label: string): void {
    if (this.#spinner) this.#spinner.label = label;
  }

  #startAnswer(): void {
    this.#markdown = new MarkdownStream(this.#style, this.#screen.columns);
    this.#streamed = "";
  }

  /** Prints what is left of the answer being rendered and ends it. */
  #endAnswer(): void {
    const markdown = this.#markdown;
    this.#markdown = undefined;
    this.#streamed = "";
    if (markdown) this.#print(markdown.end());
  }

  // -- approvals -----------------------------------------------------------

  #ask(request: ApprovalRequest, timeoutMs: number, signal: AbortSignal): Promise<ApprovalChoice> {
    return new Promise((resolve) => {
      const answer = (choice: ApprovalChoice) => {
        if (this.#approval !== pending) return;
        this.#approval = undefined;
        signal.removeEventListener("abort", withdraw);
        const verb = choice === "deny" ? "denied" : `allowed (${choice})`;
        this.#print([this.#style.muted(`· ${request.tool}: ${verb}`)]);
        resolve(choice);
      };
      const withdraw = () => answer("deny");
      const now = Date.now();
      const pending: PendingApproval = { request, shownAt: now, deadline: now + timeoutMs, answer };
      this.#approval = pending;
      signal.addEventListener("abort", withdraw, { once: true });
      this.#redraw();
    });
  }

  /** An error, wrapped to the screen (never cut: it says what to do). */
  #errorLines(error: unknown): string[] {
    const message = sanitizeText(errorMessage(error));
    return wrap(`✗ ${message}`, this.#screen.columns, { hangingIndent: "  " })
      .map((line) => this.#style.error(line));
  }

  #noticeLines(notice: ApprovalNotice): string[] {
    const style = this.#style;
    const text = notice.code === "non_interactive"
      ? `! denied ${notice.request.tool}: ${notice.request.command}`
      : `! ${notice.message}`;
    return wrap(sanitizeText(text), this.#screen.columns).map((line) => style.warning(line));
  }

  // -- keys ----------------------------------------------------------------

  async #readKeys(): Promise<void> {
    const reader = this.#options.terminal.input.getReader();
    this.#reader = reader;
    try {
      while (!this.#closing) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch {
          break; // The input was cancelled on the way out.
        }
        if (chunk.done) break;
        this.#keys(this.#decoder.feed(chunk.value));
        clearTimeout(this.#escapeTimer);
        if (this.#decoder.pending) {
          // A lone Escape: no more bytes of a sequence are coming.
          this.#escapeTimer = setTimeout(() => this.#keys(this.#decoder.flush()), 40);
        }
      }
    } finally {
      reader.releaseLock();
    }
    // The end of input leaves like Ctrl-D.
    if (!this.#closing) await this.#leave();
  }

  #keys(keys: readonly Key[]): void {
    try {
      for (const key of keys) this.#onKey(key);
    } catch (error) {
      // A bug in handling one key must not end the chat: show it and go on.
      this.#print(this.#errorLines(error));
    }
    this.#redraw();
  }

  #onKey(key: Key): void {
    if (this.#closing) return;
    const isCtrlC = key.kind === "ctrl" && key.key === "c";
    if (!isCtrlC) {
      // Anything else typed disarms the exit a first Ctrl-C armed.
      this.#exitArmedUntil = 0;
      if (this.#statusMessage) this.#statusMessage = undefined;
    }
    const previousKeyAt = this.#lastKeyAt;
    this.#lastKeyAt = Date.now();
    if (this.#approval) return this.#approvalKey(key, previousKeyAt);
    if (this.#picker) return this.#pickerKey(key);
    const action = this.#editor.handle(key);
    switch (action.kind) {
      case "submit":
        return this.#submit(action.text);
      case "interrupt":
        return this.#ctrlC();
      case "eof":
        void this.#leave();
        return;
      case "clear_screen":
        return this.#screen.clear();
      case "none":
        return;
    }
  }

  /**
   * A key while the approval question is open. Only a deliberate single key
   * press answers it: not in the first moments after the question appeared,
   * and not in the middle of typing (a key soon after the previous one), so
   * text the user was typing for the queue never answers by accident (it
   * goes to the input box). Ctrl-C denies and stops the turn.
   */
  #approvalKey(key: Key, previousKeyAt: number): void {
    const approval = this.#approval!;
    if (key.kind === "ctrl" && key.key === "c") {
      approval.answer("deny");
      this.#conversation?.interrupt();
      return;
    }
    if (key.kind === "escape") return approval.answer("deny");
    const now = Date.now();
    const settled = now - approval.shownAt >= APPROVAL_GRACE_MS &&
      now - previousKeyAt >= APPROVAL_GRACE_MS;
    if (key.kind === "text" && key.text.length === 1 && settled) {
      const choice = APPROVAL_KEYS[key.text.toLowerCase()];
      if (choice) return approval.answer(choice);
    }
    if (key.kind === "text" || key.kind === "paste") this.#editor.handle(key);
  }

  #pickerKey(key: Key): void {
    const picker = this.#picker!;
    const last = picker.entries.length - 1;
    switch (key.kind) {
      case "up":
        picker.selected = Math.max(0, picker.selected - 1);
        return;
      case "down":
        picker.selected = Math.min(last, picker.selected + 1);
        return;
      case "enter": {
        const entry = picker.entries[picker.selected];
        this.#picker = undefined;
        if (entry) this.#submit(`/resume ${entry.id}`);
        return;
      }
      case "escape":
        this.#picker = undefined;
        return;
      case "ctrl":
        if (key.key === "c") this.#picker = undefined;
        return;
    }
  }

  /** Ctrl-C: stops the turn; at an idle prompt clears the input, or exits when pressed twice. */
  #ctrlC(): void {
    if (this.#busy) {
      this.#conversation?.interrupt();
      // Queued messages go back to the input box rather than being sent after an interrupt.
      if (this.#queue.length > 0) {
        const restored = [...this.#queue.splice(0), this.#editor.text].filter(Boolean);
        this.#editor.set(restored.join("\n"));
      }
      return;
    }
    if (this.#editor.text !== "") {
      this.#editor.clear();
      return;
    }
    const now = Date.now();
    if (now < this.#exitArmedUntil) {
      void this.#leave();
      return;
    }
    this.#exitArmedUntil = now + EXIT_WINDOW_MS;
    this.#statusMessage = "Press Ctrl-C again to exit";
    clearTimeout(this.#exitHintTimer);
    this.#exitHintTimer = setTimeout(() => {
      if (
        this.#statusMessage === "Press Ctrl-C again to exit" && Date.now() >= this.#exitArmedUntil
      ) {
        this.#statusMessage = undefined;
        this.#redraw();
      }
    }, EXIT_WINDOW_MS + 10);
  }

  /** Leaves: stops a running turn, closes the conversation, and ends the run. */
  async #leave(): Promise<void> {
    if (this.#closing) return;
    const conversation = this.#conversation ?? await this.#opening;
    const closed = conversation
      ? await conversation.close().catch(() => ({
        sessionId: conversation.sessionId ?? null,
        deleted: false,
      }))
      : { sessionId: null, deleted: false };
    await this.#finish(closed);
  }

  async #finish(closed: { sessionId: string | null; deleted: boolean }): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#approval?.answer("deny");
    this.#endAnswer();
    this.#screen.close();
    await this.#reader?.cancel().catch(() => {});
    this.#done.resolve({ ...closed, failed: this.#failed, startFailed: this.#startFailed });
  }

  // -- drawing -------------------------------------------------------------

  /** Prints finished lines above the live region, redrawing it in the same frame. */
  #print(lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (this.#closing) {
      if (lines.length > 0) this.#options.terminal.write(lines.map((l) => `${l}\r\n`).join(""));
      return;
    }
    const [live, cursor] = this.#compose();
    this.#screen.print(lines, live, cursor);
  }

  #schedule(): void {
    this.#frame ??= setTimeout(() => {
      this.#frame = undefined;
      this.#redraw();
    }, FRAME_MS);
  }

  #redraw(): void {
    if (this.#closing) return;
    clearTimeout(this.#frame);
    this.#frame = undefined;
    const [live, cursor] = this.#compose();
    this.#screen.render(live, cursor);
  }

  /** The live region: answer tail, spinner, dialog or picker, queued messages, input, status. */
  #compose(): [string[], { row: number; col: number } | undefined] {
    const style = this.#style;
    const width = this.#screen.columns;
    const now = Date.now();
    const live: string[] = [];
    if (this.#markdown) live.push(...this.#markdown.pending().slice(-6));
    if (this.#busy && this.#spinner) {
      const running = [...this.#tools.values()].map((call) => toolTitle(call, style, width));
      const retry = this.#retry;
      const label = retry
        ? `${retry.message}; retrying in ${Math.max(0, Math.ceil((retry.at - now) / 1000))} s, ` +
          `attempt ${retry.attempt} of ${retry.attempts}`
        : running.length > 0
        ? "running"
        : this.#spinner.label;
      live.push(spinnerLine(style, width, label, this.#spinner.since, now));
      live.push(...running.slice(0, 4).map((line) => `  ${line}`));
    }
    live.push(...queuedLines(style, width, this.#queue));
    let cursor: { row: number; col: number } | undefined;
    if (this.#approval) {
      const left = Math.max(0, Math.ceil((this.#approval.deadline - now) / 1000));
      live.push(...approvalLines(style, width, this.#approval.request, left));
    } else if (this.#picker) {
      live.push(...pickerLines(style, width, this.#picker.entries, this.#picker.selected, now));
    } else {
      const view = this.#editor.render(width, PROMPT);
      cursor = { row: live.length + view.cursorRow, col: view.cursorCol };
      live.push(...view.lines.map((line, index) => {
        if (index === view.selectedRow) return style.inverse(line);
        if (view.menuRow !== undefined && index >= view.menuRow) return style.muted(line);
        if (index === 0 && line.startsWith(PROMPT)) {
          return style.accent(PROMPT) + line.slice(PROMPT.length);
        }
        return line;
      }));
    }
    const conversation = this.#conversation;
    live.push(statusLine(style, width, {
      profile: this.#options.profile,
      model: conversation?.model,
      provider: conversation?.provider,
      usage: this.#usage,
      message: this.#statusMessage ?? (this.#opening && !conversation ? "starting…" : undefined),
    }));
    return [live, cursor];
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
