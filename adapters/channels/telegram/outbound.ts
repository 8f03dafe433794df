/**
 * Outbound Telegram: a reply's text parts as `sendMessage` in HTML parse
 * mode (resent as plain text when Telegram cannot parse the HTML, so the
 * reply is never lost), its files uploaded as photos, audio, video or
 * documents, the typing action, and Telegram's refusals sorted into the
 * ones retrying cannot fix ({@link PermanentSendError}) and the rest.
 *
 * A reply the runner retries (the same object) goes on from the first
 * message Telegram did not confirm, so a failure half-way through a long
 * answer does not send its beginning twice.
 *
 * @module
 */

import {
  type ChannelOutbound,
  type ChatAddress,
  formatAddress,
  type OutboundMedia,
  type OutboundReply,
  PermanentSendError,
  type SendReceipt,
} from "../../../core/channels/contract.ts";
import { markdownToTelegramHtml } from "../../../core/channels/formats.ts";
import { markPossibleDuplicate, RESENT_NOTICE } from "../../../core/channels/reply.ts";
import { type TelegramApi, TelegramApiError, type TelegramMessage } from "./api.ts";
import { errorText } from "../../../core/errors.ts";

/** The most characters Telegram takes in one message. */
export const TELEGRAM_TEXT_LIMIT = 4096;
/** The largest file a bot may upload (50 MB) and the largest photo (10 MB). */
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const MAX_PHOTO_BYTES = 10 * 1024 * 1024;
const SEND_TIMEOUT_MS = 30_000;
const UPLOAD_TIMEOUT_MS = 300_000;

const PHOTO = /\.(?:jpe?g|png|webp)$/i;
const AUDIO = /\.(?:mp3|m4a|aac|flac|wav|oga|ogg|opus)$/i;
const VIDEO = /\.(?:mp4|mov|m4v|webm|mkv)$/i;

/** What the outbound side is built from. */
export interface TelegramOutboundOptions {
  api: TelegramApi;
  /** Logs a line (never a secret). */
  log(message: string): void;
}

/** One Telegram message of a reply: a text of at most 4096 characters, or a file. */
type Unit = { kind: "text"; text: string } | { kind: "media"; media: OutboundMedia };

interface Progress {
  done: number;
  ids: string[];
  /**
   * The last try of part `done` got no answer (a timeout, a dropped
   * connection): Telegram may have it, so the next try says so.
   */
  uncertain: boolean;
  /** The notice for part `done` went as a message of its own already. */
  noticed: boolean;
}

/** The outbound side of the Telegram channel. */
export class TelegramOutbound implements ChannelOutbound {
  readonly chunkLimit = TELEGRAM_TEXT_LIMIT;
  readonly #api: TelegramApi;
  readonly #log: (message: string) => void;
  readonly #progress = new WeakMap<OutboundReply, Map<string, Progress>>();
  readonly #inFlight = new Set<Promise<unknown>>();

  /** Creates the outbound side; nothing is sent until a call. */
  constructor(options: TelegramOutboundOptions) {
    this.#api = options.api;
    this.#log = options.log;
  }

  /** Markdown as Telegram HTML. */
  format(markdown: string): string {
    return markdownToTelegramHtml(markdown);
  }

  /**
   * Sends the reply's parts in order and returns the ids of the messages
   * Telegram accepted.
   *
   * @throws PermanentSendError for a chat Telegram will not deliver to (400, 403) or a missing file.
   * @throws TelegramApiError (not permanent) for 429 (with `retryAfterMs`), 5xx, timeouts and network errors.
   */
  send(to: ChatAddress, reply: OutboundReply): Promise<SendReceipt> {
    return this.#track(this.#send(to, reply));
  }

  /** Shows "typing..." in the chat; a failure is logged, never thrown. */
  async typing(to: ChatAddress): Promise<void> {
    try {
      await this.#track(this.#api.call("sendChatAction", {
        ...target(to),
        action: "typing",
      }, { timeoutMs: SEND_TIMEOUT_MS }));
    } catch (error) {
      this.#log(`telegram: the typing action in ${formatAddress(to)} failed: ${errorText(error)}`);
    }
  }

  /** Resolves when every send in flight has settled. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const forget = () => this.#inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  async #send(to: ChatAddress, reply: OutboundReply): Promise<SendReceipt> {
    const units = unitsOf(reply);
    const key = formatAddress(to);
    const byChat = this.#progress.get(reply) ?? new Map<string, Progress>();
    this.#progress.set(reply, byChat);
    const progress = byChat.get(key) ?? { done: 0, ids: [], uncertain: false, noticed: false };
    byChat.set(key, progress);
    for (; progress.done < units.length; progress.done += 1) {
      const unit = units[progress.done];
      // The notice goes once per part: not again when it went as its own message already.
      const pieces = progress.uncertain && !progress.noticed
        ? markPossibleDuplicate(
          { parts: [unit] },
          (markdown) => this.format(markdown),
          this.chunkLimit,
          RESENT_NOTICE,
        ).parts
        : [unit];
      let sent: TelegramMessage | undefined;
      try {
        for (const [index, piece] of pieces.entries()) {
          sent = piece.kind === "text"
            ? await this.#sendText(to, piece.text)
            : await this.#sendMedia(to, piece.media);
          if (pieces.length > 1 && index === 0) progress.noticed = true;
        }
      } catch (error) {
        // Telegram answered (an error status): nothing was sent. No answer at all: it may have been.
        progress.uncertain = !(error instanceof TelegramApiError && error.failure === "api");
        throw error;
      }
      progress.uncertain = false;
      progress.noticed = false;
      progress.ids.push(String(sent!.message_id));
    }
    byChat.delete(key);
    return { messageIds: [...progress.ids] };
  }

  async #sendText(to: ChatAddress, text: string): Promise<TelegramMessage> {
    try {
      return await this.#call(to, "sendMessage", { text, parse_mode: "HTML" });
    } catch (error) {
      if (!unparsable(error)) throw error;
      this.#log(
        `telegram: Telegram could not parse the HTML of a message to ${
          formatAddress(to)
        }; sending it as plain text`,
      );
      const plain = htmlToPlainText(text);
      return await this.#call(to, "sendMessage", { text: plain === "" ? text : plain });
    }
  }

  async #sendMedia(to: ChatAddress, media: OutboundMedia): Promise<TelegramMessage> {
    let size: number;
    try {
      const info = await Deno.stat(media.path);
      if (!info.isFile) throw new PermanentSendError(`"${media.path}" is not a file; nothing sent`);
      size = info.size;
    } catch (error) {
      if (error instanceof PermanentSendError) throw error;
      throw new PermanentSendError(
        `The file "${media.path}" to send cannot be read: ${errorText(error)}`,
      );
    }
    if (size > MAX_UPLOAD_BYTES) {
      throw new PermanentSendError(
        `"${media.path}" is ${megabytes(size)}; Telegram bots can send files up to 50 MB`,
      );
    }
    const [method, field] = uploadMethod(media, size);
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(media.path);
    } catch (error) {
      throw new PermanentSendError(
        `The file "${media.path}" to send cannot be read: ${errorText(error)}`,
      );
    }
    const name = media.path.split(/[\\/]/).pop() || "file";
    return await this.#call(to, method, {}, { field, name, bytes });
  }

  /** One call for `to`; a group that became a supergroup is followed once. */
  async #call(
    to: ChatAddress,
    method: string,
    params: Record<string, unknown>,
    file?: { field: string; name: string; bytes: Uint8Array },
  ): Promise<TelegramMessage> {
    const attempt = (address: ChatAddress) => {
      const all = { ...target(address), ...params };
      return file === undefined
        ? this.#api.call<TelegramMessage>(method, all, { timeoutMs: SEND_TIMEOUT_MS })
        : this.#api.upload<TelegramMessage>(method, all, file, { timeoutMs: UPLOAD_TIMEOUT_MS });
    };
    try {
      return await attempt(to);
    } catch (error) {
      if (error instanceof TelegramApiError && error.migrateToChatId !== undefined) {
        const moved = { ...to, chatId: String(error.migrateToChatId) };
        this.#log(
          `telegram: ${formatAddress(to)} became the supergroup ${
            formatAddress(moved)
          }; update any home channel that names the old id`,
        );
        try {
          return await attempt(moved);
        } catch (again) {
          throw sendError(again, moved);
        }
      }
      if (unparsable(error)) throw error;
      throw sendError(error, to);
    }
  }
}

/** The Bot API parameters that address a chat (and a topic in it). */
function target(to: ChatAddress): Record<string, unknown> {
  return {
    chat_id: /^-?\d+$/.test(to.chatId) ? Number(to.chatId) : to.chatId,
    ...(to.threadId === undefined ? {} : { message_thread_id: Number(to.threadId) }),
  };
}

/** 400 and 403 cannot be fixed by retrying; everything else (429, 5xx, no answer) can. */
function sendError(error: unknown, to: ChatAddress): unknown {
  if (
    error instanceof TelegramApiError && error.failure === "api" &&
    (error.status === 400 || error.status === 403)
  ) {
    return new PermanentSendError(
      `Telegram will not deliver to ${formatAddress(to)}: ${error.description ?? error.message}`,
      error.status,
    );
  }
  return error;
}

function unparsable(error: unknown): boolean {
  return error instanceof TelegramApiError && error.status === 400 &&
    /can't parse entities/i.test(error.description ?? "");
}

function uploadMethod(media: OutboundMedia, size: number): [string, string] {
  if (!media.asDocument) {
    if (PHOTO.test(media.path) && size <= MAX_PHOTO_BYTES) return ["sendPhoto", "photo"];
    if (AUDIO.test(media.path)) return ["sendAudio", "audio"];
    if (VIDEO.test(media.path)) return ["sendVideo", "video"];
  }
  return ["sendDocument", "document"];
}

/** The reply as Telegram messages: text parts longer than the limit are split. */
function unitsOf(reply: OutboundReply): Unit[] {
  const units: Unit[] = [];
  for (const part of reply.parts) {
    if (part.kind === "media") units.push(part);
    else {
      for (const text of splitText(part.text, TELEGRAM_TEXT_LIMIT)) {
        if (text.trim() !== "") units.push({ kind: "text", text });
      }
    }
  }
  return units;
}

/**
 * Splits `text` into pieces of at most `limit` characters, preferring a
 * paragraph break, then a line break, then a space, never inside a tag or
 * a surrogate pair. The runner plans parts within the limit already; this
 * only guards against one that is not.
 */
export function splitText(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let cut = bestCut(rest, limit);
    const lastOpen = rest.lastIndexOf("<", cut - 1);
    if (lastOpen > rest.lastIndexOf(">", cut - 1) && lastOpen > 0) cut = lastOpen;
    if (/[\uD800-\uDBFF]/.test(rest[cut - 1] ?? "")) cut -= 1;
    pieces.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).replace(/^\s*\n/, "");
  }
  pieces.push(rest);
  return pieces;
}

function bestCut(text: string, limit: number): number {
  const window = text.slice(0, limit);
  for (const separator of ["\n\n", "\n", " "]) {
    const at = window.lastIndexOf(separator);
    if (at >= limit / 2) return at + separator.length;
  }
  return limit;
}

/** Telegram HTML as the text it shows: tags dropped, entities decoded. */
export function htmlToPlainText(html: string): string {
  return html
    .replace(/<\/?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]*)?>/g, "")
    .replace(/&#(\d+);/g, (whole, code: string) => codePoint(Number(code), whole))
    .replace(/&#x([0-9a-fA-F]+);/g, (whole, code: string) => codePoint(parseInt(code, 16), whole))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

function codePoint(code: number, otherwise: string): string {
  return code <= 0x10ffff ? String.fromCodePoint(code) : otherwise;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
