/**
 * The gateway's delivery promise: every reply is recorded in the
 * {@link DeliveryLedger} before it is sent, marked `sending` right before the
 * platform is called and `delivered` once the platform confirmed it. A
 * passing failure (a timeout, a 5xx, a dropped connection) is retried with
 * backoff; a {@link PermanentSendError} or the last allowed attempt ends the
 * obligation as `failed`, and what was not delivered is logged with why,
 * never dropped silently.
 *
 * Replies to one chat leave in the order they were handed over: each chat
 * has its own outbox, so a reply waiting for a retry holds back the replies
 * behind it, not other chats'. When the gateway stops, a reply waiting for
 * a retry stays `pending` in the ledger and is sent again at the next start.
 *
 * @example
 * ```ts
 * const courier = new Courier({ ledger, clock, log });
 * const outcome = await courier.deliver(outbound, { to, reply, context, sessionId });
 * if (!outcome.ok) console.log(outcome.code, outcome.message);
 * ```
 *
 * @module
 */

import {
  type ChannelClock,
  type ChannelOutbound,
  type ChatAddress,
  formatAddress,
  type OutboundReply,
  PermanentSendError,
} from "../channels/contract.ts";
import type { DeliveryLedger, Obligation } from "../channels/ports.ts";
import { errorText } from "../../core/errors.ts";

/**
 * How hard and how long the gateway tries to deliver a reply. A platform
 * that fails for a while (a timeout, a 5xx, a dropped connection) is tried
 * again with backoff until the reply is `maxAgeMs` old, so an outage of
 * minutes or hours loses nothing; `maxAttempts` only stops a reply that
 * fails on every try for a day at most (or crashes the gateway each time
 * it is sent).
 */
export interface DeliveryOptions {
  /** Attempts per obligation, counted across restarts. Default 1,500 (a day at the longest wait). */
  maxAttempts: number;
  /** How long a reply is tried, while running and across restarts (ms). Default 24 h. */
  maxAgeMs: number;
  /** The wait after the first failed attempt (ms); it doubles after each. Default 1 s. */
  baseDelayMs: number;
  /** The longest wait between attempts (ms). Default 60 s. */
  maxDelayMs: number;
}

/** The defaults of {@link DeliveryOptions}. */
export const DEFAULT_DELIVERY_OPTIONS: Readonly<DeliveryOptions> = Object.freeze({
  maxAttempts: 1500,
  maxAgeMs: 24 * 60 * 60 * 1000,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
});

/** The longest `retryAfterMs` a platform's error is honoured for (15 minutes). */
export const MAX_RETRY_AFTER_MS = 15 * 60 * 1000;

/** How one delivery ended. */
export type DeliveryOutcome =
  | { ok: true; obligationId?: number; messageIds: string[]; held: boolean }
  | {
    ok: false;
    /**
     * `permanent`: the platform refused for good; `exhausted`: every attempt
     * failed; `stopped`: the gateway stopped before the next attempt (the
     * obligation stays pending and is sent again at the next start);
     * `no_outbound`: the channel cannot send.
     */
    code: "permanent" | "exhausted" | "stopped" | "no_outbound";
    obligationId?: number;
    message: string;
  };

/** A reply to deliver. */
export interface Parcel {
  to: ChatAddress;
  reply: OutboundReply;
  /** The inbound message's reply context, handed back to the channel unchanged. */
  context?: unknown;
  /** The session the reply belongs to. */
  sessionId?: string;
  /** The inbound journal entry the reply answers, settled as the reply is recorded. */
  settles?: number;
}

/** What a {@link Courier} is made of. */
export interface CourierOptions {
  ledger: DeliveryLedger;
  clock: ChannelClock;
  log(line: string): void;
  delivery?: Partial<DeliveryOptions>;
  /**
   * Told after each attempt to send to `platform`: no error when it went
   * through, the reason when it failed and will be retried (a platform's
   * health for `gateway status`).
   */
  onAttempt?(platform: string, error?: string): void;
  /**
   * Settles the inbound journal entry a parcel answers when the ledger could
   * not record the parcel (and so could not settle it): the reply is sent
   * anyway, and the message must not be answered again at the next start.
   */
  settle?(entry: number): void;
}

/**
 * The wait before attempt `failed + 1` after `failed` failed attempts: the
 * platform's `retryAfterMs` when the error carries one (at most
 * {@link MAX_RETRY_AFTER_MS}), else `baseDelayMs` doubling up to `maxDelayMs`.
 *
 * @example
 * ```ts
 * retryDelay(1, new Error("timeout"), DEFAULT_DELIVERY_OPTIONS); // 1000
 * retryDelay(3, new Error("timeout"), DEFAULT_DELIVERY_OPTIONS); // 4000
 * ```
 */
export function retryDelay(failed: number, error: unknown, options: DeliveryOptions): number {
  const asked = retryAfterOf(error);
  if (asked !== undefined) return Math.min(asked, MAX_RETRY_AFTER_MS);
  const doubled = options.baseDelayMs * 2 ** Math.max(0, failed - 1);
  return Math.min(doubled, options.maxDelayMs);
}

function retryAfterOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The context as the ledger may store it: plain JSON, else nothing. */
function storableContext(context: unknown): unknown {
  if (context === undefined) return undefined;
  try {
    const text = JSON.stringify(context);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A wait the courier can cut short when the gateway stops. */
interface Wait {
  done: Promise<void>;
  cancel(): void;
}

/**
 * Delivers replies through the ledger, one outbox per chat. See the module
 * documentation for the promise it keeps.
 */
export class Courier {
  readonly #ledger: DeliveryLedger;
  readonly #clock: ChannelClock;
  readonly #log: (line: string) => void;
  readonly #onAttempt: ((platform: string, error?: string) => void) | undefined;
  readonly #settle: ((entry: number) => void) | undefined;
  readonly options: Readonly<DeliveryOptions>;
  /** The tail of each chat's outbox; removed once it drains. */
  readonly #outboxes = new Map<string, Promise<unknown>>();
  readonly #waits = new Set<Wait>();
  #inFlight = 0;
  #stopped = false;

  /** Creates a courier over `options.ledger`. */
  constructor(options: CourierOptions) {
    this.#ledger = options.ledger;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#onAttempt = options.onAttempt;
    this.#settle = options.settle;
    this.options = Object.freeze({ ...DEFAULT_DELIVERY_OPTIONS, ...options.delivery });
  }

  /** Replies handed over and not yet delivered or given up (sending, waiting for a retry or their turn). */
  get undelivered(): number {
    return this.#inFlight;
  }

  /**
   * Records `parcel` in the ledger and sends it after the chat's earlier
   * replies, retrying as the options say. Resolves once it was delivered or
   * given up; never rejects.
   */
  deliver(outbound: ChannelOutbound | undefined, parcel: Parcel): Promise<DeliveryOutcome> {
    // Recorded at once, sent in its turn: a crash while it waits for the chat's earlier replies loses nothing.
    const createdAt = this.#clock.now();
    const recorded = this.#record(parcel);
    return this.#enqueue(parcel.to, async () => {
      const id = await recorded;
      return await this.#attempts(outbound, id, parcel.to, parcel.reply, parcel.context, {
        made: 0,
        createdAt,
      });
    });
  }

  /**
   * Sends an obligation left unfinished by an earlier run: a `pending` one
   * as it was planned, a `sending` one (the platform may have got it) with
   * `possibleDuplicate` set, after `markDuplicate` put its notice in front.
   */
  redeliver(
    outbound: ChannelOutbound | undefined,
    obligation: Obligation,
    markDuplicate: (reply: OutboundReply) => OutboundReply,
  ): Promise<DeliveryOutcome> {
    return this.#enqueue(obligation.to, () => {
      const reply = obligation.status === "sending"
        ? markDuplicate(obligation.reply)
        : obligation.reply;
      return this.#attempts(outbound, obligation.id, obligation.to, reply, obligation.context, {
        made: obligation.attempts,
        createdAt: obligation.createdAt,
      });
    });
  }

  /** Cuts short every wait for a retry; those obligations stay pending for the next start. */
  stop(): void {
    this.#stopped = true;
    for (const wait of this.#waits) wait.cancel();
    this.#waits.clear();
  }

  /** Resolves once every outbox has drained (or `ms` passed on the clock). */
  async drain(ms: number): Promise<void> {
    const all = Promise.allSettled([...this.#outboxes.values()]);
    let handle: unknown;
    const bound = new Promise<void>((resolve) => handle = this.#clock.setTimeout(resolve, ms));
    await Promise.race([all, bound]);
    this.#clock.clearTimeout(handle);
  }

  #enqueue(to: ChatAddress, job: () => Promise<DeliveryOutcome>): Promise<DeliveryOutcome> {
    const key = formatAddress(to);
    const previous = this.#outboxes.get(key) ?? Promise.resolve();
    this.#inFlight++;
    const run = previous.then(job).catch((error): DeliveryOutcome => {
      // A bug, not a platform failure: say so rather than lose the reply quietly.
      const message = `Reply to ${key} not delivered: ${errorText(error)}`;
      this.#log(message);
      return { ok: false, code: "exhausted", message };
    }).finally(() => {
      this.#inFlight--;
      if (this.#outboxes.get(key) === run) this.#outboxes.delete(key);
    });
    this.#outboxes.set(key, run);
    return run;
  }

  /** The obligation's id, or undefined when the ledger failed (the reply is sent anyway). */
  async #record(parcel: Parcel): Promise<number | undefined> {
    try {
      const obligation = await this.#ledger.record({
        to: parcel.to,
        reply: parcel.reply,
        context: storableContext(parcel.context),
        sessionId: parcel.sessionId,
        ...(parcel.settles === undefined ? {} : { settles: parcel.settles }),
      });
      return obligation.id;
    } catch (error) {
      this.#log(
        `Delivery ledger unavailable (${errorText(error)}); sending the reply to ` +
          `${formatAddress(parcel.to)} without a record`,
      );
      if (parcel.settles !== undefined) this.#settle?.(parcel.settles);
      return undefined;
    }
  }

  async #attempts(
    outbound: ChannelOutbound | undefined,
    id: number | undefined,
    to: ChatAddress,
    reply: OutboundReply,
    context: unknown,
    counted: { made: number; createdAt: number },
  ): Promise<DeliveryOutcome> {
    const where = formatAddress(to);
    const label = id === undefined ? `reply to ${where}` : `reply ${id} to ${where}`;
    if (!outbound) {
      const message = `${capitalise(label)} not delivered: the ${to.platform} channel cannot send`;
      await this.#mark(id, (ledger, n) => ledger.markFailed(n, message, true));
      this.#log(message);
      return { ok: false, code: "no_outbound", obligationId: id, message };
    }
    let made = counted.made;
    const { maxAttempts, maxAgeMs } = this.options;
    while (true) {
      if (this.#stopped) return this.#stoppedOutcome(id, label);
      await this.#mark(id, (ledger, n) => ledger.markSending(n));
      made++;
      try {
        const receipt = await outbound.send(to, reply, context);
        this.#onAttempt?.(to.platform);
        await this.#mark(id, (ledger, n) => ledger.markDelivered(n, receipt.messageIds));
        return {
          ok: true,
          obligationId: id,
          messageIds: [...receipt.messageIds],
          held: receipt.held ?? false,
        };
      } catch (error) {
        const reason = errorText(error);
        const permanent = error instanceof PermanentSendError;
        // A refusal of one reply says nothing about the platform's health; a passing failure does.
        this.#onAttempt?.(to.platform, permanent ? undefined : reason);
        const tooOld = this.#clock.now() - counted.createdAt >= maxAgeMs;
        const final = permanent || made >= maxAttempts || tooOld;
        await this.#mark(id, (ledger, n) => ledger.markFailed(n, reason, final));
        if (final) {
          const why = permanent
            ? `the platform refused it: ${reason}`
            : `${made} attempt${made === 1 ? "" : "s"} failed${
              tooOld ? ` over ${formatHours(maxAgeMs)}` : ""
            }, the last with: ${reason}`;
          const message = `${capitalise(label)} not delivered: ${why}`;
          this.#log(message);
          return {
            ok: false,
            code: permanent ? "permanent" : "exhausted",
            obligationId: id,
            message,
          };
        }
        const delay = retryDelay(made, error, this.options);
        this.#log(`Sending ${label} failed (${reason}); attempt ${made + 1} in ${delay} ms`);
        const wait = this.#sleep(delay);
        await wait.done;
        this.#waits.delete(wait);
      }
    }
  }

  #stoppedOutcome(id: number | undefined, label: string): DeliveryOutcome {
    const message = id === undefined
      ? `${capitalise(label)} not delivered: the gateway stopped before it was sent`
      : `${capitalise(label)} kept for the next start: the gateway stopped before it was sent`;
    this.#log(message);
    return { ok: false, code: "stopped", obligationId: id, message };
  }

  /** Updates the ledger; a failing ledger is logged, never allowed to stop the send. */
  async #mark(
    id: number | undefined,
    update: (ledger: DeliveryLedger, id: number) => void | Promise<void>,
  ): Promise<void> {
    if (id === undefined) return;
    try {
      await update(this.#ledger, id);
    } catch (error) {
      this.#log(`Delivery ledger could not record obligation ${id}: ${errorText(error)}`);
    }
  }

  #sleep(ms: number): Wait {
    let resolve!: () => void;
    const done = new Promise<void>((r) => resolve = r);
    if (this.#stopped) {
      resolve();
      return { done, cancel() {} };
    }
    const handle = this.#clock.setTimeout(() => resolve(), ms);
    const wait: Wait = {
      done,
      cancel: () => {
        this.#clock.clearTimeout(handle);
        resolve();
      },
    };
    this.#waits.add(wait);
    return wait;
  }
}

function formatHours(ms: number): string {
  const hours = ms / 3_600_000;
  return hours >= 1 ? `${Number(hours.toFixed(1))} h` : `${Math.round(ms / 60_000)} min`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
