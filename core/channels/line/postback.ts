/**
 * LINE's reply tokens and the slow-response postback machine (spec 3.2).
 *
 * A reply token comes with each webhook event. Replying with it is free but
 * it works once and only for about a minute; after that the bot must push
 * (metered). This module keeps, per token, whether it is still usable, and
 * runs the machine that saves a slow answer from the push:
 *
 * - the runner starts the message's turn (the first {@link SlowResponses.alive}
 *   call: the channel's typing indicator) and the turn is still running
 *   (typing renewed) when `thresholdMs` has passed since the message
 *   arrived: the token is spent on a "Get answer" button
 *   ({@link SlowResponseOptions.onSlow}; `arming` until LINE confirms it
 *   with {@link SlowResponses.armed}) → PENDING;
 * - the answer arrives while PENDING: it is cached → READY;
 * - the user taps the button (a postback with a fresh reply token): READY →
 *   the cached answer goes out with the fresh token → DELIVERED; a tap while
 *   PENDING says the bot is still working; a tap once DELIVERED says it
 *   already replied;
 * - the turn is stopped (`/stop`): PENDING → ERROR, and a tap on that
 *   orphaned request resolves to the interruption text.
 *
 * With `thresholdMs` 0 the machine never arms: a late answer is pushed.
 * Requests are bounded in number and age; a READY answer pushed out of the
 * bounds is handed to {@link SlowResponseOptions.onExpired} to be pushed,
 * never dropped. Pure: the clock comes in, no I/O.
 *
 * @example
 * ```ts
 * const slow = new SlowResponses({ clock, thresholdMs: 45_000, onSlow: (r) => sendButton(r) });
 * slow.watch(token, chat, clock.now());  // a message arrived
 * slow.alive(token);                      // its turn runs (typing)
 * slow.claim(token, receivedAt, reply);   // { kind: "reply" } while fresh, "hold" once PENDING
 * ```
 *
 * @module
 */

import type { ChannelClock, ChatAddress, OutboundReply } from "../contract.ts";
import {
  DEFAULT_SLOW_RESPONSE_TEXTS,
  randomId,
  type SlowResponseTexts,
} from "./_postback_texts.ts";

export {
  DEFAULT_SLOW_RESPONSE_TEXTS,
  parsePostbackData,
  postbackData,
  type SlowResponseTexts,
} from "./_postback_texts.ts";

/** Seconds after which a running turn's answer is offered behind a button (spec 8: 45). */
export const DEFAULT_SLOW_RESPONSE_THRESHOLD_SECONDS = 45;

/**
 * How long a reply token is taken as usable after its event arrived. LINE
 * says to use it right away ("about a minute"); past this the bot pushes.
 */
export const REPLY_TOKEN_LIFETIME_MS = 55_000;

/**
 * How long after the last typing renewal a turn still counts as running.
 * The gateway renews typing every few seconds while a turn runs; a turn
 * that ended without an answer (a silent one) gets no button.
 */
export const TURN_ALIVE_MS = 15_000;

/**
 * Where a request stands: `arming` while LINE has not yet confirmed the
 * button, then the spec's PENDING, READY, DELIVERED and ERROR.
 */
export type SlowResponseState = "arming" | "pending" | "ready" | "delivered" | "error";

/** A slow message whose reply token went (or is going) to the button. */
export interface SlowRequest {
  /** Random; named in the button's postback data. */
  readonly id: string;
  readonly chat: ChatAddress;
  /** The message's reply token, which the button spends. */
  readonly replyToken: string;
}

/** How to send an answer for a message's reply token. */
export type TokenUse =
  /** Reply with the token now; it counts as spent from here. */
  | { kind: "reply" }
  /** The token is spent, stale or unknown: push. */
  | { kind: "push" }
  /** The answer was cached behind the button (READY); send nothing. */
  | { kind: "hold"; requestId: string }
  /** The button is being sent: ask again once {@link SlowResponses.armed} settled it. */
  | { kind: "wait"; requestId: string };

/** What a tap on the button calls for. */
export type TapOutcome =
  /**
   * Send the cached answers with the tap's reply token, then call
   * {@link SlowResponses.delivered} (or {@link SlowResponses.deliveryFailed}).
   */
  | { kind: "deliver"; requestId: string; replies: OutboundReply[] }
  /** Reply with this text. */
  | { kind: "say"; text: string };

/** What the machine is built from. */
export interface SlowResponseOptions {
  clock: ChannelClock;
  /** 0 disables the machine (late answers are pushed). */
  thresholdMs: number;
  texts?: Partial<SlowResponseTexts>;
  /** Requests kept at most (default 500); past it the oldest go. */
  maxRequests?: number;
  /** Requests kept at most this long (default 24 hours). */
  maxAgeMs?: number;
  /** Tokens tracked at most (default 10,000); past it the oldest go. */
  maxTokens?: number;
  /**
   * The threshold passed: spend `request.replyToken` on the button, then
   * call {@link SlowResponses.armed}.
   */
  onSlow(request: SlowRequest): void;
  /**
   * A READY answer leaves the bounds untapped: push it (it must not be lost).
   */
  onExpired?(request: SlowRequest, replies: OutboundReply[]): void;
}

interface TokenEntry {
  token: string;
  chat: ChatAddress;
  receivedAt: number;
  /** `open`: usable; `spent`: used or given up; `slow`: went to a request. */
  phase: "open" | "spent" | "slow";
  /** The threshold timer, once the turn started. */
  timer?: unknown;
  started: boolean;
  lastAlive: number;
  requestId?: string;
}

interface RequestEntry extends SlowRequest {
  state: SlowResponseState;
  createdAt: number;
  replies: OutboundReply[];
  /** A tap's delivery is in flight. */
  delivering: boolean;
  /** Stopped while arming: becomes ERROR once armed. */
  cancelled: boolean;
}

/** The reply-token ledger and slow-response machine of one LINE channel. */
export class SlowResponses {
  readonly texts: Readonly<SlowResponseTexts>;
  readonly thresholdMs: number;
  readonly #clock: ChannelClock;
  readonly #options: SlowResponseOptions;
  readonly #maxRequests: number;
  readonly #maxAgeMs: number;
  readonly #maxTokens: number;
  /** By token, oldest first. */
  readonly #tokens = new Map<string, TokenEntry>();
  /** By request id, oldest first. */
  readonly #requests = new Map<string, RequestEntry>();

  /**
   * Creates the machine.
   *
   * @throws RangeError when `thresholdMs` is negative or not a number.
   */
  constructor(options: SlowResponseOptions) {
    if (!Number.isFinite(options.thresholdMs) || options.thresholdMs < 0) {
      throw new RangeError(`thresholdMs must be 0 or more, got ${options.thresholdMs}`);
    }
    this.#options = options;
    this.#clock = options.clock;
    this.thresholdMs = options.thresholdMs;
    this.texts = Object.freeze({ ...DEFAULT_SLOW_RESPONSE_TEXTS, ...options.texts });
    this.#maxRequests = options.maxRequests ?? 500;
    this.#maxAgeMs = options.maxAgeMs ?? 24 * 60 * 60 * 1000;
    this.#maxTokens = options.maxTokens ?? 10_000;
  }

  /** How many requests are held (any state). */
  get requestCount(): number {
    return this.#requests.size;
  }

  /** The state of request `id`, or undefined when it is not (or no longer) known. */
  state(id: string): SlowResponseState | undefined {
    return this.#requests.get(id)?.state;
  }

  /** The request the button for `token` belongs to, if the token went to one. */
  requestOf(token: string): SlowRequest | undefined {
    const id = this.#tokens.get(token)?.requestId;
    const request = id === undefined ? undefined : this.#requests.get(id);
    return request === undefined ? undefined : publicRequest(request);
  }

  /** A message with reply token `token` arrived (at `receivedAt`, on the clock). */
  watch(token: string, chat: ChatAddress, receivedAt: number): void {
    this.#sweep();
    if (this.#tokens.has(token)) return;
    this.#tokens.set(token, {
      token,
      chat,
      receivedAt,
      phase: "open",
      started: false,
      lastAlive: receivedAt,
    });
    this.#boundTokens();
  }

  /**
   * The message's turn is running (its typing indicator was shown). The
   * first call arms the threshold timer, counted from the message's arrival.
   */
  alive(token: string): void {
    const entry = this.#tokens.get(token);
    if (entry === undefined || entry.phase !== "open") return;
    entry.lastAlive = this.#clock.now();
    if (entry.started || this.thresholdMs === 0) return;
    entry.started = true;
    const delay = Math.max(0, entry.receivedAt + this.thresholdMs - this.#clock.now());
    entry.timer = this.#clock.setTimeout(() => this.#fire(entry), delay);
  }

  /**
   * How to send an answer for the message with `token` (received at
   * `receivedAt`, on the clock). A fresh unused token is spent by this call
   * (`reply`); while the button is PENDING or READY, `reply` is cached
   * behind it (`hold`).
   */
  claim(
    token: string | undefined,
    receivedAt: number | undefined,
    reply: OutboundReply,
  ): TokenUse {
    if (token === undefined) return { kind: "push" };
    const entry = this.#tokens.get(token);
    if (entry === undefined) {
      // Not watched (a reply resent after a restart): usable only while fresh, once.
      if (receivedAt === undefined || !this.#fresh(receivedAt)) return { kind: "push" };
      this.#tokens.set(token, {
        token,
        chat: { platform: "line", chatId: "" },
        receivedAt,
        phase: "spent",
        started: false,
        lastAlive: receivedAt,
      });
      this.#boundTokens();
      return { kind: "reply" };
    }
    if (entry.phase === "slow") {
      const request = this.#requests.get(entry.requestId ?? "");
      if (request === undefined) return { kind: "push" };
      if (request.state === "arming") return { kind: "wait", requestId: request.id };
      if (request.state === "pending" || request.state === "ready") {
        request.replies.push(reply);
        request.state = "ready";
        return { kind: "hold", requestId: request.id };
      }
      return { kind: "push" };
    }
    if (entry.phase === "spent") return { kind: "push" };
    this.#stopTimer(entry);
    entry.phase = "spent";
    return this.#fresh(entry.receivedAt) ? { kind: "reply" } : { kind: "push" };
  }

  /**
   * LINE took the button for request `id` (`ok`) or refused it. Taken: the
   * request is PENDING (ERROR when its turn was stopped meanwhile). Refused:
   * the request is forgotten and its answer will be pushed.
   */
  armed(id: string, ok: boolean): void {
    const request = this.#requests.get(id);
    if (request === undefined || request.state !== "arming") return;
    if (ok) {
      request.state = request.cancelled ? "error" : "pending";
      return;
    }
    this.#requests.delete(id);
  }

  /**
   * The turn answering the message with `token` was stopped: a PENDING
   * request becomes ERROR (its button will say so); a turn not yet slow
   * will get no button.
   */
  cancel(token: string | undefined): void {
    if (token === undefined) return;
    const entry = this.#tokens.get(token);
    if (entry === undefined) return;
    if (entry.phase === "open") {
      this.#stopTimer(entry);
      entry.started = true;
      return;
    }
    const request = this.#requests.get(entry.requestId ?? "");
    if (request === undefined) return;
    if (request.state === "arming") request.cancelled = true;
    else if (request.state === "pending") request.state = "error";
  }

  /**
   * The user tapped the button of request `id` in chat `chatId`. A request
   * of another chat is answered as unknown (its id says nothing).
   */
  tap(id: string, chatId: string): TapOutcome {
    this.#sweep();
    const request = this.#requests.get(id);
    if (request === undefined || request.chat.chatId !== chatId) {
      return { kind: "say", text: this.texts.unknown };
    }
    switch (request.state) {
      case "arming":
      case "pending":
        return { kind: "say", text: this.texts.stillWorking };
      case "ready":
        // A double tap: the first tap's answer is on its way; the second token says so.
        if (request.delivering) return { kind: "say", text: this.texts.sending };
        request.delivering = true;
        return { kind: "deliver", requestId: id, replies: [...request.replies] };
      case "delivered":
        return { kind: "say", text: this.texts.delivered };
      case "error":
        return { kind: "say", text: this.texts.interrupted };
    }
  }

  /** The cached answer of request `id` went out: READY → DELIVERED. */
  delivered(id: string): void {
    const request = this.#requests.get(id);
    if (request === undefined || request.state !== "ready") return;
    request.state = "delivered";
    request.delivering = false;
    request.replies = [];
  }

  /** Sending the cached answer of request `id` failed: it stays READY for the next tap. */
  deliveryFailed(id: string): void {
    const request = this.#requests.get(id);
    if (request !== undefined) request.delivering = false;
  }

  /** Clears every timer (the channel stopping); the state is kept. */
  dispose(): void {
    for (const entry of this.#tokens.values()) this.#stopTimer(entry);
  }

  #fresh(receivedAt: number): boolean {
    return this.#clock.now() - receivedAt < REPLY_TOKEN_LIFETIME_MS;
  }

  #stopTimer(entry: TokenEntry): void {
    if (entry.timer === undefined) return;
    this.#clock.clearTimeout(entry.timer);
    entry.timer = undefined;
  }

  #fire(entry: TokenEntry): void {
    entry.timer = undefined;
    if (entry.phase !== "open" || this.#tokens.get(entry.token) !== entry) return;
    const now = this.#clock.now();
    if (!this.#fresh(entry.receivedAt) || now - entry.lastAlive > TURN_ALIVE_MS) return;
    this.#sweep();
    const request: RequestEntry = {
      id: randomId(),
      chat: entry.chat,
      replyToken: entry.token,
      state: "arming",
      createdAt: now,
      replies: [],
      delivering: false,
      cancelled: false,
    };
    entry.phase = "slow";
    entry.requestId = request.id;
    this.#requests.set(request.id, request);
    this.#boundRequests();
    this.#options.onSlow(publicRequest(request));
  }

  /** Drops what is past its age: tokens no longer usable, requests past `maxAgeMs`. */
  #sweep(): void {
    const now = this.#clock.now();
    for (const [id, request] of this.#requests) {
      if (now - request.createdAt <= this.#maxAgeMs) break;
      this.#evict(id, request);
    }
    for (const [token, entry] of this.#tokens) {
      if (now - entry.receivedAt < REPLY_TOKEN_LIFETIME_MS + TURN_ALIVE_MS) break;
      if (entry.phase === "slow" && this.#requests.has(entry.requestId ?? "")) continue;
      if (entry.timer !== undefined) continue;
      this.#tokens.delete(token);
    }
  }

  #boundRequests(): void {
    for (const [id, request] of this.#requests) {
      if (this.#requests.size <= this.#maxRequests) break;
      this.#evict(id, request);
    }
  }

  #boundTokens(): void {
    for (const [token, entry] of this.#tokens) {
      if (this.#tokens.size <= this.#maxTokens) break;
      this.#stopTimer(entry);
      this.#tokens.delete(token);
    }
  }

  #evict(id: string, request: RequestEntry): void {
    this.#requests.delete(id);
    const token = this.#tokens.get(request.replyToken);
    if (token?.requestId === id) this.#tokens.delete(request.replyToken);
    if (request.state === "ready" && !request.delivering && request.replies.length > 0) {
      this.#options.onExpired?.(publicRequest(request), request.replies);
    }
  }
}

function publicRequest(request: RequestEntry): SlowRequest {
  return { id: request.id, chat: request.chat, replyToken: request.replyToken };
}
