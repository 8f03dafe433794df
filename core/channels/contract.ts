/**
 * The channel contract: what a messaging platform (Telegram, LINE, the API
 * server, ...) provides to the gateway, as a record of optional parts. A
 * platform is a {@link ChannelPlugin}; the gateway runner discovers the
 * bundled plugins, creates a {@link Channel} for each enabled platform and
 * never needs to know which platform it talks to:
 *
 * - inbound: {@link Channel.start} receives messages and hands each to the
 *   runner through {@link ChannelHost.receive};
 * - outbound: {@link ChannelOutbound} sends a reply the runner planned in
 *   parts no longer than the platform's own limit, in the platform's format;
 * - security: the platform says what kind of chat a message came from
 *   ({@link ChatKind}); who may talk is decided by core/channels/access.ts;
 * - status: {@link Channel.probe} asks the platform who the bot is;
 * - reload: {@link Channel.reload} takes a changed configuration.
 *
 * Everything here is data and interfaces: no I/O, no `node:`.
 *
 * @module
 */

import type { Conversation } from "../agent/conversation.ts";
import type { EnvLookup } from "../config/load.ts";

/** Where a message comes from or goes to: a chat on a platform, maybe a thread in it. */
export interface ChatAddress {
  /** The platform id (`telegram`, `line`, ...). */
  platform: string;
  /** The platform's id of the chat (a Telegram chat id, a LINE user, group or room id). */
  chatId: string;
  /** A thread (topic) inside the chat, on platforms that have them. */
  threadId?: string;
}

/** What kind of chat a message came from; groups and rooms are allowed separately from people. */
export type ChatKind = "direct" | "group" | "room";

/** A file that came with an inbound message; its bytes are fetched only when used. */
export interface InboundAttachment {
  kind: "image" | "audio" | "video" | "file" | "sticker" | "location";
  /** The file name the sender gave, when the platform says. */
  name?: string;
  mimeType?: string;
  /** Size in bytes, when the platform says before the download. */
  size?: number;
  /** Downloads the file; rejects with a message fit for the user when it cannot. */
  fetch(): Promise<Uint8Array>;
}

/** One message a person sent to the bot. */
export interface InboundMessage {
  chat: ChatAddress;
  chatKind: ChatKind;
  /** The sender's platform id (what allowlists and pairing name). */
  userId: string;
  /** The sender's display name, for pairing lists and logs. */
  userName?: string;
  /** The text (a caption for media); "" when there is none. */
  text: string;
  attachments: readonly InboundAttachment[];
  /** The platform's id of the message. */
  messageId?: string;
  /**
   * What the channel needs to answer this message (LINE's reply token);
   * the runner passes it back unchanged to {@link ChannelOutbound.send}.
   */
  replyContext?: unknown;
  /** When the platform received it (ms since the epoch). */
  receivedAt: number;
}

/** A file to send with a reply (`MEDIA:<path>` in an answer). */
export interface OutboundMedia {
  /** Absolute path of the file on this machine. */
  path: string;
  /** Send as a document (a file download) rather than as a photo, audio or video. */
  asDocument: boolean;
}

/** One part of a planned reply: a text no longer than the channel's limit, or a file. */
export type ReplyPart =
  | { kind: "text"; text: string }
  | { kind: "media"; media: OutboundMedia };

/** A reply ready to send: its parts in order, already formatted for the platform. */
export interface OutboundReply {
  parts: readonly ReplyPart[];
  /**
   * The gateway may have sent this reply before it crashed (the platform
   * never confirmed): the channel sends it anyway; the runner has already
   * put a notice saying so in front of the first text part.
   */
  possibleDuplicate?: boolean;
}

/** What the platform confirmed for a sent reply. */
export interface SendReceipt {
  /** The platform's ids of the messages it accepted, in order. */
  messageIds: string[];
  /**
   * The channel holds the reply for the user to fetch (LINE's slow-response
   * button) instead of having sent it; it counts as delivered.
   */
  held?: boolean;
}

/**
 * A send the platform refused for good (a chat that does not exist, a bot
 * that was blocked): retrying cannot help. Any other rejection of
 * {@link ChannelOutbound.send} is taken as passing (a timeout, a 5xx, a
 * dropped connection) and retried with backoff.
 */
export class PermanentSendError extends Error {
  /** Creates the error with the platform's reason. */
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = "PermanentSendError";
  }
}

/** The outbound side of a channel. */
export interface ChannelOutbound {
  /** The most characters one text part may have on this platform. */
  readonly chunkLimit: number;
  /**
   * The platform fetches files from the channel's own server (LINE): a
   * one-off send outside the running gateway cannot include them.
   */
  readonly filesNeedServer?: boolean;
  /** Converts an answer's Markdown to what the platform renders (plain text, HTML, ...). */
  format(markdown: string): string;
  /**
   * Sends a reply's parts in order. `context` is the inbound message's
   * {@link InboundMessage.replyContext} when the reply answers one.
   *
   * @throws PermanentSendError when the platform refused for good; any other error is retried.
   */
  send(to: ChatAddress, reply: OutboundReply, context?: unknown): Promise<SendReceipt>;
  /** Shows that the bot is working (Telegram's typing action, LINE's loading animation). */
  typing?(to: ChatAddress, context?: unknown): Promise<void>;
  /**
   * The turn answering the message with `context` was stopped (`/stop`)
   * and will have no answer; a channel that promised one (LINE's pending
   * button) settles it.
   */
  cancelled?(to: ChatAddress, context?: unknown): void;
}

/** What a platform says about the bot when asked (`getMe`, bot info). */
export interface ProbeResult {
  ok: boolean;
  /** The bot's name or id on the platform, when reached. */
  identity?: string;
  /** Why it failed, fit for the user (never a secret). */
  error?: string;
}

/** A channel's connection state, as `herald gateway status` shows it. */
export type ChannelState = "starting" | "connected" | "retrying" | "stopped" | "refused";

/** What the runner gives a channel when it starts. */
export interface ChannelHost {
  /**
   * Hands an inbound message to the runner. It resolves once the runner
   * has taken the message in (queued it), not when it is answered.
   */
  receive(message: InboundMessage): Promise<void>;
  /** Reports the connection's state and, when it failed, why (shown by `gateway status`). */
  setState(state: ChannelState, error?: string): void;
  /** Logs a line to the gateway's log (never a secret). */
  log(message: string): void;
  /** Aborts when the gateway stops. */
  readonly signal: AbortSignal;
}

/** One connected platform. Every part but `id` and `label` is optional. */
export interface Channel {
  readonly id: string;
  readonly label: string;
  /**
   * What identifies the bot credential (a hash of the token, never the
   * token): two profiles whose channels give the same key may not both
   * run the platform.
   */
  readonly credentialKey?: string;
  /**
   * Starts receiving (long polling, a webhook server, ...) and resolves
   * once it has; it keeps going until {@link ChannelHost.signal} aborts.
   */
  start?(host: ChannelHost): Promise<void>;
  /** Stops receiving and waits for in-flight work (bounded). */
  stop?(): Promise<void>;
  outbound?: ChannelOutbound;
  /** Asks the platform who the bot is, with the current credentials. */
  probe?(): Promise<ProbeResult>;
  /** Takes a changed configuration without a restart; false when it needs one. */
  reload?(context: ChannelContext): Promise<boolean>;
}

/** Clock and timers, so tests can run a channel under fake time. */
export interface ChannelClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * Opens conversations of the gateway's profile, for a channel that runs
 * turns itself rather than through {@link ChannelHost.receive} (the API
 * server answers each HTTP request with a turn). Nobody watches them:
 * dangerous commands follow the unattended policy (denied unless allowed).
 */
export interface ConversationOpener {
  /**
   * A new conversation, or the stored session `resume` continued; `origin`
   * is the chat it serves as a target (`telegram:<chat>`), so jobs made in
   * it deliver back there.
   */
  open(options?: { resume?: string; origin?: string }): Promise<Conversation>;
}

/** Answers one HTTP request to a channel's listener (a webhook, an API). */
export type HttpHandler = (request: Request) => Response | Promise<Response>;

/** Where a channel's listener binds. */
export interface ListenOptions {
  hostname: string;
  /** 0 lets the system choose a free port. */
  port: number;
}

/** A listener the gateway opened for a channel. */
export interface HttpListener {
  /** The port it listens on (the chosen one when 0 was asked). */
  readonly port: number;
  /** Stops accepting connections and resolves once the requests in flight are answered. */
  shutdown(): Promise<void>;
}

/** What a channel is created with. */
export interface ChannelContext {
  /** The profile the gateway serves. */
  profile: string;
  /** The profile's credentials: its `.env`, then the process environment. */
  env: EnvLookup;
  /** `platforms.<id>` of config.yaml (unknown keys kept), `{}` when absent. */
  settings: Readonly<Record<string, unknown>>;
  /** HTTP client (the global `fetch` in production). */
  fetch: typeof fetch;
  clock: ChannelClock;
  /** A folder the channel may keep files in (caches, downloaded media). */
  dataDir: string;
  /** Logs a line to the gateway's log (never a secret). */
  log(message: string): void;
  /** Opens conversations of the profile (see {@link ConversationOpener}). */
  conversations: ConversationOpener;
  /**
   * Opens an HTTP listener for the channel (LINE's webhook, the API
   * server). The program that runs the gateway provides it: listeners are
   * started by cli/ only (DESIGN.md), never by a channel itself.
   *
   * @throws Error when the address cannot be bound (or this process runs no gateway).
   */
  listen(options: ListenOptions, handler: HttpHandler): HttpListener;
}

/** A platform as the gateway discovers it: a bundled module exporting `plugin`. */
export interface ChannelPlugin {
  /** The platform id: `telegram`, `line`, `api_server`. */
  readonly id: string;
  readonly label: string;
  /**
   * Creates the channel for a profile.
   *
   * @throws HeraldError `platform_not_configured` naming what is missing (a token, a secret).
   */
  create(context: ChannelContext): Channel | Promise<Channel>;
}

/**
 * The target string of an address: `platform:chat_id[:thread_id]`, as
 * `herald send -t` and the delivery ledger write it.
 */
export function formatAddress(address: ChatAddress): string {
  const base = `${address.platform}:${address.chatId}`;
  return address.threadId === undefined ? base : `${base}:${address.threadId}`;
}
