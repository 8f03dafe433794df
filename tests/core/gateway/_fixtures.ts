/**
 * What the gateway runner tests share: a hand-driven clock, an in-memory
 * channel (a test double of our own channel contract that records every
 * send and fails sends on demand), and in-memory implementations of the
 * ledger, pairing and chat-session ports. The scripted turn runtime is in
 * _scripted_runtime.ts.
 *
 * @module
 */

import type {
  Channel,
  ChannelClock,
  ChannelHost,
  ChannelOutbound,
  ChatAddress,
  ChatKind,
  InboundAttachment,
  InboundMessage,
  OutboundReply,
  SendReceipt,
} from "../../../core/channels/contract.ts";
import { formatAddress } from "../../../core/channels/contract.ts";
import type {
  DeliveryLedger,
  NewObligation,
  Obligation,
  PairedUser,
  PairingList,
  PairingRequest,
  PairingStore,
} from "../../../core/channels/ports.ts";
import { HeraldError } from "../../../core/errors.ts";
import type { ChatSessionStore } from "../../../core/gateway/mod.ts";

// -------------------------------------------------------------------- clock

interface Timer {
  id: number;
  at: number;
  callback: () => void;
}

/** Lets pending promise chains run (a few real macrotask turns). */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Settles until `condition` holds; fails after many rounds (no wall-clock timing is asserted). */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await settle(1);
  }
  throw new Error(`Never happened: ${what}`);
}

/** A clock that moves only when the test says. */
export class HandClock implements ChannelClock {
  #now = Date.UTC(2026, 0, 1);
  #timers: Timer[] = [];
  #next = 1;

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.push({ id, at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((timer) => timer.id !== handle);
  }

  /** Timers not yet run. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Moves time on by `ms`, running each timer due on the way (and what it starts) in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    while (true) {
      const due = this.#timers.filter((timer) => timer.at <= target)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((timer) => timer !== due);
      this.#now = due.at;
      due.callback();
      await settle();
    }
    this.#now = target;
    await settle();
  }
}

// ------------------------------------------------------------------ channel

/** A send the test channel took. */
export interface Sent {
  to: ChatAddress;
  reply: OutboundReply;
  context?: unknown;
  /** The texts of the reply's text parts. */
  texts: string[];
}

/** What a queued failure does to one send. */
export type SendFailure = Error;

/** An in-memory channel: records sends, fails them on demand, and lets the test say things. */
export class TestChannel implements Channel {
  readonly label: string;
  host: ChannelHost | undefined;
  readonly sent: Sent[] = [];
  readonly attempts: Sent[] = [];
  readonly typing: string[] = [];
  readonly cancelled: { to: ChatAddress; context?: unknown }[] = [];
  /** Errors the next sends throw, in order. */
  readonly failures: SendFailure[] = [];
  /** Errors the next starts throw, in order. */
  readonly startFailures: Error[] = [];
  starts = 0;
  stopped = false;
  readonly outbound: ChannelOutbound;
  #messageId = 0;

  constructor(readonly id = "test", chunkLimit = 4096) {
    this.label = `Test ${id}`;
    this.outbound = {
      chunkLimit,
      format: (markdown) => markdown,
      send: (to, reply, context) => this.#send(to, reply, context),
      typing: (to) => {
        this.typing.push(formatAddress(to));
        return Promise.resolve();
      },
      cancelled: (to, context) => void this.cancelled.push({ to, context }),
    };
  }

  start(host: ChannelHost): Promise<void> {
    this.starts++;
    const failure = this.startFailures.shift();
    if (failure) return Promise.reject(failure);
    this.host = host;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.stopped = true;
    return Promise.resolve();
  }

  /** Hands a message to the runner as the platform would. */
  say(
    chatId: string,
    text: string,
    options: {
      userId?: string;
      chatKind?: ChatKind;
      threadId?: string;
      attachments?: InboundAttachment[];
      context?: unknown;
      messageId?: string;
    } = {},
  ): Promise<void> {
    if (!this.host) throw new Error(`Channel ${this.id} was not started`);
    const message: InboundMessage = {
      chat: {
        platform: this.id,
        chatId,
        ...(options.threadId === undefined ? {} : { threadId: options.threadId }),
      },
      chatKind: options.chatKind ?? "direct",
      userId: options.userId ?? `u-${chatId}`,
      userName: `User ${options.userId ?? chatId}`,
      text,
      attachments: options.attachments ?? [],
      replyContext: options.context ?? { token: `rt-${chatId}-${text}` },
      ...(options.messageId === undefined ? {} : { messageId: options.messageId }),
      receivedAt: 0,
    };
    return this.host.receive(message);
  }

  /** The texts sent to `chatId`, in order. */
  textsTo(chatId: string): string[] {
    return this.sent.filter((sent) => sent.to.chatId === chatId).flatMap((sent) => sent.texts);
  }

  #send(to: ChatAddress, reply: OutboundReply, context?: unknown): Promise<SendReceipt> {
    const texts = reply.parts.flatMap((part) => part.kind === "text" ? [part.text] : []);
    const record = { to, reply, context, texts };
    this.attempts.push(record);
    const failure = this.failures.shift();
    if (failure) return Promise.reject(failure);
    this.sent.push(record);
    return Promise.resolve({ messageIds: reply.parts.map(() => `m${++this.#messageId}`) });
  }
}

/** An error with the `retryAfterMs` a platform's 429 carries. */
export class RateLimited extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`Too many requests: retry after ${retryAfterMs} ms`);
  }
}

// -------------------------------------------------------------------- ports

/** The delivery ledger port, in memory. */
export class MemoryLedger implements DeliveryLedger {
  readonly rows: Obligation[] = [];
  constructor(readonly clock: ChannelClock) {}

  record(obligation: NewObligation): Obligation {
    const now = this.clock.now();
    const row: Obligation = {
      id: this.rows.length + 1,
      to: obligation.to,
      reply: obligation.reply,
      ...(obligation.context === undefined ? {} : { context: obligation.context }),
      ...(obligation.sessionId === undefined ? {} : { sessionId: obligation.sessionId }),
      status: "pending",
      attempts: 0,
      createdAt: now,
      updatedAt: now,
    };
    this.rows.push(row);
    return structuredClone(row);
  }

  markSending(id: number): void {
    const row = this.#row(id);
    row.status = "sending";
    row.attempts++;
    row.updatedAt = this.clock.now();
  }

  markDelivered(id: number): void {
    const row = this.#row(id);
    row.status = "delivered";
    row.updatedAt = this.clock.now();
  }

  markFailed(id: number, error: string, final: boolean): void {
    const row = this.#row(id);
    row.status = final ? "failed" : "pending";
    row.lastError = error;
    row.updatedAt = this.clock.now();
  }

  unfinished(platform: string, since: number, maxAttempts: number): Obligation[] {
    return this.rows.filter((row) =>
      row.to.platform === platform && (row.status === "pending" || row.status === "sending") &&
      row.createdAt >= since && row.attempts < maxAttempts
    ).map((row) => structuredClone(row));
  }

  prune(before: number): number {
    const gone = this.rows.filter((row) =>
      (row.status === "delivered" || row.status === "failed") && row.updatedAt < before
    );
    for (const row of gone) this.rows.splice(this.rows.indexOf(row), 1);
    return gone.length;
  }

  #row(id: number): Obligation {
    const row = this.rows.find((candidate) => candidate.id === id);
    if (!row) throw new Error(`No obligation ${id}`);
    return row;
  }
}

/** The pairing store port, in memory (codes are predictable: `CODE1`, `CODE2`, ...). */
export class MemoryPairingStore implements PairingStore {
  readonly pending: PairingRequest[] = [];
  readonly approved: PairedUser[] = [];
  #codes = 0;
  constructor(readonly maxPending = 3) {}

  request(
    request: Omit<PairingRequest, "code" | "requestedAt" | "expiresAt">,
    now: number,
  ): Promise<PairingRequest | null> {
    const existing = this.pending.find((item) =>
      item.platform === request.platform && item.userId === request.userId && item.expiresAt > now
    );
    if (existing) return Promise.resolve(existing);
    if (this.pending.filter((item) => item.expiresAt > now).length >= this.maxPending) {
      return Promise.resolve(null);
    }
    const made = {
      ...request,
      code: `CODE${++this.#codes}`,
      requestedAt: now,
      expiresAt: now + 3600_000,
    };
    this.pending.push(made);
    return Promise.resolve(made);
  }

  isPaired(platform: string, userId: string): Promise<boolean> {
    return Promise.resolve(
      this.approved.some((user) => user.platform === platform && user.userId === userId),
    );
  }

  list(now: number): Promise<PairingList> {
    return Promise.resolve({
      pending: this.pending.filter((item) => item.expiresAt > now),
      approved: [...this.approved],
    });
  }

  approve(code: string, now: number): Promise<PairedUser> {
    const index = this.pending.findIndex((item) => item.code === code.toUpperCase());
    if (index === -1) {
      return Promise.reject(
        new HeraldError("pairing_code_unknown", "not_found", `No code ${code}`),
      );
    }
    const [request] = this.pending.splice(index, 1);
    const user: PairedUser = {
      platform: request.platform,
      userId: request.userId,
      ...(request.userName === undefined ? {} : { userName: request.userName }),
      approvedAt: now,
    };
    this.approved.push(user);
    return Promise.resolve(user);
  }

  revoke(platform: string, userId: string): Promise<boolean> {
    const before = this.approved.length;
    const kept = this.approved.filter((user) =>
      !(user.platform === platform && user.userId === userId)
    );
    this.approved.splice(0, this.approved.length, ...kept);
    return Promise.resolve(kept.length !== before);
  }
}

/** chat -> session id, in memory. */
export class MemoryChatSessions implements ChatSessionStore {
  readonly map = new Map<string, string>();
  get(address: ChatAddress): string | undefined {
    return this.map.get(formatAddress(address));
  }
  set(address: ChatAddress, sessionId: string): void {
    this.map.set(formatAddress(address), sessionId);
  }
  delete(address: ChatAddress): void {
    this.map.delete(formatAddress(address));
  }
}
