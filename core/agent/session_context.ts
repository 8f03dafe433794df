/**
 * What a session sends as its context, and its compression: the
 * compression checkpoint in force, the size of the next request (the
 * provider's last usage plus an estimate of what came since), compressing
 * before a model call when the request passes `compression.threshold`, and
 * `/compact`. One {@link SessionContext} belongs to one
 * {@link AgentSession}, and reads the session's history and stored ids in
 * place.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import type { ChatMessage, ModelUsage, ToolSpec } from "../models/types.ts";
import {
  compactedMessages,
  type Compaction,
  compactionFromRecord,
  compactionNotice,
  type CompactionStore,
  type CompressionOptions,
  type ContextWindow,
  estimateRequestTokens,
  messagesTokens,
  planCompaction,
  reportedTokens,
  summaryBudget,
  summaryPrompt,
} from "./compression.ts";
import type { CompactOptions, CompactResult, SendOptions } from "./turn_runtime.ts";

/** What a {@link SessionContext} reads of its session. */
export interface SessionContextSource {
  /** The whole conversation, appended to by the session. */
  readonly history: readonly ChatMessage[];
  /** The stored id of each message of {@link history}. */
  readonly ids: readonly number[];
  readonly system: string;
  /** The tool specs every request sends. */
  specs(): readonly ToolSpec[];
  /** The stored session id, once there is one. */
  sessionId(): string | undefined;
  /** The model and provider the next request goes to. */
  model(): string;
  provider(): string;
  now(): number;
  compression?: CompressionOptions;
  compactions?: CompactionStore;
}

/** A turn's compression state: after a failed or insufficient compression it tries no more. */
export interface TurnCompression {
  blocked: boolean;
}

/** The context of one session. */
export class SessionContext {
  readonly #source: SessionContextSource;
  /** The compression checkpoint in force: what is sent in place of the middle. */
  #compaction: Compaction | undefined;
  /** Tokens the provider reported for the last call, and the history length they cover. */
  #usageAnchor: { tokens: number; length: number } | undefined;
  /** The context window the last turn worked with (null before the first). */
  #lastWindow: number | null = null;

  /** The context of a session reading `source`, under the checkpoint `compaction` if any. */
  constructor(source: SessionContextSource, compaction?: Compaction) {
    this.#source = source;
    this.#compaction = compaction;
  }

  /** The messages to send: the history, or head, note and tail once compressed. */
  requestMessages(): ChatMessage[] {
    const { history, ids } = this.#source;
    const compaction = this.#compaction;
    if (!compaction) return [...history];
    return compactedMessages(history, compaction, {
      sessionId: this.#source.sessionId(),
      firstId: ids[compaction.headEnd],
      lastId: ids[compaction.tailStart - 1],
    });
  }

  /** Notes the usage of the call whose answer is now the last message of the history. */
  recordUsage(usage: ModelUsage): void {
    const reported = reportedTokens(usage, this.#source.provider());
    this.#usageAnchor = reported === undefined
      ? undefined
      : { tokens: reported, length: this.#source.history.length };
  }

  /**
   * The history lost its messages from index `from` on (a rollback): a
   * checkpoint whose middle lost messages gives way to the newest stored
   * one that still fits, as on a resume.
   */
  dropped(from: number): void {
    if (this.#compaction && this.#compaction.tailStart > from) {
      const sessionId = this.#source.sessionId();
      const record = sessionId ? this.#source.compactions?.latestCompaction(sessionId) : undefined;
      this.#compaction = record &&
        compactionFromRecord(this.#source.ids.map((id) => ({ id })), record);
    }
    if (this.#usageAnchor && this.#usageAnchor.length > from) this.#usageAnchor = undefined;
  }

  /**
   * The next request's size in tokens: what the provider reported for the
   * last call plus an estimate of what came since, else an estimate of it all.
   */
  estimateTokens(): number {
    const anchor = this.#usageAnchor;
    const { history } = this.#source;
    if (anchor && anchor.length <= history.length) {
      return anchor.tokens + messagesTokens(history.slice(anchor.length));
    }
    return estimateRequestTokens(this.#source.system, this.#source.specs(), this.requestMessages());
  }

  /** The context window the last turn worked with; null before the first turn or without compression. */
  get lastContextWindow(): number | null {
    return this.#lastWindow;
  }

  /** The current model's context window; the first unknown one is reported to `onEvent`. */
  #contextWindow(compression: CompressionOptions, onEvent: SendOptions["onEvent"]): ContextWindow {
    const window = compression.contextWindow(this.#source.model());
    this.#lastWindow = window.tokens;
    if (window.warning) {
      onEvent?.({
        type: "notice",
        level: "warning",
        code: "context_length_unknown",
        message: window.warning,
      });
    }
    return window;
  }

  /**
   * Compresses the history before a model call when the request would pass
   * `compression.threshold` of the context window. A failure is reported
   * and the turn goes on; after one, or after a compression that did not
   * bring the request under the threshold, the turn does not try again.
   */
  async compressIfFull(
    turn: TurnCompression,
    signal: AbortSignal,
    onEvent: SendOptions["onEvent"],
  ): Promise<void> {
    const compression = this.#source.compression;
    if (!compression?.enabled || turn.blocked) return;
    const window = this.#contextWindow(compression, onEvent);
    const limit = Math.floor(window.tokens * compression.threshold);
    const before = this.estimateTokens();
    if (before <= limit) return;
    let done: CompactResult | undefined;
    try {
      done = await this.#compress({
        signal,
        window: window.tokens,
        before,
        tailTokens: Math.floor(limit / 2),
      });
    } catch (error) {
      turn.blocked = true;
      if (signal.aborted) return;
      onEvent?.({
        type: "notice",
        level: "warning",
        code: "compression_failed",
        message: `Context compression failed (${
          error instanceof Error ? error.message : String(error)
        }); the turn goes on with the whole history.`,
      });
      return;
    }
    if (!done?.ok) {
      turn.blocked = true;
      return;
    }
    onEvent?.({
      type: "compressed",
      summarised: done.summarised,
      tokensBefore: done.tokensBefore,
      tokensAfter: done.tokensAfter,
      message: done.message,
    });
    if (done.tokensAfter > limit) turn.blocked = true;
  }

  /**
   * Summarises the middle of the history now (`/compact`), whatever the
   * request's size and even when automatic compression is off.
   *
   * @throws ModelError when the summarising model call fails; nothing changes.
   */
  async compact(options: CompactOptions = {}): Promise<CompactResult> {
    const compression = this.#source.compression;
    if (!compression) {
      return {
        ok: false,
        code: "unsupported",
        message: "This session cannot compress its context.",
      };
    }
    const signal = options.signal ?? new AbortController().signal;
    let done: CompactResult | undefined;
    try {
      done = await this.#compress({
        signal,
        window: this.#contextWindow(compression, options.onEvent).tokens,
        before: this.estimateTokens(),
        focus: options.focus,
      });
    } catch (error) {
      if (!signal.aborted) throw error;
      return {
        ok: false,
        code: "interrupted",
        message: "Compaction interrupted; nothing changed.",
      };
    }
    return done ?? {
      ok: false,
      code: "nothing_to_compact",
      message: `Nothing to compact yet: the first ${compression.protectFirst} and the last ${
        Math.max(1, compression.protectLast)
      } messages are always kept, and nothing new lies between them.`,
    };
  }

  /**
   * Summarises the messages between head and tail and puts the checkpoint
   * in force (stored, when there is a checkpoint store). Undefined when
   * there is nothing new to summarise.
   */
  async #compress(options: {
    signal: AbortSignal;
    /** The model's context window in tokens. */
    window: number;
    before: number;
    focus?: string;
    tailTokens?: number;
  }): Promise<CompactResult | undefined> {
    const source = this.#source;
    const compression = source.compression!;
    const { history, ids } = source;
    const plan = planCompaction(history, this.#compaction, {
      protectFirst: compression.protectFirst,
      protectLast: compression.protectLast,
      tailTokens: options.tailTokens,
    });
    if (!plan) return undefined;
    const middle = history.slice(plan.middleStart, plan.tailStart);
    const prompt = summaryPrompt(history, plan, {
      previousSummary: this.#compaction?.summary,
      focus: options.focus,
      maxChars: Math.floor(options.window * 4 * 0.6),
      maxTokens: summaryBudget(messagesTokens(middle), options.window),
      signal: options.signal,
    });
    const summary = (await compression.summarize(prompt, source.model(), source.provider())).trim();
    if (summary === "") {
      throw new HeraldError(
        "compression_empty",
        "unavailable",
        "The compression model answered with an empty summary",
      );
    }
    const compaction: Compaction = {
      headEnd: plan.headEnd,
      tailStart: plan.tailStart,
      summary,
      summarisedCount: (this.#compaction?.summarisedCount ?? 0) + middle.length,
    };
    const sessionId = source.sessionId();
    if (sessionId && source.compactions) {
      source.compactions.addCompaction(sessionId, {
        headThroughId: plan.headEnd > 0 ? ids[plan.headEnd - 1] : 0,
        tailFromId: ids[plan.tailStart],
        summary,
        summarisedCount: compaction.summarisedCount,
        createdAt: source.now(),
      });
    }
    this.#compaction = compaction;
    this.#usageAnchor = undefined;
    const after = this.estimateTokens();
    return {
      ok: true,
      summarised: compaction.summarisedCount,
      tokensBefore: options.before,
      tokensAfter: after,
      message: compactionNotice(compaction.summarisedCount, options.before, after),
    };
  }
}
