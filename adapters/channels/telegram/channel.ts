/**
 * The Telegram channel: a bot token from the profile's `.env`, inbound by
 * long polling, outbound through the Bot API, `getMe` as the status probe.
 * The API's base URL comes from `TELEGRAM_API_BASE` (default
 * https://api.telegram.org), which is how tests point it at a fake.
 *
 * @module
 */

import { sha256Hex } from "../../../core/_util/hash.ts";
import type {
  Channel,
  ChannelContext,
  ChannelHost,
  ProbeResult,
} from "../../../core/channels/contract.ts";
import { HeraldError } from "../../../core/errors.ts";
import {
  DEFAULT_TELEGRAM_API_BASE,
  TelegramApi,
  TelegramApiError,
  type TelegramUser,
} from "./api.ts";
import { TelegramOutbound } from "./outbound.ts";
import {
  type Backoff,
  DEFAULT_BACKOFF,
  DEFAULT_POLL_TIMEOUT_SECONDS,
  pollUpdates,
} from "./polling.ts";

/** The platform id. */
export const TELEGRAM_ID = "telegram";
const TOKEN_ENV = "TELEGRAM_BOT_TOKEN";
const BASE_ENV = "TELEGRAM_API_BASE";
const PROBE_TIMEOUT_MS = 15_000;
/** How long `stop` waits for replies still being sent. */
const STOP_WAIT_MS = 10_000;

/** Tuning a test or a bench may change; the plugin uses the defaults. */
export interface TelegramChannelOptions {
  /** The long-poll timeout in seconds (1 to 50); 30 by default. */
  pollTimeoutSeconds?: number;
  /** The backoff between failed polls; 1 s doubling to a minute by default. */
  backoff?: Backoff;
  /** Jitter for the backoff, a number in [0, 1); `Math.random` by default, `null` for none. */
  random?: (() => number) | null;
}

/**
 * Creates the Telegram channel of a profile.
 *
 * @throws HeraldError `platform_not_configured` when `TELEGRAM_BOT_TOKEN` is missing or malformed,
 *   or `TELEGRAM_API_BASE` is not an http(s) URL.
 */
export async function createTelegramChannel(
  context: ChannelContext,
  options: TelegramChannelOptions = {},
): Promise<Channel> {
  const { token, base } = readSettings(context);
  return new TelegramChannel(context, token, base, await sha256Hex(token), options);
}

function readSettings(context: ChannelContext): { token: string; base: string } {
  const token = context.env(TOKEN_ENV)?.trim() ?? "";
  if (token === "") {
    throw notConfigured(
      `Telegram is enabled but ${TOKEN_ENV} is not set: add the token @BotFather gave you to the ` +
        `profile's .env as ${TOKEN_ENV}=..., or disable platforms.telegram`,
    );
  }
  if (/[\s/?#%]/.test(token)) {
    throw notConfigured(
      `${TOKEN_ENV} does not look like a bot token (from @BotFather: digits, a colon, then about ` +
        "35 letters, digits, _ or -); fix it in the profile's .env",
    );
  }
  const base = (context.env(BASE_ENV)?.trim() || DEFAULT_TELEGRAM_API_BASE).replace(/\/+$/, "");
  let url: URL | undefined;
  try {
    url = new URL(base);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw notConfigured(`${BASE_ENV} "${base}" is not an http(s) URL; fix it or remove it`);
  }
  return { token, base };
}

function notConfigured(message: string): HeraldError {
  return new HeraldError("platform_not_configured", "state", message, {
    details: { platform: TELEGRAM_ID },
  });
}

class TelegramChannel implements Channel {
  readonly id = TELEGRAM_ID;
  readonly label = "Telegram";
  readonly credentialKey: string;
  readonly outbound: TelegramOutbound;
  readonly #context: ChannelContext;
  readonly #token: string;
  readonly #base: string;
  readonly #api: TelegramApi;
  readonly #options: TelegramChannelOptions;
  #stopper: AbortController | undefined;
  #polling: Promise<void> | undefined;

  constructor(
    context: ChannelContext,
    token: string,
    base: string,
    credentialKey: string,
    options: TelegramChannelOptions,
  ) {
    this.#context = context;
    this.#token = token;
    this.#base = base;
    this.#options = options;
    this.credentialKey = credentialKey;
    this.#api = new TelegramApi({ token, base, fetch: context.fetch, clock: context.clock });
    this.outbound = new TelegramOutbound({ api: this.#api, log: (line) => context.log(line) });
  }

  start(host: ChannelHost): Promise<void> {
    if (this.#polling !== undefined) return Promise.resolve();
    const stopper = new AbortController();
    this.#stopper = stopper;
    host.setState("starting");
    const random = this.#options.random === undefined ? Math.random : this.#options.random;
    const pollTimeout = this.#options.pollTimeoutSeconds ?? DEFAULT_POLL_TIMEOUT_SECONDS;
    this.#polling = pollUpdates({
      api: this.#api,
      host,
      clock: this.#context.clock,
      platform: TELEGRAM_ID,
      signal: AbortSignal.any([host.signal, stopper.signal]),
      pollTimeoutSeconds: Math.min(50, Math.max(1, Math.round(pollTimeout))),
      backoff: this.#options.backoff ?? DEFAULT_BACKOFF,
      ...(random === null ? {} : { random }),
    });
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.#stopper?.abort();
    await this.#polling;
    this.#polling = undefined;
    const clock = this.#context.clock;
    let handle: unknown;
    const bound = new Promise<void>((resolve) => {
      handle = clock.setTimeout(resolve, STOP_WAIT_MS);
    });
    await Promise.race([this.outbound.idle(), bound]);
    clock.clearTimeout(handle);
  }

  async probe(): Promise<ProbeResult> {
    try {
      const me = await this.#api.call<TelegramUser>("getMe", {}, { timeoutMs: PROBE_TIMEOUT_MS });
      return { ok: true, identity: me.username ? `@${me.username}` : me.first_name };
    } catch (error) {
      if (error instanceof TelegramApiError && (error.status === 401 || error.status === 404)) {
        return {
          ok: false,
          error: `Telegram refused the bot token (${error.status}): check ${TOKEN_ENV} in the ` +
            "profile's .env (@BotFather shows it with /token)",
        };
      }
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: this.#api.redact(message) };
    }
  }

  reload(context: ChannelContext): Promise<boolean> {
    try {
      const next = readSettings(context);
      return Promise.resolve(next.token === this.#token && next.base === this.#base);
    } catch {
      return Promise.resolve(false);
    }
  }
}
