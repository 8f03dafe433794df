/**
 * Outbound LINE. A reply's text parts become text messages (plain text: LINE
 * renders no Markdown), its images image messages and its other files a
 * link, both served from `LINE_PUBLIC_URL` (without it a reply with files
 * is refused before anything is sent). Messages go five per call: the first
 * call with the message's reply token while it is fresh and unused (free),
 * the rest by push (metered) with an `X-Line-Retry-Key`, so a retried push
 * is not delivered twice. A reply the runner retries goes on from the first
 * call LINE did not confirm.
 *
 * The slow-response machine (core/channels/line/postback.ts) decides what a
 * reply token is good for: an answer arriving once the token went to the
 * "Get answer" button is held for the tap ({@link SendReceipt.held}).
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
  type SendReceipt,
} from "../../../core/channels/contract.ts";
import { markdownToPlainText } from "../../../core/channels/formats.ts";
import {
  postbackData,
  type SlowRequest,
  type SlowResponses,
} from "../../../core/channels/line/postback.ts";
import { markPossibleDuplicate, splitText } from "../../../core/channels/reply.ts";
import { type LineApi, LineApiError, type LineMessage } from "./api.ts";
import { readReplyContext } from "./inbound.ts";
import { mediaMessage, type MediaShelf } from "./media.ts";
import type { HeldAnswers } from "./held.ts";
import { errorText } from "../../../core/errors.ts";

/** Characters per text message the runner plans (LINE's own limit is 5000). */
export const LINE_CHUNK_LIMIT = 4500;
/** LINE's limit for one text message, in UTF-16 code units. */
const LINE_TEXT_MAX = 5000;
/** Message objects per reply or push call. */
export const LINE_MESSAGES_PER_CALL = 5;
/** How long one loading animation lasts, and how often it is renewed at most. */
const LOADING_SECONDS = 20;
const LOADING_RENEW_MS = 15_000;

/** What the outbound side is built from. */
export interface LineOutboundOptions {
  api: LineApi;
  slow: SlowResponses;
  media: MediaShelf;
  /** Where LINE reaches the webhook server; files cannot be sent without it. */
  publicUrl?: string;
  clock: ChannelClock;
  /** Logs a line (never a secret). */
  log(message: string): void;
  /** Where held answers are kept until delivered (a restart pushes them); none: memory only. */
  held?: HeldAnswers;
}

interface Progress {
  messages: LineMessage[];
  /** Messages LINE confirmed. */
  done: number;
  ids: string[];
  /** The reply token the next call may use, once. */
  replyToken?: string;
  /** Whether the token question was settled (claimed, pushed or held). */
  decided: boolean;
  /** Push retry keys, by the index of the batch's first message. */
  keys: Map<number, string>;
}

/** The outbound side of the LINE channel. */
export class LineOutbound implements ChannelOutbound {
  readonly chunkLimit = LINE_CHUNK_LIMIT;
  /** LINE fetches files from the webhook server's media shelf, which lives with the gateway. */
  readonly filesNeedServer = true;
  readonly #api: LineApi;
  readonly #slow: SlowResponses;
  readonly #media: MediaShelf;
  readonly #publicUrl: string | undefined;
  readonly #clock: ChannelClock;
  readonly #log: (message: string) => void;
  readonly #progress = new WeakMap<OutboundReply, Map<string, Progress>>();
  /** Buttons being sent, by request id. */
  readonly #arming = new Map<string, Promise<void>>();
  /** When the loading animation was last started, by chat id. */
  readonly #loading = new Map<string, number>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #held: HeldAnswers | undefined;

  /** Creates the outbound side; nothing is sent until a call. */
  constructor(options: LineOutboundOptions) {
    this.#api = options.api;
    this.#slow = options.slow;
    this.#media = options.media;
    this.#publicUrl = options.publicUrl;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#held = options.held;
  }

  /** Markdown as plain text (`[label](url)` becomes `label (url)`). */
  format(markdown: string): string {
    return markdownToPlainText(markdown);
  }

  /**
   * Sends the reply: reply token first while fresh, then push, five
   * messages per call. Returns `held` when the answer waits behind the
   * "Get answer" button.
   *
   * @throws PermanentSendError for a reply with files but no `LINE_PUBLIC_URL`, a file that
   *   cannot be read, or a refusal (4xx other than 429); a LineApiError (retried) for 429,
   *   5xx, timeouts and network errors.
   */
  send(to: ChatAddress, reply: OutboundReply, context?: unknown): Promise<SendReceipt> {
    return this.#track(this.#send(to, reply, context));
  }

  /**
   * Shows the loading animation in a one-to-one chat (LINE has none for
   * groups and rooms), renewed at most every 15 s; it also tells the
   * slow-response machine the message's turn is running. Never throws.
   */
  async typing(to: ChatAddress, context?: unknown): Promise<void> {
    const { replyToken } = readReplyContext(context);
    if (replyToken !== undefined) this.#slow.alive(replyToken);
    if (!to.chatId.startsWith("U")) return;
    const now = this.#clock.now();
    const last = this.#loading.get(to.chatId);
    if (last !== undefined && now - last < LOADING_RENEW_MS) return;
    this.#loading.delete(to.chatId);
    this.#loading.set(to.chatId, now);
    if (this.#loading.size > 1000) this.#loading.delete(this.#loading.keys().next().value!);
    try {
      await this.#track(this.#api.startLoading(to.chatId, LOADING_SECONDS));
    } catch (error) {
      this.#log(`line: the loading animation in ${formatAddress(to)} failed: ${errorText(error)}`);
    }
  }

  /** The turn answering the message with `context` was stopped: settles its button. */
  cancelled(_to: ChatAddress, context?: unknown): void {
    this.#slow.cancel(readReplyContext(context).replyToken);
  }

  /** Resolves when every call in flight has settled. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /**
   * Spends a slow message's reply token on the "Get answer" button (the
   * machine's `onSlow`), and tells the machine whether LINE took it.
   */
  sendButton(request: SlowRequest): void {
    const texts = this.#slow.texts;
    const button: LineMessage = {
      type: "template",
      altText: clip(texts.pending, 400),
      template: {
        type: "buttons",
        text: clip(texts.pending, 160),
        actions: [{
          type: "postback",
          label: clip(texts.button, 20),
          data: postbackData(request.id),
          displayText: clip(texts.button, 300),
        }],
      },
    };
    const sending = (async () => {
      try {
        await this.#api.reply(request.replyToken, [button]);
        this.#slow.armed(request.id, true);
      } catch (error) {
        this.#log(
          `line: the "${texts.button}" button for a slow answer in ${
            formatAddress(request.chat)
          } was not sent (${errorText(error)}); the answer will be pushed`,
        );
        this.#slow.armed(request.id, false);
      } finally {
        this.#arming.delete(request.id);
      }
    })();
    this.#arming.set(request.id, sending);
    this.#track(sending);
  }

  /**
   * Answers a tap on the button of `requestId` in `chat` with the tap's
   * fresh reply token: the held answer, or a line saying where it stands.
   */
  answerTap(chat: ChatAddress, requestId: string, replyToken?: string): Promise<void> {
    return this.#track(this.#answerTap(chat, requestId, replyToken));
  }

  async #answerTap(chat: ChatAddress, requestId: string, replyToken?: string): Promise<void> {
    const outcome = this.#slow.tap(requestId, chat.chatId);
    if (outcome.kind === "say") {
      if (replyToken === undefined) return;
      try {
        await this.#api.reply(replyToken, [{ type: "text", text: outcome.text }]);
      } catch (error) {
        this.#log(
          `line: answering a button tap in ${formatAddress(chat)} failed: ${errorText(error)}`,
        );
      }
      return;
    }
    try {
      let token = replyToken;
      for (const reply of outcome.replies) {
        const progress = this.#progressOf(chat, reply);
        if (progress === undefined || progress.done >= progress.messages.length) continue;
        if (token !== undefined) progress.replyToken = token;
        token = undefined;
        await this.#transmit(chat, progress);
        this.#forget(chat, reply);
      }
      this.#slow.delivered(requestId);
      await this.#held?.remove(requestId);
    } catch (error) {
      this.#slow.deliveryFailed(requestId);
      this.#log(
        `line: the held answer for ${formatAddress(chat)} was not sent (${
          errorText(error)
        }); a new tap will try again`,
      );
    }
  }

  /** Pushes a held answer nobody fetched before it expired (the machine's `onExpired`). */
  pushExpired(request: SlowRequest, replies: OutboundReply[]): void {
    const work = (async () => {
      for (const reply of replies) {
        const progress = this.#progressOf(request.chat, reply);
        if (progress === undefined) continue;
        progress.replyToken = undefined;
        await this.#transmit(request.chat, progress);
        this.#forget(request.chat, reply);
      }
      await this.#held?.remove(request.id);
    })().catch((error) => {
      this.#log(
        `line: a held answer for ${formatAddress(request.chat)} expired untapped and could ` +
          `not be pushed: ${errorText(error)}`,
      );
    });
    this.#track(work);
  }

  /**
   * Pushes the answers an earlier run held behind buttons and never
   * delivered (their buttons cannot be answered by this process); each one
   * pushed leaves the file, one that fails stays for the next start.
   * {@link idle} waits for it, file updates included.
   */
  pushLeftovers(): Promise<void> {
    return this.#track(this.#pushLeftovers());
  }

  async #pushLeftovers(): Promise<void> {
    const left = await this.#held?.list() ?? [];
    if (left.length === 0) return;
    this.#log(
      `line: pushing ${left.length} held answer${left.length === 1 ? "" : "s"} an earlier run ` +
        "did not deliver",
    );
    const requests = [...new Set(left.map((answer) => answer.requestId))];
    for (const requestId of requests) {
      const answers = left.filter((answer) => answer.requestId === requestId);
      const chat = answers[0].chat;
      try {
        for (const answer of answers) {
          // The restart may have come between the push and its record: said so in front.
          const reply = markPossibleDuplicate(
            answer.reply,
            (markdown) => this.format(markdown),
            this.chunkLimit,
          );
          const progress: Progress = {
            messages: await this.#messagesOf(reply),
            done: 0,
            ids: [],
            decided: true,
            keys: new Map(),
          };
          await this.#transmit(chat, progress);
        }
        await this.#held?.remove(requestId);
      } catch (error) {
        this.#log(
          `line: a held answer for ${formatAddress(chat)} could not be pushed ` +
            `(${errorText(error)}); the next start tries again`,
        );
      }
    }
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#inFlight.add(work);
    const forget = () => this.#inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  async #send(to: ChatAddress, reply: OutboundReply, context: unknown): Promise<SendReceipt> {
    let progress = this.#progressOf(to, reply);
    if (progress === undefined) {
      progress = {
        messages: await this.#messagesOf(reply),
        done: 0,
        ids: [],
        decided: false,
        keys: new Map(),
      };
      this.#remember(to, reply, progress);
    }
    if (progress.messages.length === 0) {
      this.#forget(to, reply);
      return { messageIds: [] };
    }
    if (!progress.decided) {
      const { replyToken, receivedAt } = readReplyContext(context);
      let use = this.#slow.claim(replyToken, receivedAt, reply);
      while (use.kind === "wait") {
        const arming = this.#arming.get(use.requestId);
        if (arming === undefined) throw new Error("the slow-response button is still being sent");
        await arming;
        use = this.#slow.claim(replyToken, receivedAt, reply);
      }
      if (use.kind === "hold") {
        // On disk before it counts as delivered: a restart before the tap pushes it.
        await this.#held?.add({
          requestId: use.requestId,
          chat: to,
          reply,
          heldAt: this.#clock.now(),
        });
        progress.decided = true;
        return { messageIds: [], held: true };
      }
      progress.decided = true;
      if (use.kind === "reply") progress.replyToken = replyToken;
    }
    await this.#transmit(to, progress);
    this.#forget(to, reply);
    return { messageIds: [...progress.ids] };
  }

  /** Sends what is left of `progress`, five messages per call. */
  async #transmit(to: ChatAddress, progress: Progress): Promise<void> {
    while (progress.done < progress.messages.length) {
      const start = progress.done;
      const batch = progress.messages.slice(start, start + LINE_MESSAGES_PER_CALL);
      const token = progress.replyToken;
      progress.replyToken = undefined;
      let sent;
      if (token !== undefined) {
        try {
          sent = await this.#api.reply(token, batch);
        } catch (error) {
          if (!invalidReplyToken(error)) throw sendError(error, to);
          this.#log(`line: LINE no longer took the reply token for ${formatAddress(to)}; pushing`);
          continue;
        }
      } else {
        const key = progress.keys.get(start) ?? crypto.randomUUID();
        progress.keys.set(start, key);
        try {
          sent = await this.#api.push(to.chatId, batch, key);
        } catch (error) {
          throw sendError(error, to);
        }
      }
      progress.ids.push(...sent.map((message) => message.id));
      progress.done = start + batch.length;
    }
  }

  /** The reply as LINE message objects; files are checked and published first. */
  async #messagesOf(reply: OutboundReply): Promise<LineMessage[]> {
    const hasMedia = reply.parts.some((part) => part.kind === "media");
    const publicUrl = this.#publicUrl;
    if (hasMedia && publicUrl === undefined) {
      throw new PermanentSendError(
        "LINE_PUBLIC_URL must be set to send files on LINE: LINE fetches them by HTTPS URL " +
          "from this gateway's webhook server. Set LINE_PUBLIC_URL in the profile's .env to " +
          "the HTTPS address that reaches it (e.g. https://bot.example.com)",
      );
    }
    const messages: LineMessage[] = [];
    for (const part of reply.parts) {
      if (part.kind === "text") {
        for (const text of splitText(part.text, LINE_TEXT_MAX)) {
          if (text.trim() !== "") messages.push({ type: "text", text });
        }
      } else {
        messages.push(await mediaMessage(this.#media, part.media, publicUrl!));
      }
    }
    return messages;
  }

  #progressOf(to: ChatAddress, reply: OutboundReply): Progress | undefined {
    return this.#progress.get(reply)?.get(formatAddress(to));
  }

  #remember(to: ChatAddress, reply: OutboundReply, progress: Progress): void {
    const byChat = this.#progress.get(reply) ?? new Map<string, Progress>();
    byChat.set(formatAddress(to), progress);
    this.#progress.set(reply, byChat);
  }

  #forget(to: ChatAddress, reply: OutboundReply): void {
    this.#progress.get(reply)?.delete(formatAddress(to));
  }
}

/** A 400 about the reply token (expired or used): the batch can still be pushed. */
function invalidReplyToken(error: unknown): boolean {
  return error instanceof LineApiError && error.status === 400 &&
    /reply token/i.test(error.description ?? "");
}

/** 4xx other than 429 cannot be fixed by retrying; 429, 5xx and no answer can. */
function sendError(error: unknown, to: ChatAddress): unknown {
  if (
    error instanceof LineApiError && error.failure === "api" && error.status >= 400 &&
    error.status < 500 && error.status !== 429
  ) {
    return new PermanentSendError(
      `LINE will not deliver to ${formatAddress(to)}: ${error.description ?? error.message}`,
      error.status,
    );
  }
  return error;
}

/** At most `max` characters (code points), with an ellipsis when cut. */
function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
