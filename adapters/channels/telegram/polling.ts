/**
 * Inbound Telegram by long polling: one `getUpdates` at a time, each
 * confirming the updates before it (`offset` = last `update_id` + 1), every
 * message handed to the runner in order. A failure is retried with a
 * bounded exponential backoff (Telegram's `retry_after` honoured on 429)
 * and shown as `retrying`; a refused token ends polling as `refused`.
 *
 * @module
 */

import type { ChannelClock, ChannelHost } from "../../../core/channels/contract.ts";
import {
  type TelegramApi,
  TelegramApiError,
  type TelegramUpdate,
  type TelegramUser,
} from "./api.ts";
import { inboundFromUpdate } from "./inbound.ts";

/** The long-poll `timeout` Herald asks for, in seconds (Telegram allows up to 50). */
export const DEFAULT_POLL_TIMEOUT_SECONDS = 30;
/** How much longer than the long-poll timeout a `getUpdates` request may take. */
const POLL_GRACE_MS = 10_000;
/** How long the last confirmation may take when polling stops. */
const CONFIRM_TIMEOUT_MS = 5_000;

/** The backoff between failed polls: `baseMs`, doubled per failure, at most `maxMs`. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

/** The default backoff: 1 s, 2 s, 4 s, ... at most a minute. */
export const DEFAULT_BACKOFF: Backoff = { baseMs: 1_000, maxMs: 60_000 };

/** What the poller runs with. */
export interface PollerOptions {
  api: TelegramApi;
  host: ChannelHost;
  clock: ChannelClock;
  /** The platform id the addresses carry. */
  platform: string;
  /** Ends polling (the gateway or the channel stopping). */
  signal: AbortSignal;
  /** The long-poll timeout in seconds, 1 to 50. */
  pollTimeoutSeconds: number;
  backoff: Backoff;
  /** Jitter for the backoff, a number in [0, 1); none when absent. */
  random?: () => number;
}

/** The delay before retry number `attempt` (1-based): doubled each time, jittered, bounded. */
export function backoffDelay(attempt: number, backoff: Backoff, random?: () => number): number {
  const plain = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  if (random === undefined) return plain;
  return Math.min(backoff.maxMs, Math.round(plain * (0.75 + random() * 0.5)));
}

/** Polls until `signal` aborts or the token is refused; never rejects. */
export async function pollUpdates(options: PollerOptions): Promise<void> {
  const { api, host, signal } = options;
  let offset: number | undefined;
  let confirmed: number | undefined;
  let connected = false;
  let failures = 0;
  let botUsername: string | undefined;
  // A short poll first (and after each failure) reports "connected" without a long wait.
  let quick = true;
  while (!signal.aborted) {
    const timeout = quick ? 0 : options.pollTimeoutSeconds;
    let updates: TelegramUpdate[];
    try {
      // getMe first: it checks the token at once and names the bot for `/command@bot`.
      botUsername ??= (await api.call<TelegramUser>("getMe", {}, {
        signal,
        timeoutMs: POLL_GRACE_MS,
      })).username ?? "";
      // Telegram takes the offset as confirmation as soon as the request reaches it.
      confirmed = offset;
      updates = await api.call<TelegramUpdate[]>(
        "getUpdates",
        {
          ...(offset === undefined ? {} : { offset }),
          timeout,
          allowed_updates: ["message"],
        },
        { signal, timeoutMs: timeout * 1000 + POLL_GRACE_MS },
      );
    } catch (error) {
      if (signal.aborted) break;
      const verdict = judge(error);
      if (verdict.refused) {
        host.setState("refused", verdict.reason);
        host.log(`telegram: ${verdict.reason}`);
        return;
      }
      failures += 1;
      connected = false;
      quick = true;
      const delay = verdict.retryAfterMs ??
        backoffDelay(failures, options.backoff, options.random);
      host.setState("retrying", verdict.reason);
      host.log(`telegram: ${verdict.reason}; retrying in ${Math.ceil(delay / 1000)} s`);
      await sleep(options.clock, delay, signal);
      continue;
    }
    failures = 0;
    quick = false;
    if (!connected) {
      connected = true;
      host.setState("connected");
    }
    for (const update of Array.isArray(updates) ? updates : []) {
      if (signal.aborted) break;
      offset = Math.max(offset ?? 0, update.update_id + 1);
      const message = inboundFromUpdate(update, { api, platform: options.platform, botUsername });
      if (message === undefined) continue;
      try {
        await options.host.receive(message);
      } catch (error) {
        host.log(`telegram: the gateway did not take message ${message.messageId}: ${text(error)}`);
      }
    }
  }
  if (offset !== undefined && offset !== confirmed) await confirm(api, offset);
}

/** Tells Telegram the updates handed over are done, so a restart does not get them again. */
async function confirm(api: TelegramApi, offset: number): Promise<void> {
  try {
    await api.call("getUpdates", { offset, timeout: 0, limit: 1, allowed_updates: ["message"] }, {
      timeoutMs: CONFIRM_TIMEOUT_MS,
    });
  } catch {
    // Telegram sends them again at the next start; the runner already has them.
  }
}

interface Verdict {
  refused: boolean;
  reason: string;
  retryAfterMs?: number;
}

function judge(error: unknown): Verdict {
  if (!(error instanceof TelegramApiError)) return { refused: false, reason: text(error) };
  if (error.failure === "api" && (error.status === 401 || error.status === 404)) {
    const said = error.description === undefined ? "" : ` ${error.description}`;
    return {
      refused: true,
      reason: `the bot token was refused by Telegram (${error.status}${said}): ` +
        "check TELEGRAM_BOT_TOKEN in the profile's .env (@BotFather shows it with /token) " +
        "and restart the gateway",
    };
  }
  if (error.failure === "api" && error.status === 409) {
    const reason = /webhook/i.test(error.description ?? "")
      ? "a webhook is set for this bot, so Telegram hands out no updates by polling: delete it (Bot API deleteWebhook) or stop the service that set it"
      : "another program is polling this bot's updates (a second gateway or another bot using the same token): stop it";
    return { refused: false, reason };
  }
  if (error.status === 429) {
    const wait = error.retryAfterMs;
    return {
      refused: false,
      reason: "Telegram asked to slow down (429 Too Many Requests)",
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    };
  }
  return { refused: false, reason: error.message };
}

function sleep(clock: ChannelClock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clock.clearTimeout(handle);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const handle = clock.setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
