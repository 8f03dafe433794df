/**
 * One chat as the gateway runner keeps it: its conversation (opened lazily,
 * resuming the chat's stored session), the messages waiting behind the
 * running turn, and the gateway's own commands that cannot wait for it.
 *
 * - Messages are answered strictly in order. One that arrives while a turn
 *   runs is queued and acknowledged at once ({@link QUEUED_TEXT}); at most
 *   `maxQueued` wait, the next is refused with {@link QUEUE_FULL_TEXT}.
 * - `/stop` interrupts the running turn at once: the channel is told the
 *   turn will have no answer (`outbound.cancelled`), the messages queued
 *   behind it are dropped (they are told the same), and the user is told
 *   what was stopped. Nothing running: {@link NOTHING_RUNNING_TEXT}.
 * - `/new` (and `/clear`) while a turn runs stops it and drops the queue as
 *   `/stop` does, then starts the fresh session; when idle it goes through
 *   the conversation like any command.
 * - Every other command and all text go to the conversation
 *   (core/agent/conversation.ts), so slash commands work as on every surface.
 *   Telegram's `/command@botname` form is read as `/command`.
 * - The chat's session id is kept in the {@link ChatSessionStore}: set once
 *   a turn stored something, removed after `/new` (until the new session's
 *   first turn) and after `/exit`, so a restart resumes the right session.
 *
 * @module
 */

import {
  type Conversation,
  ConversationClosedError,
  type ConversationResult,
} from "../agent/conversation.ts";
import type {
  ChannelClock,
  ChannelOutbound,
  ChatAddress,
  InboundMessage,
} from "../channels/contract.ts";
import { formatAddress } from "../channels/contract.ts";
import { HeraldError } from "../errors.ts";
import { errorText } from "../../core/errors.ts";

/** Where the gateway keeps each chat's session id, across restarts. */
export interface ChatSessionStore {
  /** The chat's stored session id, if it has one. */
  get(address: ChatAddress): string | undefined | Promise<string | undefined>;
  /** Remembers `sessionId` as the chat's session. */
  set(address: ChatAddress, sessionId: string): void | Promise<void>;
  /** Forgets the chat's session (its next message starts a new one). */
  delete(address: ChatAddress): void | Promise<void>;
}

/** The acknowledgement of a message queued behind a running turn. */
export const QUEUED_TEXT = "Queued: I'll answer this once the current reply is done.";
/** The answer to a message refused because too many wait already. */
export const QUEUE_FULL_TEXT =
  "Too many messages are already waiting in this chat, so this one was not queued. " +
  "Send it again once the answers arrive.";
/** The answer to `/stop` when nothing runs. */
export const NOTHING_RUNNING_TEXT = "Nothing is running.";
/** The answer to `/stop`. */
export const STOPPED_TEXT = "Stopped.";
/** How often the typing indicator is renewed while a turn runs (ms). */
export const TYPING_INTERVAL_MS = 4000;

/** What a message's attachments made of it. */
export interface PreparedInput {
  /** The text for the conversation, with the admitted attachments described; "" for nothing. */
  prompt: string;
  /** One line per refused attachment, saying why (told to the user). */
  refusals: string[];
}

/** What a reply is, besides its text. */
export interface ReplyOptions {
  /** The session the reply belongs to. */
  sessionId?: string;
  /** The message's last word: it needs nothing more once this reply is owed. */
  final?: boolean;
  /** A notice that the message waits its turn (not repeated for a message replayed after a restart). */
  ack?: boolean;
}

/** What a chat session needs from the runner. */
export interface ChatSessionHost {
  /** Opens the chat's conversation, resuming `resume` when given. */
  openConversation(chat: ChatAddress, resume?: string): Promise<Conversation>;
  store: ChatSessionStore;
  /** The channel's outbound part (typing, cancelled); undefined when it cannot send. */
  outbound: ChannelOutbound | undefined;
  /**
   * Plans `text` for the channel and delivers it through the ledger,
   * answering `message`. Never rejects; does not wait for the delivery.
   */
  reply(message: InboundMessage, text: string, options?: ReplyOptions): void;
  /**
   * `message` needs nothing more and got no final reply (stopped by the
   * user, dropped with the queue, or the turn failed before answering).
   * Never rejects. Not called for what a shutdown interrupts: that is
   * answered at the next start.
   */
  settle(message: InboundMessage): void;
  /** Admits or refuses the message's attachments and builds the prompt. */
  prepare(message: InboundMessage, text: string): Promise<PreparedInput>;
  clock: ChannelClock;
  log(line: string): void;
  /** Told when the session opened its conversation (the runner bounds how many are open). */
  opened(session: ChatSession): void;
  /** The most messages that may wait behind a running turn. */
  maxQueued: number;
  /** Told when a turn starts or ends or the queue changes: the runner's counts moved. */
  changed?(): void;
}

/** A message taken in, waiting or being answered. */
interface Item {
  message: InboundMessage;
  /** The text as the conversation gets it (`/cmd@bot` read as `/cmd`). */
  text: string;
  controller: AbortController;
  /** Set by `/stop` (or `/new`, or shutdown): no answer is sent. */
  stopped: boolean;
  /** A line to put in front of the answer (`/new` that stopped a turn). */
  preface?: string;
  /** A final reply was handed over (or the message was settled). */
  settled: boolean;
}

/** A slash command as typed: its name (lowercase, `@botname` dropped) and the rest. */
interface Command {
  name: string;
  args: string;
}

const COMMAND = /^\/([A-Za-z0-9_-]+)(?:@[A-Za-z0-9_]+)?(?:\s+([\s\S]*))?$/;

function commandOf(text: string): Command | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1].toLowerCase(), args: (match[2] ?? "").trim() };
}

/** The text the conversation gets: `/cmd@bot args` as `/cmd args`, anything else unchanged. */
function normalise(text: string, command: Command | undefined): string {
  if (!command || !/^\s*\/[A-Za-z0-9_-]+@/.test(text)) return text;
  return command.args === "" ? `/${command.name}` : `/${command.name} ${command.args}`;
}

/** What the user is told when their message could not be answered: no secrets, no stack. */
export function failureText(error: unknown): string {
  if (error instanceof HeraldError) return `Sorry, I could not answer that: ${error.message}`;
  return "Sorry, something went wrong while answering; the gateway log says what.";
}

/** The text to send for a conversation's result. */
export function resultText(result: ConversationResult): string {
  return result.kind === "turn" ? result.result.response : result.text;
}

/**
 * Renews the typing indicator every {@link TYPING_INTERVAL_MS} until the
 * returned function is called; a failing indicator is ignored.
 */
function startTyping(
  outbound: ChannelOutbound | undefined,
  message: InboundMessage,
  clock: ChannelClock,
): () => void {
  const typing = outbound?.typing?.bind(outbound);
  if (!typing) return () => {};
  let handle: unknown;
  let running = true;
  const tick = () => {
    if (!running) return;
    try {
      typing(message.chat, message.replyContext).catch(() => {});
    } catch {
      // A channel whose indicator throws at once: the turn goes on without it.
    }
    handle = clock.setTimeout(tick, TYPING_INTERVAL_MS);
  };
  tick();
  return () => {
    running = false;
    clock.clearTimeout(handle);
  };
}

/** One chat: its queue, its running turn and its conversation. */
export class ChatSession {
  /** The chat. */
  readonly address: ChatAddress;
  /** `platform:chat[:thread]`, the session's key. */
  readonly key: string;
  readonly #host: ChatSessionHost;
  readonly #queue: Item[] = [];
  #current: Item | undefined;
  #loop: Promise<void> | undefined;
  #conversation: Conversation | undefined;
  /** The session id the store holds for the chat, as far as this session knows. */
  #storedId: string | undefined;
  #storedKnown = false;
  #closing = false;

  /** Creates the session of `address`; nothing is opened until its first message. */
  constructor(address: ChatAddress, host: ChatSessionHost) {
    this.address = address;
    this.key = formatAddress(address);
    this.#host = host;
  }

  /** Messages waiting behind the running turn. */
  get queued(): number {
    return this.#queue.length;
  }

  /** True while a message is being answered. */
  get running(): boolean {
    return this.#current !== undefined;
  }

  /** True while the conversation is open. */
  get open(): boolean {
    return this.#conversation !== undefined && !this.#conversation.closed;
  }

  /** True when nothing runs or waits: the session may be closed to free its conversation. */
  get idle(): boolean {
    return this.#current === undefined && this.#queue.length === 0 && this.#loop === undefined;
  }

  /**
   * Takes in one allowed message: `/stop` and a busy `/new` act at once;
   * anything else is answered in order (acknowledged when it has to wait).
   */
  accept(message: InboundMessage): void {
    if (this.#closing) return;
    const command = commandOf(message.text);
    const text = normalise(message.text, command);
    if (command?.name === "stop" && message.attachments.length === 0) {
      this.#stop(message);
      return;
    }
    const item: Item = {
      message,
      text,
      controller: new AbortController(),
      stopped: false,
      settled: false,
    };
    if (this.#current && (command?.name === "new" || command?.name === "clear")) {
      this.#interruptAll();
      item.preface = "Stopped the running turn.";
      this.#queue.push(item);
      this.#host.changed?.();
      return;
    }
    if (this.#current) {
      if (this.#queue.length >= this.#host.maxQueued) {
        this.#host.reply(message, QUEUE_FULL_TEXT, { final: true });
        return;
      }
      this.#queue.push(item);
      this.#host.changed?.();
      // A turn already stopped is only winding down: the message is next, so it needs no notice.
      if (!this.#current.stopped) this.#host.reply(message, QUEUED_TEXT, { ack: true });
      return;
    }
    this.#queue.push(item);
    this.#host.changed?.();
    this.#loop ??= this.#run();
  }

  /**
   * Shuts the session down: drops what waits, interrupts the running turn
   * and waits for it (the caller bounds the wait), then closes the
   * conversation.
   */
  async close(): Promise<void> {
    this.#closing = true;
    const dropped = this.#queue.splice(0);
    if (dropped.length > 0) {
      this.#host.log(
        `${this.key}: ${dropped.length} waiting message${
          dropped.length === 1 ? "" : "s"
        } left for the next start`,
      );
    }
    const current = this.#current;
    if (current) {
      current.stopped = true;
      current.controller.abort();
      this.#conversation?.interrupt();
    }
    await this.#loop;
    await this.#closeConversation();
  }

  /** Closes the conversation of an idle session (it reopens, resuming, on the next message). */
  async release(): Promise<void> {
    if (!this.idle) return;
    await this.#closeConversation();
  }

  async #closeConversation(): Promise<void> {
    const conversation = this.#conversation;
    this.#conversation = undefined;
    if (!conversation) return;
    try {
      await conversation.close();
    } catch (error) {
      this.#host.log(`${this.key}: closing the conversation failed: ${errorText(error)}`);
    }
  }

  #stop(message: InboundMessage): void {
    if (!this.#current) {
      this.#host.reply(message, NOTHING_RUNNING_TEXT, { final: true });
      return;
    }
    const dropped = this.#interruptAll();
    const also = dropped === 0
      ? ""
      : ` The ${dropped === 1 ? "message" : `${dropped} messages`} waiting behind it ${
        dropped === 1 ? "was" : "were"
      } dropped.`;
    this.#host.reply(message, `${STOPPED_TEXT}${also}`, { final: true });
  }

  /** Stops the running turn and drops the queue; returns how many were dropped. */
  #interruptAll(): number {
    const current = this.#current;
    const dropped = this.#queue.splice(0);
    if (dropped.length > 0) this.#host.changed?.();
    if (current && !current.stopped) {
      current.stopped = true;
      current.controller.abort();
      this.#conversation?.interrupt();
      this.#cancelled(current);
    }
    for (const item of dropped) {
      this.#cancelled(item);
      this.#settle(item);
    }
    return dropped.length;
  }

  /** Settles `item` unless a final reply already did. */
  #settle(item: Item): void {
    if (item.settled) return;
    item.settled = true;
    this.#host.settle(item.message);
  }

  /** Hands over `item`'s final reply, which settles it. */
  #finalReply(item: Item, text: string, sessionId?: string): void {
    item.settled = true;
    this.#host.reply(item.message, text, {
      final: true,
      ...(sessionId === undefined ? {} : { sessionId }),
    });
  }

  #cancelled(item: Item): void {
    try {
      this.#host.outbound?.cancelled?.(item.message.chat, item.message.replyContext);
    } catch (error) {
      this.#host.log(
        `${this.key}: the channel failed to settle a stopped turn: ${errorText(error)}`,
      );
    }
  }

  async #run(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.#closing) {
        const item = this.#queue.shift()!;
        this.#current = item;
        this.#host.changed?.();
        try {
          await this.#answer(item);
        } catch (error) {
          this.#host.log(`${this.key}: answering failed: ${errorText(error)}`);
        } finally {
          this.#current = undefined;
          this.#host.changed?.();
          // What a shutdown interrupted stays owed: it is answered at the next start.
          if (!this.#closing || item.settled) this.#settle(item);
        }
      }
    } finally {
      this.#loop = undefined;
    }
  }

  async #answer(item: Item): Promise<void> {
    const { message } = item;
    let prompt = item.text;
    if (message.attachments.length > 0) {
      const prepared = await this.#host.prepare(message, item.text);
      prompt = prepared.prompt;
      if (prompt.trim() === "") {
        if (prepared.refusals.length > 0) this.#finalReply(item, prepared.refusals.join("\n"));
        return;
      }
      if (prepared.refusals.length > 0) this.#host.reply(message, prepared.refusals.join("\n"));
    }
    if (item.stopped || this.#closing) return;
    const stopTyping = startTyping(this.#host.outbound, message, this.#host.clock);
    let conversation: Conversation;
    let result: ConversationResult;
    try {
      conversation = await this.#conversationFor();
      if (item.stopped || this.#closing) return;
      result = await conversation.input(prompt, {
        signal: item.controller.signal,
        onTurnStart: (sessionId) => void this.#remember(sessionId ?? undefined),
        // `/blueprint <name>` says what it starts before its fill request runs as a turn.
        onNotice: (text) => this.#host.reply(message, text),
      });
    } catch (error) {
      if (item.stopped || this.#closing) return;
      if (error instanceof ConversationClosedError) this.#conversation = undefined;
      this.#host.log(`${this.key}: the turn failed: ${errorText(error)}`);
      this.#finalReply(item, failureText(error), this.#conversation?.sessionId);
      return;
    } finally {
      stopTyping();
    }
    if (result.kind === "exit") {
      this.#conversation = undefined;
      await this.#remember(undefined);
    } else {
      await this.#remember(conversation.sessionId);
    }
    if (item.stopped || this.#closing) return;
    const text = resultText(result);
    const answer = item.preface ? `${item.preface} ${text}` : text;
    const sessionId = result.kind === "turn" ? result.result.sessionId : conversation.sessionId;
    this.#finalReply(item, answer, sessionId ?? undefined);
  }

  /** The open conversation, opened (resuming the stored session) when there is none. */
  async #conversationFor(): Promise<Conversation> {
    if (this.#conversation && !this.#conversation.closed) return this.#conversation;
    const resume = await this.#stored();
    let conversation: Conversation;
    try {
      conversation = await this.#host.openConversation(this.address, resume);
    } catch (error) {
      if (resume === undefined || !(error instanceof HeraldError) || error.kind !== "not_found") {
        throw error;
      }
      this.#host.log(
        `${this.key}: its stored session ${resume} is gone (${error.message}); starting a new one`,
      );
      await this.#remember(undefined);
      conversation = await this.#host.openConversation(this.address);
    }
    this.#conversation = conversation;
    this.#host.opened(this);
    return conversation;
  }

  async #stored(): Promise<string | undefined> {
    if (!this.#storedKnown) {
      this.#storedId = await this.#host.store.get(this.address);
      this.#storedKnown = true;
    }
    return this.#storedId;
  }

  /** Makes the store hold `sessionId` (or nothing) for the chat; a failing store is logged. */
  async #remember(sessionId: string | undefined): Promise<void> {
    if (this.#storedKnown && this.#storedId === sessionId) return;
    this.#storedId = sessionId;
    this.#storedKnown = true;
    try {
      if (sessionId === undefined) await this.#host.store.delete(this.address);
      else await this.#host.store.set(this.address, sessionId);
    } catch (error) {
      this.#storedKnown = false;
      this.#host.log(`${this.key}: the chat's session id could not be stored: ${errorText(error)}`);
    }
  }
}
