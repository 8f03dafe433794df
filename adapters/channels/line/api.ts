/**
 * A small LINE Messaging API client: reply, push (with `X-Line-Retry-Key`,
 * a 409 for an already accepted key counting as sent), the loading
 * animation, bot info, and message content from the data API host. The
 * channel access token travels only in the `Authorization` header; no
 * message this module produces contains it. Every call has a timeout on
 * the channel's clock and says which call it gave up on.
 *
 * @module
 */

import type { ChannelClock } from "../../../core/channels/contract.ts";

/** A message object as LINE takes it (`{ type: "text", text }`, ...). */
export type LineMessage = Record<string, unknown>;

/** One message LINE accepted (`sentMessages[]`). */
export interface LineSentMessage {
  id: string;
  quoteToken?: string;
}

/** What `GET /v2/bot/info` answers. */
export interface LineBotInfo {
  userId: string;
  basicId: string;
  premiumId?: string;
  displayName: string;
  pictureUrl?: string;
  chatMode?: string;
  markAsReadMode?: string;
}

/** LINE's error body (`ErrorResponse`). */
export interface LineErrorBody {
  message?: string;
  details?: { message?: string; property?: string }[];
  sentMessages?: LineSentMessage[];
}

/** How a call failed: no usable answer, none in time, or an error status. */
export type LineFailure = "network" | "timeout" | "api";

/**
 * A failed call. `status` is the HTTP status (0 when there was no answer);
 * `description` is LINE's `message` with its details.
 */
export class LineApiError extends Error {
  /** Creates the error; `message` never holds the token. */
  constructor(
    message: string,
    readonly endpoint: string,
    readonly failure: LineFailure,
    readonly status: number,
    readonly description?: string,
  ) {
    super(message);
    this.name = "LineApiError";
  }
}

/** What a client is built from. */
export interface LineApiOptions {
  token: string;
  /** `https://api.line.me` (no trailing slash). */
  apiBase: string;
  /** `https://api-data.line.me` (no trailing slash). */
  dataApiBase: string;
  fetch: typeof fetch;
  clock: ChannelClock;
}

/** Gives up on a send after this long. */
export const SEND_TIMEOUT_MS = 30_000;
const PROBE_TIMEOUT_MS = 15_000;
const CONTENT_TIMEOUT_MS = 120_000;

/** A Messaging API client for one channel access token. */
export class LineApi {
  readonly #token: string;
  readonly #apiBase: string;
  readonly #dataApiBase: string;
  readonly #fetch: typeof fetch;
  readonly #clock: ChannelClock;

  /** Creates a client; nothing is sent until a call. */
  constructor(options: LineApiOptions) {
    this.#token = options.token;
    this.#apiBase = options.apiBase;
    this.#dataApiBase = options.dataApiBase;
    this.#fetch = options.fetch;
    this.#clock = options.clock;
  }

  /** `POST /v2/bot/message/reply`: 1 to 5 messages with a reply token. */
  async reply(replyToken: string, messages: LineMessage[]): Promise<LineSentMessage[]> {
    const answer = await this.#json<{ sentMessages?: LineSentMessage[] }>(
      "reply",
      "POST",
      "/v2/bot/message/reply",
      { replyToken, messages },
    );
    return answer.sentMessages ?? [];
  }

  /**
   * `POST /v2/bot/message/push` with `retryKey` as `X-Line-Retry-Key`: the
   * same key sent again is accepted once, so a retried push is not sent
   * twice. A 409 (the key was already accepted) counts as sent.
   */
  async push(to: string, messages: LineMessage[], retryKey: string): Promise<LineSentMessage[]> {
    try {
      const answer = await this.#json<{ sentMessages?: LineSentMessage[] }>(
        "push",
        "POST",
        "/v2/bot/message/push",
        { to, messages },
        { "x-line-retry-key": retryKey },
      );
      return answer.sentMessages ?? [];
    } catch (error) {
      if (error instanceof AcceptedBefore) return error.sentMessages;
      throw error;
    }
  }

  /** `POST /v2/bot/chat/loading/start`: the loading animation in a one-to-one chat. */
  async startLoading(chatId: string, loadingSeconds: number): Promise<void> {
    await this.#json("loading animation", "POST", "/v2/bot/chat/loading/start", {
      chatId,
      loadingSeconds,
    });
  }

  /** `GET /v2/bot/info`: who the bot is. */
  async botInfo(): Promise<LineBotInfo> {
    return await this.#json<LineBotInfo>("bot info", "GET", "/v2/bot/info", undefined, {}, {
      timeoutMs: PROBE_TIMEOUT_MS,
    });
  }

  /** `GET <data API>/v2/bot/message/{id}/content`: the bytes of a message's file. */
  async content(messageId: string): Promise<{ bytes: Uint8Array; contentType?: string }> {
    const what = "the content download";
    const url = `${this.#dataApiBase}/v2/bot/message/${encodeURIComponent(messageId)}/content`;
    return await this.#withTimeout(what, CONTENT_TIMEOUT_MS, async (signal) => {
      const response = await this.#fetch(url, { headers: this.#headers(), signal });
      if (response.status !== 200) {
        const body = await readError(response);
        throw apiError(what, response.status, body);
      }
      const contentType = response.headers.get("content-type") ?? undefined;
      const bytes = new Uint8Array(await response.arrayBuffer());
      return contentType === undefined ? { bytes } : { bytes, contentType };
    });
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.#token}`, ...extra };
  }

  async #json<T>(
    what: string,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    options: { timeoutMs: number } = { timeoutMs: SEND_TIMEOUT_MS },
  ): Promise<T> {
    return await this.#withTimeout(what, options.timeoutMs, async (signal) => {
      const init: RequestInit = {
        method,
        signal,
        headers: this.#headers(
          body === undefined ? headers : { "content-type": "application/json", ...headers },
        ),
      };
      if (body !== undefined) init.body = JSON.stringify(body);
      const response = await this.#fetch(`${this.#apiBase}${path}`, init);
      if (response.status === 409 && headers["x-line-retry-key"] !== undefined) {
        const error = await readError(response);
        throw new AcceptedBefore(error.sentMessages ?? []);
      }
      if (!response.ok) throw apiError(what, response.status, await readError(response));
      const text = await response.text();
      if (text.trim() === "") return {} as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new LineApiError(
          `LINE answered the ${what} with ${response.status} and a body that is not JSON`,
          what,
          "network",
          response.status,
        );
      }
    });
  }

  /** Runs `work` with a signal that aborts after `timeoutMs` on the channel's clock. */
  async #withTimeout<T>(
    what: string,
    timeoutMs: number,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const timer = new AbortController();
    const handle = this.#clock.setTimeout(() => timer.abort(), timeoutMs);
    try {
      return await work(timer.signal);
    } catch (error) {
      if (error instanceof LineApiError || error instanceof AcceptedBefore) throw error;
      if (timer.signal.aborted) {
        throw new LineApiError(
          `LINE did not answer the ${what} within ${timeoutMs / 1000} s`,
          what,
          "timeout",
          0,
        );
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new LineApiError(
        `Could not reach LINE for the ${what}: ${reason.split(this.#token).join("<token>")}`,
        what,
        "network",
        0,
      );
    } finally {
      this.#clock.clearTimeout(handle);
    }
  }
}

/** A push whose retry key LINE had already accepted (409): sent. */
class AcceptedBefore extends Error {
  constructor(readonly sentMessages: LineSentMessage[]) {
    super("the retry key was already accepted");
  }
}

async function readError(response: Response): Promise<LineErrorBody> {
  try {
    const body = await response.json();
    return typeof body === "object" && body !== null ? body as LineErrorBody : {};
  } catch {
    return {};
  }
}

function apiError(what: string, status: number, body: LineErrorBody): LineApiError {
  const details = (body.details ?? [])
    .map((detail) => [detail.property, detail.message].filter(Boolean).join(": "))
    .filter((text) => text !== "");
  const description = [body.message ?? `HTTP ${status}`, ...details].join("; ");
  return new LineApiError(
    `LINE refused the ${what} (${status}): ${description}`,
    what,
    "api",
    status,
    description,
  );
}
