/**
 * The gateway runner: it takes inbound messages from every channel, keeps
 * one conversation per chat, answers each chat strictly in order and keeps
 * the delivery promise. Pure core: all I/O arrives through the channel
 * contract (core/channels/contract.ts) and the ports (core/channels/ports.ts)
 * the composition passes in.
 *
 * API (stable; the `herald gateway` process wires it):
 *
 * ```ts
 * const runner = new GatewayRunner({
 *   profile, channels,                      // Channel[] created from the bundled plugins
 *   openConversation: (chat, resume) => ..., // a Conversation of the profile, resuming `resume`
 *   chatSessions,                            // ChatSessionStore: chat -> session id, kept across restarts
 *   ledger, pairing,                         // DeliveryLedger, PairingStore
 *   access: (platform) => policy,            // AccessPolicy of the platform
 *   attachments: (platform) => policy,       // AttachmentPolicy of the platform
 *   clock, log,                              // ChannelClock, one line at a time (never a secret)
 *   delivery: { maxAgeMs: 3_600_000 },       // optional: Partial<DeliveryOptions>
 *   maxConversations: 200,                   // optional: chats held (LRU: idle ones closed past it)
 *   maxQueuedPerChat: 20,                    // optional: messages waiting behind a turn, per chat
 *   saveAttachment: (chat, file) => path,    // optional: keeps an admitted file, for the prompt
 * });
 * await runner.start();   // redelivers what the ledger holds unfinished, then starts every channel
 * runner.status();        // GatewayStatusSnapshot: each platform's state and counts
 * await runner.stop();    // stops channels, interrupts turns (bounded wait), closes conversations
 * ```
 *
 * What it does with a message (issue 14 points 4 and 5):
 *
 * 1. Access first (core/channels/access.ts): `denied` is ignored (a log
 *    line without the text), `pair` gets a pairing code (or a short refusal
 *    when too many requests are pending), `allowed` goes to its chat.
 * 2. Each chat (platform + chat + thread) is a {@link ChatSession}: strict
 *    order, a queued message acknowledged at once, `/stop` interrupting the
 *    running turn at once, `/new` while busy stopping it first, a typing
 *    indicator every 4 s while a turn runs (see core/gateway/chat_session.ts).
 * 3. The answer is planned for the channel (core/channels/reply.ts): a
 *    silence token is stored but not delivered; anything else is delivered
 *    through the ledger, retried with backoff, and logged when it cannot be
 *    (core/gateway/delivery.ts).
 *
 * At most `maxConversations` (default 200) chats are held, each with at
 * most one open conversation: past it, the least recently used idle chat
 * is closed (a busy one never is); its next message reopens it, resuming
 * the stored session.
 *
 * @module
 */

import type { Conversation } from "../agent/conversation.ts";
import {
  type Channel,
  type ChannelClock,
  type ChannelHost,
  type ChannelOutbound,
  type ChatAddress,
  formatAddress,
  type InboundMessage,
  type OutboundReply,
  type ReplyPart,
} from "../channels/contract.ts";
import type { DeliveryLedger, InboundJournal, PairingStore } from "../channels/ports.ts";
import { type AccessPolicy, decideAccess, pairingCodeMessage } from "../channels/access.ts";
import type { AttachmentPolicy } from "../channels/attachments.ts";
import { markPossibleDuplicate, planReply } from "../channels/reply.ts";
import { ChatSession, type ChatSessionStore, type ReplyOptions } from "./chat_session.ts";
import { Courier, type DeliveryOptions } from "./delivery.ts";
import { PlatformLink, type PlatformStatus } from "./_platform.ts";
import { type KeptAttachment, prepareInput } from "./_prompt.ts";
import { errorText } from "../../core/errors.ts";
import { journaled, revived } from "./_journal.ts";

export { ATTACHMENT_GONE_TEXT, REPLAY_NOTE } from "./_journal.ts";

export type { ChatSessionStore } from "./chat_session.ts";
export type { DeliveryOptions } from "./delivery.ts";
export { type PlatformStatus, RESTART_BASE_MS } from "./_platform.ts";
export type { KeptAttachment } from "./_prompt.ts";

/** What the runner is made of. */
export interface GatewayRunnerOptions {
  /** The profile the gateway serves (named in pairing messages). */
  profile: string;
  channels: readonly Channel[];
  /** Opens the conversation of a chat: `resume` is the chat's stored session id, when it has one. */
  openConversation(chat: ChatAddress, resume?: string): Promise<Conversation>;
  /** chat -> session id, kept across restarts (the composition supplies a store). */
  chatSessions: ChatSessionStore;
  ledger: DeliveryLedger;
  /**
   * Where allowed messages are written down until answered, so a crash or a
   * stop loses none the platform was told arrived. Without it a message
   * being answered when the process dies is lost.
   */
  journal?: InboundJournal;
  pairing: PairingStore;
  /** Who may talk on `platform`. */
  access(platform: string): AccessPolicy;
  /** How inbound files are admitted on `platform`. */
  attachments(platform: string): AttachmentPolicy;
  clock: ChannelClock;
  /** Takes one log line (never a secret, never a message's text). */
  log(line: string): void;
  /** Backoff and bounds; defaults: 3 attempts per obligation, 24 h redelivery age, base 1 s doubling, max 60 s. */
  delivery?: Partial<DeliveryOptions>;
  /**
   * Chats held at most, each with at most one open conversation; past it
   * the least recently used idle chat is closed. Default 200.
   */
  maxConversations?: number;
  /** Messages that may wait behind a running turn in one chat. Default 20. */
  maxQueuedPerChat?: number;
  /**
   * Keeps an admitted file (an image, a PDF, ...) where the agent's tools
   * can read it and returns its path, named in the prompt. Without it the
   * prompt names the file but the model cannot open it.
   */
  saveAttachment?(chat: ChatAddress, file: KeptAttachment): Promise<string>;
  /**
   * Why the file at `path` (an answer's `MEDIA:<path>`) must not be sent to
   * a chat (a `.env` file, a credential folder, Herald's home), or
   * undefined when it may be. Without it every file may be sent.
   */
  mediaRefusal?(path: string): string | undefined;
  /**
   * Told when a turn starts or ends or a message starts waiting: what
   * {@link GatewayRunner.status} counts changed (the process writes its state
   * file then, so `herald update` sees a running turn at once).
   */
  changed?(): void;
}

/** What {@link GatewayRunner.status} reports. */
export interface GatewayStatusSnapshot {
  profile: string;
  platforms: PlatformStatus[];
  /** Chats the runner holds (each with its queue and maybe a conversation). */
  chats: number;
  /** Conversations open now. */
  conversations: number;
  /** Chats whose message is being answered. */
  running: number;
  /** Messages waiting behind a running turn, over all chats. */
  queued: number;
  /** Replies handed over and not yet delivered or given up (sending or waiting for a retry). */
  undelivered: number;
}

/** Default of {@link GatewayRunnerOptions.maxConversations}. */
export const DEFAULT_MAX_CONVERSATIONS = 200;
/** Default of {@link GatewayRunnerOptions.maxQueuedPerChat}. */
export const DEFAULT_MAX_QUEUED_PER_CHAT = 20;
/** What a stranger is told when the pairing store holds too many requests already. */
export const PAIRING_FULL_TEXT =
  "Too many people are waiting to be paired with this bot right now; try again later.";
/**
 * How long {@link GatewayRunner.stop} waits in all for channels, running
 * turns and sends (ms); what is cut short is kept for the next start (the
 * journal and the ledger).
 */
export const STOP_WAIT_MS = 10_000;
/**
 * A stranger is answered at most once in this long (ms): the code again, or
 * that pairing is full. Messages between are ignored, so one sender cannot
 * make the bot spend its platform's rate limit on them.
 */
export const PAIRING_REPLY_COOLDOWN_MS = 10 * 60 * 1000;
/** Strangers remembered for {@link PAIRING_REPLY_COOLDOWN_MS} at most (the oldest go first). */
const PAIRING_REPLIES_KEPT = 10_000;
/** How long delivered and given-up replies stay in the ledger before a start removes them (ms). */
export const DONE_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/** The gateway runner: see the module documentation. */
export class GatewayRunner {
  readonly #options: GatewayRunnerOptions;
  readonly #courier: Courier;
  readonly #platforms = new Map<string, PlatformLink>();
  /** Chats by key, least recently used first. */
  readonly #chats = new Map<string, ChatSession>();
  /** `platform:user` of strangers answered lately, and when (oldest first). */
  readonly #pairingReplies = new Map<string, number>();
  /** Conversations being closed, by chat key: a reopen waits for the close. */
  readonly #closing = new Map<string, Promise<void>>();
  /** Per chat key, the intake of messages still deciding access, so they stay in order. */
  readonly #intake = new Map<string, Promise<void>>();
  /** Each message's inbound journal entry, until it is settled. */
  readonly #journalIds = new WeakMap<InboundMessage, number>();
  /** Messages replayed from the journal at start (their "Queued" notice is not repeated). */
  readonly #replayed = new WeakSet<InboundMessage>();
  readonly #abort = new AbortController();
  readonly #maxConversations: number;
  readonly #maxQueued: number;
  #started = false;
  #stopping: Promise<void> | undefined;

  /** Creates the runner; nothing starts until {@link start}. */
  constructor(options: GatewayRunnerOptions) {
    this.#options = options;
    this.#courier = new Courier({
      ledger: options.ledger,
      clock: options.clock,
      log: options.log,
      delivery: options.delivery,
      onAttempt: (platform, error) => this.#platforms.get(platform)?.noteSend(error),
      settle: (entry) => this.#settleEntry(entry),
    });
    this.#maxConversations = Math.max(1, options.maxConversations ?? DEFAULT_MAX_CONVERSATIONS);
    this.#maxQueued = Math.max(0, options.maxQueuedPerChat ?? DEFAULT_MAX_QUEUED_PER_CHAT);
    for (const channel of options.channels) {
      if (this.#platforms.has(channel.id)) {
        throw new RangeError(`Two channels have the id "${channel.id}"; each platform runs once`);
      }
      this.#platforms.set(channel.id, new PlatformLink(channel, options.clock, options.log));
    }
  }

  /** The delivery options in force (defaults filled in). */
  get deliveryOptions(): Readonly<DeliveryOptions> {
    return this.#courier.options;
  }

  /**
   * Redelivers what the ledger says is unfinished (the sends go on in the
   * background, each chat's before its new replies), then starts every
   * channel. A channel that fails to start is reported in {@link status}
   * and started again later with backoff; the others run.
   */
  async start(): Promise<void> {
    if (this.#started) throw new Error("The gateway runner was already started");
    this.#started = true;
    for (const platform of this.#platforms.values()) await this.#redeliver(platform);
    await this.#expireJournal();
    for (const platform of this.#platforms.values()) await this.#replay(platform);
    await Promise.all(
      [...this.#platforms.values()].map((platform) => platform.start(this.#hostFor(platform))),
    );
  }

  /**
   * Stops the channels, interrupts the running turns, waits for them and
   * for sends in flight, and closes every conversation, all within
   * {@link STOP_WAIT_MS} on the clock. Replies waiting for a retry stay
   * pending in the ledger, and messages not answered stay in the journal,
   * for the next start.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  /** Each platform's state and the runner's counts. */
  status(): GatewayStatusSnapshot {
    let conversations = 0, running = 0, queued = 0;
    for (const chat of this.#chats.values()) {
      if (chat.open) conversations++;
      if (chat.running) running++;
      queued += chat.queued;
    }
    return {
      profile: this.#options.profile,
      platforms: [...this.#platforms.values()].map((platform) => platform.status),
      chats: this.#chats.size,
      conversations,
      running,
      queued,
      undelivered: this.#courier.undelivered,
    };
  }

  /**
   * Takes in one message as a channel's {@link ChannelHost.receive} does:
   * resolves once it is queued (or refused), not when it is answered.
   */
  receive(message: InboundMessage): Promise<void> {
    // While stopping, a message is still written down (the platform is about to be told it
    // arrived); it is answered at the next start.
    const key = formatAddress(message.chat);
    const previous = this.#intake.get(key) ?? Promise.resolve();
    const taken = previous.then(() => this.#take(message)).catch((error) => {
      this.#options.log(`${key}: a message could not be taken in: ${errorText(error)}`);
    });
    this.#intake.set(key, taken);
    void taken.finally(() => {
      if (this.#intake.get(key) === taken) this.#intake.delete(key);
    });
    return taken;
  }

  async #take(message: InboundMessage): Promise<void> {
    const { chat } = message;
    const platform = this.#platforms.get(chat.platform);
    if (!platform) {
      this.#options.log(`A message for unknown platform "${chat.platform}" was ignored`);
      return;
    }
    const decision = await decideAccess(
      message,
      this.#options.access(chat.platform),
      this.#options.pairing,
    );
    if (decision === "denied") {
      this.#options.log(
        `${formatAddress(chat)}: ignored a message from user ${message.userId} ` +
          `(${message.chatKind} chat, not allowed)`,
      );
      this.#settle(message);
      return;
    }
    if (decision === "pair") {
      this.#settle(message);
      if (!this.#abort.signal.aborted) await this.#pair(platform, message);
      return;
    }
    if (!this.#journalIds.has(message) && !await this.#record(message)) return;
    if (this.#abort.signal.aborted) return;
    this.#chatOf(message.chat, platform).accept(message);
    this.#bound();
  }

  async #pair(platform: PlatformLink, message: InboundMessage): Promise<void> {
    const now = this.#options.clock.now();
    const stranger = `${message.chat.platform}:${message.userId}`;
    const answeredAt = this.#pairingReplies.get(stranger);
    if (answeredAt !== undefined && now - answeredAt < PAIRING_REPLY_COOLDOWN_MS) {
      this.#options.log(
        `${formatAddress(message.chat)}: ignored another message from unpaired user ` +
          `${message.userId} (answered ${Math.round((now - answeredAt) / 1000)} s ago)`,
      );
      return;
    }
    this.#pairingReplies.delete(stranger);
    this.#pairingReplies.set(stranger, now);
    for (const [key, at] of this.#pairingReplies) {
      if (
        this.#pairingReplies.size <= PAIRING_REPLIES_KEPT && now - at < PAIRING_REPLY_COOLDOWN_MS
      ) {
        break;
      }
      this.#pairingReplies.delete(key);
    }
    const request = await this.#options.pairing.request({
      platform: message.chat.platform,
      userId: message.userId,
      ...(message.userName === undefined ? {} : { userName: message.userName }),
      chatId: message.chat.chatId,
    }, this.#options.clock.now());
    if (request === null) {
      this.#options.log(
        `${formatAddress(message.chat)}: pairing refused for user ${message.userId} ` +
          "(too many requests pending)",
      );
      this.#reply(platform, message, PAIRING_FULL_TEXT);
      return;
    }
    this.#options.log(
      `${formatAddress(message.chat)}: pairing code sent to user ${message.userId}` +
        (message.userName ? ` (${message.userName})` : ""),
    );
    this.#reply(platform, message, pairingCodeMessage(request.code, this.#options.profile));
  }

  /** The chat's session (created on its first message), moved to the most recently used end. */
  #chatOf(address: ChatAddress, platform: PlatformLink): ChatSession {
    const key = formatAddress(address);
    let chat = this.#chats.get(key);
    if (chat) {
      this.#chats.delete(key);
    } else {
      chat = new ChatSession(address, {
        openConversation: (to, resume) => this.#open(key, to, resume),
        store: this.#options.chatSessions,
        outbound: platform.channel.outbound,
        reply: (message, text, options) => this.#reply(platform, message, text, options),
        settle: (message) => this.#settle(message),
        prepare: (message, text) =>
          prepareInput(
            message,
            text,
            this.#options.attachments(message.chat.platform),
            this.#options.saveAttachment,
            this.#options.log,
          ),
        clock: this.#options.clock,
        log: this.#options.log,
        opened: () => this.#bound(),
        maxQueued: this.#maxQueued,
        changed: () => this.#options.changed?.(),
      });
    }
    this.#chats.set(key, chat);
    return chat;
  }

  async #open(key: string, chat: ChatAddress, resume?: string): Promise<Conversation> {
    await this.#closing.get(key);
    return await this.#options.openConversation(chat, resume);
  }

  /**
   * Past the bound, closes the least recently used idle chats (and their
   * conversations); a busy chat is never closed.
   */
  #bound(): void {
    for (const [key, chat] of this.#chats) {
      if (this.#chats.size <= this.#maxConversations) return;
      if (!chat.idle) continue;
      this.#chats.delete(key);
      const closing = chat.release().finally(() => {
        if (this.#closing.get(key) === closing) this.#closing.delete(key);
      });
      this.#closing.set(key, closing);
    }
  }

  /**
   * The reply with every file {@link GatewayRunnerOptions.mediaRefusal}
   * refuses replaced by a line saying it was not sent and why (a prompt
   * injection asking for `MEDIA:~/.herald/.env` gets that line, not the file).
   */
  #withoutRefusedMedia(reply: OutboundReply, outbound: ChannelOutbound, where: string) {
    const refusal = this.#options.mediaRefusal;
    if (!refusal || !reply.parts.some((part) => part.kind === "media")) return reply;
    const parts = reply.parts.map((part): ReplyPart => {
      if (part.kind !== "media") return part;
      const why = refusal(part.media.path);
      if (why === undefined) return part;
      this.#options.log(`${where}: a file in the answer was not sent: ${part.media.path} (${why})`);
      const name = part.media.path.split(/[\\/]/).pop() || part.media.path;
      const text = outbound.format(`(The file ${name} was not sent: ${why}.)`);
      return { kind: "text", text: text.slice(0, outbound.chunkLimit) };
    });
    return { ...reply, parts };
  }

  /**
   * Plans `text` for the chat's channel and delivers it (in the background).
   * A final reply settles the message's journal entry as it is recorded.
   */
  #reply(
    platform: PlatformLink,
    message: InboundMessage,
    text: string,
    options: ReplyOptions = {},
  ): void {
    if (options.ack && this.#replayed.has(message)) return;
    const outbound = platform.channel.outbound;
    const where = formatAddress(message.chat);
    const settleNow = () => {
      if (options.final) this.#settle(message);
    };
    if (!outbound) {
      this.#options.log(
        `${where}: a reply was not sent: the ${platform.channel.id} channel cannot send`,
      );
      settleNow();
      return;
    }
    let reply;
    try {
      reply = planReply(text, outbound);
    } catch (error) {
      this.#options.log(`${where}: a reply could not be planned: ${errorText(error)}`);
      settleNow();
      return;
    }
    if (reply === null) {
      this.#options.log(`${where}: the answer was silent; stored, not delivered`);
      settleNow();
      return;
    }
    reply = this.#withoutRefusedMedia(reply, outbound, where);
    const settles = options.final ? this.#journalIds.get(message) : undefined;
    if (settles !== undefined) this.#journalIds.delete(message);
    void this.#courier.deliver(outbound, {
      to: message.chat,
      reply,
      context: message.replyContext,
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      ...(settles === undefined ? {} : { settles }),
    });
  }

  /**
   * Writes `message` down in the journal before its channel confirms it.
   * False when the journal already took it in (the platform sent it again
   * after a crash): it is not answered twice. A failing journal is logged
   * and the message answered anyway.
   */
  async #record(message: InboundMessage): Promise<boolean> {
    const journal = this.#options.journal;
    if (!journal) return true;
    let id;
    try {
      id = await journal.record(journaled(message));
    } catch (error) {
      this.#options.log(
        `${formatAddress(message.chat)}: the inbound journal could not record a message ` +
          `(${errorText(error)}); it is answered, but a crash before then would lose it`,
      );
      return true;
    }
    if (id === null) {
      this.#options.log(
        `${formatAddress(message.chat)}: message ${message.messageId} came again; it was ` +
          "taken in already and is not answered twice",
      );
      return false;
    }
    this.#journalIds.set(message, id);
    return true;
  }

  /** `message` needs nothing more: its journal entry is settled (a failing journal is logged). */
  #settle(message: InboundMessage): void {
    const id = this.#journalIds.get(message);
    if (id === undefined) return;
    this.#journalIds.delete(message);
    this.#settleEntry(id);
  }

  #settleEntry(id: number): void {
    Promise.resolve().then(() => this.#options.journal?.settle(id)).catch((error) => {
      this.#options.log(`Inbound journal could not settle entry ${id}: ${errorText(error)}`);
    });
  }

  /**
   * Gives up, out loud, the journal's messages older than the delivery age
   * bound, of every platform (one no longer enabled too).
   */
  async #expireJournal(): Promise<void> {
    const journal = this.#options.journal;
    if (!journal) return;
    const { maxAgeMs } = this.#courier.options;
    let expired;
    try {
      expired = await journal.expire(this.#options.clock.now() - maxAgeMs);
    } catch (error) {
      this.#options.log(`Old unanswered messages could not be removed: ${errorText(error)}`);
      return;
    }
    for (const entry of expired) {
      this.#options.log(
        `${formatAddress(entry.message.chat)}: a message from user ${entry.message.userId} ` +
          `was not answered: it is older than ${Math.round(maxAgeMs / 3_600_000)} h`,
      );
    }
  }

  /**
   * Takes in again what the journal holds unsettled for the platform (taken
   * in by an earlier run, never answered): each in its chat's order, before
   * the channel starts.
   */
  async #replay(platform: PlatformLink): Promise<void> {
    const journal = this.#options.journal;
    if (!journal) return;
    const { channel } = platform;
    let entries;
    try {
      entries = await journal.unsettled(channel.id);
    } catch (error) {
      this.#options.log(
        `${channel.id}: unanswered messages could not be read: ${errorText(error)}`,
      );
      return;
    }
    let replayed = 0;
    for (const entry of entries) {
      const message = revived(entry.message);
      this.#journalIds.set(message, entry.id);
      this.#replayed.add(message);
      void this.receive(message);
      replayed++;
    }
    if (replayed > 0) {
      this.#options.log(
        `${channel.id}: answering ${replayed} message${replayed === 1 ? "" : "s"} ` +
          "taken in by an earlier run",
      );
    }
  }

  async #redeliver(platform: PlatformLink): Promise<void> {
    const { channel } = platform;
    const { maxAgeMs, maxAttempts } = this.#courier.options;
    const { ledger, clock, log } = this.#options;
    const now = clock.now();
    let unfinished;
    try {
      // Delivered and given-up replies are kept a week (for status and questions), then removed.
      await ledger.prune(now - DONE_KEPT_MS);
      unfinished = await ledger.unfinished(channel.id, 0, Number.MAX_SAFE_INTEGER);
    } catch (error) {
      log(`${channel.id}: unfinished replies could not be read: ${errorText(error)}`);
      return;
    }
    // Past the bounds: given up, and said so (never left pending without a word).
    const rows = [];
    for (const row of unfinished) {
      const tooOld = now - row.createdAt >= maxAgeMs;
      if (!tooOld && row.attempts < maxAttempts) {
        rows.push(row);
        continue;
      }
      const why = tooOld
        ? `it is older than ${Math.round(maxAgeMs / 3_600_000)} h`
        : `it was tried ${row.attempts} times`;
      const message = `Reply ${row.id} to ${formatAddress(row.to)} not delivered: ${why}` +
        (row.lastError ? ` (last error: ${row.lastError})` : "");
      try {
        await ledger.markFailed(row.id, message, true);
      } catch (error) {
        log(`Delivery ledger could not record obligation ${row.id}: ${errorText(error)}`);
      }
      log(message);
    }
    if (rows.length === 0) return;
    this.#options.log(
      `${channel.id}: sending ${rows.length} unfinished repl${rows.length === 1 ? "y" : "ies"} ` +
        "from an earlier run",
    );
    const outbound = channel.outbound;
    const mark = (reply: OutboundReply) =>
      outbound
        ? markPossibleDuplicate(reply, (md) => outbound.format(md), outbound.chunkLimit)
        : reply;
    for (const row of rows) void this.#courier.redeliver(outbound, row, mark);
  }

  #hostFor(platform: PlatformLink): ChannelHost {
    const id = platform.channel.id;
    return {
      receive: (message) => this.receive(message),
      setState: (state, error) => platform.setState(state, error),
      log: (line) => this.#options.log(`${id}: ${line}`),
      signal: this.#abort.signal,
    };
  }

  async #stop(): Promise<void> {
    this.#abort.abort();
    // One budget for the whole stop, so it ends well before `gateway stop` resorts to SIGKILL.
    const deadline = this.#options.clock.now() + STOP_WAIT_MS;
    await this.#until(
      deadline,
      Promise.allSettled([...this.#platforms.values()].map((platform) => platform.stop())),
    );
    const chats = [...this.#chats.values()];
    this.#chats.clear();
    await this.#until(deadline, Promise.allSettled(chats.map((chat) => chat.close())));
    this.#courier.stop();
    await this.#courier.drain(Math.max(0, deadline - this.#options.clock.now()));
    await this.#until(deadline, Promise.allSettled(this.#closing.values()));
  }

  /** Waits for `work`, at most until `deadline` on the clock. */
  async #until(deadline: number, work: Promise<unknown>): Promise<void> {
    let handle: unknown;
    const bound = new Promise<void>((resolve) => {
      handle = this.#options.clock.setTimeout(
        resolve,
        Math.max(0, deadline - this.#options.clock.now()),
      );
    });
    await Promise.race([work, bound]);
    this.#options.clock.clearTimeout(handle);
  }
}
