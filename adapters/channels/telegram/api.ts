/**
 * A small Telegram Bot API client: `POST <base>/bot<token>/<method>` with a
 * JSON or multipart body, the `{ ok, result }` envelope unwrapped, and file
 * downloads from `<base>/file/bot<token>/<file_path>`. Every request has a
 * timeout on the channel's clock. The token is part of every URL, so every
 * message this module produces goes through {@link TelegramApi.redact}:
 * no error, log line or thrown value ever carries it.
 *
 * @module
 */

import type { ChannelClock } from "../../../core/channels/contract.ts";

/** Where the real Bot API lives; `TELEGRAM_API_BASE` overrides it (tests point it at a fake). */
export const DEFAULT_TELEGRAM_API_BASE = "https://api.telegram.org";

/** A Telegram user or bot (`User`). */
export interface TelegramUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

/** A chat (`Chat`). */
export interface TelegramChat {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
  username?: string;
  first_name?: string;
  is_forum?: boolean;
}

/** The fields every downloadable file shares (`PhotoSize`, `Document`, `Audio`, ...). */
export interface TelegramFileRef {
  file_id: string;
  file_unique_id: string;
  file_size?: number;
  file_name?: string;
  mime_type?: string;
}

/** One size of a photo (`PhotoSize`). */
export interface TelegramPhotoSize extends TelegramFileRef {
  width: number;
  height: number;
}

/** A message (`Message`), with the fields Herald reads. */
export interface TelegramMessage {
  message_id: number;
  message_thread_id?: number;
  is_topic_message?: boolean;
  from?: TelegramUser;
  date: number;
  chat: TelegramChat;
  text?: string;
  caption?: string;
  photo?: TelegramPhotoSize[];
  document?: TelegramFileRef;
  audio?: TelegramFileRef;
  voice?: TelegramFileRef;
  video?: TelegramFileRef;
  sticker?: TelegramFileRef;
}

/** An incoming update (`Update`); Herald asks only for `message`. */
export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
  channel_post?: TelegramMessage;
}

/** What `getFile` answers (`File`). */
export interface TelegramFile {
  file_id: string;
  file_unique_id: string;
  file_size?: number;
  file_path?: string;
}

/** How a call failed: no usable answer (`network`), none in time (`timeout`), or an API error (`api`). */
export type TelegramFailure = "network" | "timeout" | "api";

/**
 * A failed Bot API call. The message never contains the token. `status`
 * is the HTTP status (0 when there was no answer); `retryAfterMs` is set
 * from `parameters.retry_after` on 429 so a caller can wait that long.
 */
export class TelegramApiError extends Error {
  /** Creates the error; `message` must already be redacted. */
  constructor(
    message: string,
    readonly method: string,
    readonly failure: TelegramFailure,
    readonly status: number,
    readonly description?: string,
    readonly retryAfterMs?: number,
    readonly migrateToChatId?: number,
  ) {
    super(message);
    this.name = "TelegramApiError";
  }
}

/** A file to upload in a multipart call. */
export interface TelegramUpload {
  /** The form field (`photo`, `document`, `audio`, `video`). */
  field: string;
  name: string;
  bytes: Uint8Array;
}

/** Options of one call. */
export interface TelegramCallOptions {
  /** Aborts the call (the gateway stopping). */
  signal?: AbortSignal;
  /** Gives up after this long; the error says which call and how long. */
  timeoutMs: number;
}

/** What a client is built from. */
export interface TelegramApiOptions {
  token: string;
  /** The API's base URL without a trailing slash. */
  base: string;
  fetch: typeof fetch;
  clock: ChannelClock;
}

type Params = Record<string, unknown>;

interface Envelope {
  ok?: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** A Bot API client for one bot token. */
export class TelegramApi {
  readonly #token: string;
  readonly #base: string;
  readonly #fetch: typeof fetch;
  readonly #clock: ChannelClock;

  /** Creates a client; nothing is sent until a call. */
  constructor(options: TelegramApiOptions) {
    this.#token = options.token;
    this.#base = options.base.replace(/\/+$/, "");
    this.#fetch = options.fetch;
    this.#clock = options.clock;
  }

  /** Replaces every occurrence of the token (plain or URL-encoded) in `text`. */
  redact(text: string): string {
    let out = text;
    for (const form of new Set([this.#token, encodeURIComponent(this.#token)])) {
      if (form !== "") out = out.split(form).join("<token>");
    }
    return out;
  }

  /** Calls `method` with a JSON body and returns its `result`. */
  call<T>(method: string, params: Params, options: TelegramCallOptions): Promise<T> {
    const body = JSON.stringify(params);
    return this.#request<T>(method, options, () => ({
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    }));
  }

  /** Calls `method` with a multipart body: the fields as text, then the file. */
  upload<T>(
    method: string,
    params: Params,
    file: TelegramUpload,
    options: TelegramCallOptions,
  ): Promise<T> {
    return this.#request<T>(method, options, () => {
      const form = new FormData();
      for (const [key, value] of Object.entries(params)) {
        if (value !== undefined) form.set(key, typeof value === "string" ? value : String(value));
      }
      form.set(file.field, new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.name);
      return { method: "POST", body: form };
    });
  }

  /** Downloads a file `getFile` gave the path of. */
  async download(filePath: string, options: TelegramCallOptions): Promise<Uint8Array> {
    const what = "the file download";
    return await this.#withTimeout(what, options, async (signal) => {
      const url = `${this.#base}/file/bot${this.#token}/${filePath}`;
      const response = await this.#fetch(url, { signal });
      if (!response.ok) {
        await response.body?.cancel();
        throw new TelegramApiError(
          `Telegram answered ${response.status} to ${what}`,
          "download",
          "api",
          response.status,
        );
      }
      return new Uint8Array(await response.arrayBuffer());
    });
  }

  async #request<T>(
    method: string,
    options: TelegramCallOptions,
    init: () => RequestInit,
  ): Promise<T> {
    return await this.#withTimeout(method, options, async (signal) => {
      const url = `${this.#base}/bot${this.#token}/${method}`;
      const response = await this.#fetch(url, { ...init(), signal });
      let envelope: Envelope | undefined;
      try {
        envelope = await response.json() as Envelope;
      } catch (error) {
        if (signal.aborted) throw error;
        envelope = undefined;
      }
      if (envelope === undefined || typeof envelope !== "object" || envelope === null) {
        const failure = response.ok ? "network" : "api";
        throw new TelegramApiError(
          `Telegram answered ${method} with ${response.status} and no API response`,
          method,
          failure,
          response.status,
        );
      }
      if (envelope.ok === true) return envelope.result as T;
      const status = envelope.error_code ?? response.status;
      const description = this.redact(String(envelope.description ?? `HTTP ${response.status}`));
      const retryAfter = envelope.parameters?.retry_after;
      throw new TelegramApiError(
        `Telegram refused ${method} (${status}): ${description}`,
        method,
        "api",
        status,
        description,
        typeof retryAfter === "number" ? retryAfter * 1000 : undefined,
        envelope.parameters?.migrate_to_chat_id,
      );
    });
  }

  /** Runs `work` with a signal that aborts on the caller's signal or after the timeout. */
  async #withTimeout<T>(
    what: string,
    options: TelegramCallOptions,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const timer = new AbortController();
    const handle = this.#clock.setTimeout(() => timer.abort(), options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal;
    try {
      return await work(signal);
    } catch (error) {
      if (error instanceof TelegramApiError) throw error;
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (timer.signal.aborted) {
        throw new TelegramApiError(
          `Telegram did not answer ${what} within ${seconds(options.timeoutMs)}`,
          what,
          "timeout",
          0,
        );
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new TelegramApiError(
        `Could not reach Telegram for ${what}: ${this.redact(reason)}`,
        what,
        "network",
        0,
      );
    } finally {
      this.#clock.clearTimeout(handle);
    }
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
