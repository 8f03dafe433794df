/**
 * Sending one message to a chat platform without the model and without the
 * gateway: `herald send` and the agent's `send_message` tool both call
 * {@link sendMessage}; `herald send --list` calls {@link listTargets}. The
 * platform is reached through the profile's {@link MessagingLinks}.
 *
 * A target is `platform` (the platform's home channel), or
 * `platform:chat_id[:thread_id]`. A chat id may be a negative number (a
 * Telegram group) or a LINE `U…`/`C…`/`R…` id. The home channel is
 * `platforms.<id>.home_channel` in config.yaml, else `<ID>_HOME_CHANNEL` in
 * the profile's `.env` or the environment.
 *
 * @module
 */

import { isRecord } from "../_util/json.ts";
import { HeraldError } from "../errors.ts";
import {
  checkPlatformSecrets,
  type PlatformCheck,
  platformEnabled,
  platformEnvPrefix,
  platformInfo,
} from "../messaging/mod.ts";
import { loadExpandedConfig } from "./config.ts";
import type { Credentials, MessageTarget, ProfileContext } from "./ports.ts";

/** A target as typed: the platform, and the chat when one is named. */
export interface SendTarget {
  platform: string;
  /** Absent: the platform's home channel. */
  chatId?: string;
  threadId?: string;
}

/** What was delivered (`herald send --json` prints it). */
export interface SendResult {
  platform: string;
  chat_id: string;
  thread_id?: string;
  /** The platform's ids of the messages it accepted (a long text may be several). */
  message_ids: string[];
}

/** Options of {@link sendMessage}. */
export interface SendOptions {
  /** Waits `ms` between attempts (a real timer by default; tests pass a fake). */
  sleep?(ms: number): Promise<void>;
  /** Attempts in all for a passing failure; {@link SEND_ATTEMPTS} by default. */
  attempts?: number;
  /** Stops retrying once aborted (the agent's turn was stopped). */
  signal?: AbortSignal;
  /** Refuse files (`MEDIA:<path>`) protected like the file tools' writes (what the agent sends). */
  protectFiles?: boolean;
  /**
   * Send only to a home channel or a chat that has talked to the gateway
   * (what the agent sends: a prompt-injected model must not reach strangers).
   */
  knownTargetsOnly?: boolean;
}

/** Attempts in all when the platform fails in passing (a timeout, a 5xx, a 429). */
export const SEND_ATTEMPTS = 4;
/** The waits before the second, third and fourth attempts (ms). */
export const SEND_BACKOFF_MS: readonly number[] = [500, 1_000, 2_000];
/** A platform asking to wait longer than this (a 429's `retry_after`) is not waited for. */
export const MAX_RETRY_AFTER_MS = 10_000;

const PLATFORM_ID = /^[a-z][a-z0-9_-]*$/;
const ID_PART = /^[^\s:]+$/;

/** The target text, quoted for a message. */
function quoted(text: string): string {
  return JSON.stringify(text);
}

function badTarget(text: string, why: string): HeraldError {
  return new HeraldError(
    "send_target_invalid",
    "usage",
    `Target ${quoted(text)} ${why}; write <platform> for its home channel or ` +
      "<platform>:<chat_id>[:<thread_id>], for example telegram:-1001234567890 or line:U4af4980629...",
    { details: { target: text } },
  );
}

/**
 * Reads a target: `telegram`, `telegram:-1001234567890`,
 * `telegram:-1001234567890:42`, `line:U4af4980629...`.
 *
 * @example
 * ```ts
 * parseSendTarget("telegram:-100123:7"); // { platform: "telegram", chatId: "-100123", threadId: "7" }
 * parseSendTarget("line"); // { platform: "line" }
 * ```
 *
 * @throws HeraldError `send_target_invalid` (kind `usage`) for anything else.
 */
export function parseSendTarget(text: string): SendTarget {
  const trimmed = text.trim();
  if (trimmed === "") throw badTarget(text, "is empty");
  const [rawPlatform, chatId, threadId, ...more] = trimmed.split(":");
  const platform = rawPlatform.toLowerCase();
  if (!PLATFORM_ID.test(platform)) {
    throw badTarget(text, `does not start with a platform name (such as telegram or line)`);
  }
  if (more.length > 0) throw badTarget(text, "has more than three parts");
  if (chatId === undefined) return { platform };
  if (!ID_PART.test(chatId)) throw badTarget(text, "has an empty chat id or one with spaces");
  if (threadId === undefined) return { platform, chatId };
  if (!ID_PART.test(threadId)) throw badTarget(text, "has an empty thread id or one with spaces");
  return { platform, chatId, threadId };
}

/** A profile's messaging settings as `herald send` reads them. */
interface SendSettings {
  credentials: Credentials;
  /** `platforms.<id>` of config.yaml as written (`${VAR}` expanded), `{}` when absent. */
  settings(platform: string): Record<string, unknown>;
}

async function readSendSettings(profile: ProfileContext): Promise<SendSettings> {
  const { raw, credentials } = await loadExpandedConfig(profile);
  const platforms = isRecord(raw.platforms) ? raw.platforms : {};
  return {
    credentials,
    settings: (platform) => {
      const value = platforms[platform];
      return isRecord(value) ? value : {};
    },
  };
}

/**
 * The home channel of `platform` as a chat and maybe a thread, or
 * undefined: `platforms.<id>.home_channel` (a string, or a number as YAML
 * reads an unquoted Telegram id), else `<ID>_HOME_CHANNEL`. Either may be
 * `chat_id[:thread_id]` or a whole target naming the same platform.
 */
function homeChannel(platform: string, from: SendSettings): SendTarget | undefined {
  const configured = from.settings(platform).home_channel;
  const variable = `${platformEnvPrefix(platform)}_HOME_CHANNEL`;
  const [text, source] = typeof configured === "number" && Number.isFinite(configured)
    ? [String(configured), `platforms.${platform}.home_channel`]
    : typeof configured === "string" && configured.trim() !== ""
    ? [configured.trim(), `platforms.${platform}.home_channel`]
    : [from.credentials.lookup(variable)?.trim(), variable];
  if (text === undefined || text === "") return undefined;
  const whole = text.toLowerCase().startsWith(`${platform}:`) ? text : `${platform}:${text}`;
  let target: SendTarget | undefined;
  try {
    target = parseSendTarget(whole);
  } catch {
    target = undefined;
  }
  if (target?.platform === platform && target.chatId !== undefined) return target;
  throw new HeraldError(
    "send_home_channel_invalid",
    "usage",
    `The home channel of ${platform} (${source}) is ${quoted(text)}, which is not ` +
      `<chat_id>[:<thread_id>]; fix it, or name the chat: -t ${platform}:<chat_id>`,
    { details: { platform, source } },
  );
}

function noHomeChannel(profile: ProfileContext, platform: string): HeraldError {
  const variable = `${platformEnvPrefix(platform)}_HOME_CHANNEL`;
  return new HeraldError(
    "send_no_home_channel",
    "usage",
    `${platform} has no home channel: looked for platforms.${platform}.home_channel in ` +
      `${profile.files.configPath} and ${variable} in ${profile.files.envPath} and the ` +
      `environment. Name the chat (-t ${platform}:<chat_id>) or set one with ` +
      `\`herald config set platforms.${platform}.home_channel <chat_id>\``,
    { details: { platform, variable } },
  );
}

function unknownPlatform(platform: string, known: readonly string[]): HeraldError {
  return new HeraldError(
    "platform_unknown",
    "not_found",
    `No messaging platform ${quoted(platform)} (known: ${known.join(", ")})`,
    { details: { id: platform } },
  );
}

/**
 * Refuses a platform whose required secrets are missing, naming each one
 * and where it was looked for (before any channel is made).
 */
function requireSecrets(profile: ProfileContext, platform: string, from: SendSettings): void {
  const info = platformInfo(platform);
  if (!info) return;
  const check = checkPlatformSecrets(info, from.credentials.lookup);
  if (check.ok || check.missing.length === 0) return;
  const [first, ...others] = check.missing;
  const names = check.missing.join(" and ");
  const verb = others.length > 0 ? "are" : "is";
  throw new HeraldError(
    "platform_not_configured",
    "usage",
    `${info.label} is not configured: ${names} ${verb} not set (looked in ` +
      `${profile.files.envPath} and the environment). Add ${others.length > 0 ? "them" : "it"} ` +
      `with \`herald config set ${first} <value>\``,
    { details: { platform, variable: first } },
  );
}

/** A configuration the platform's channel refused (a malformed token): the caller fixes it. */
function asUsage(profile: ProfileContext, error: unknown): unknown {
  if (!(error instanceof HeraldError) || error.code !== "platform_not_configured") return error;
  if (error.kind === "usage") return error;
  return new HeraldError(
    error.code,
    "usage",
    `${error.message} (looked in ${profile.files.envPath} and the environment)`,
    { details: error.details, cause: error },
  );
}

function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Decides after a failed attempt whether to try again, and waits first:
 * only a passing failure (`retryable`), at most `attempts` in all, not once
 * `signal` aborted, not for a platform asking to wait over
 * {@link MAX_RETRY_AFTER_MS}.
 */
function retryPolicy(
  options: SendOptions,
): (failure: HeraldError, made: number) => Promise<boolean> {
  const attempts = options.attempts ?? SEND_ATTEMPTS;
  const sleep = options.sleep ?? realSleep;
  return async (failure, made) => {
    if (failure.details.retryable !== true || made >= attempts) return false;
    if (options.signal?.aborted) return false;
    const after = failure.details.retry_after_ms;
    if (typeof after === "number" && after > MAX_RETRY_AFTER_MS) return false;
    const backoff = SEND_BACKOFF_MS[Math.min(made, SEND_BACKOFF_MS.length) - 1];
    await sleep(typeof after === "number" ? Math.max(backoff, after) : backoff);
    return !options.signal?.aborted;
  };
}

/**
 * The chat a target names: its own chat, or the platform's home channel.
 *
 * @throws HeraldError `send_target_invalid`, `platform_unknown`, `send_no_home_channel`.
 */
async function resolveTarget(
  profile: ProfileContext,
  text: string,
  from: SendSettings,
): Promise<MessageTarget> {
  const target = parseSendTarget(text);
  const known = await profile.messaging().platforms();
  if (!known.includes(target.platform)) throw unknownPlatform(target.platform, known);
  const chat = target.chatId === undefined ? homeChannel(target.platform, from) : target;
  if (chat?.chatId === undefined) throw noHomeChannel(profile, target.platform);
  return {
    platform: target.platform,
    chatId: chat.chatId,
    ...(chat.threadId === undefined ? {} : { threadId: chat.threadId }),
  };
}

/** Whether two targets name the same chat (and thread). */
function sameChat(a: MessageTarget, b: MessageTarget): boolean {
  return a.platform === b.platform && a.chatId === b.chatId &&
    (a.threadId ?? "") === (b.threadId ?? "");
}

/**
 * Refuses `to` unless it is the platform's home channel or a chat that has
 * talked to the gateway.
 *
 * @throws HeraldError `send_target_not_known` (kind `usage`).
 */
async function requireKnownTarget(
  profile: ProfileContext,
  to: MessageTarget,
  from: SendSettings,
): Promise<void> {
  const home = homeChannel(to.platform, from);
  if (home?.chatId !== undefined && sameChat(to, { ...home, chatId: home.chatId })) return;
  const known = await profile.messaging().knownChats?.() ?? [];
  if (known.some((chat) => sameChat(chat, to))) return;
  throw new HeraldError(
    "send_target_not_known",
    "usage",
    `The agent may send only to a home channel or a chat that has talked to the gateway; ` +
      `${to.platform}:${to.chatId} is neither (a person can send there with herald send)`,
    { details: { platform: to.platform, chat_id: to.chatId } },
  );
}

/**
 * Sends `body` (Markdown; `MEDIA:<absolute path>` lines send files) to
 * `target`, converted and split as the platform needs. A passing failure
 * is tried again a few times with a short backoff, going on from the first
 * part the platform did not confirm; a refusal is not.
 *
 * @example
 * ```ts
 * await sendMessage(profile, "telegram:-1001234567890", "Build finished");
 * // { platform: "telegram", chat_id: "-1001234567890", message_ids: ["17"] }
 * ```
 *
 * @throws HeraldError kind `usage`/`not_found` (exit 2): `send_target_invalid`,
 *   `platform_unknown`, `send_no_home_channel`, `platform_not_configured`, `empty_message`,
 *   `platform_cannot_send`, `send_file_protected`; kind `unavailable` (exit 1):
 *   `platform_refused` (the platform refused, or failed every attempt).
 */
export async function sendMessage(
  profile: ProfileContext,
  target: string,
  body: string,
  options: SendOptions = {},
): Promise<SendResult> {
  if (body.trim() === "") {
    throw new HeraldError("empty_message", "usage", "The message is empty; nothing was sent");
  }
  const from = await readSendSettings(profile);
  const to = await resolveTarget(profile, target, from);
  if (options.knownTargetsOnly) await requireKnownTarget(profile, to, from);
  requireSecrets(profile, to.platform, from);
  const retry = retryPolicy(options);
  let made = 0;
  const sent = await profile.messaging().send(to, body, {
    protectFiles: options.protectFiles ?? false,
    retry: (failure, attempts) => {
      made = attempts;
      return retry(failure, attempts);
    },
  }).catch((error: unknown) => {
    if (error instanceof HeraldError && error.code === "platform_refused" && made > 1) {
      throw new HeraldError(error.code, error.kind, `${error.message} (tried ${made} times)`, {
        details: { ...error.details, attempts: made },
        cause: error,
      });
    }
    throw asUsage(profile, error);
  });
  return {
    platform: to.platform,
    chat_id: to.chatId,
    ...(to.threadId === undefined ? {} : { thread_id: to.threadId }),
    message_ids: sent.messageIds,
  };
}

/** One platform as `herald send --list` shows it. */
export interface SendPlatformView {
  platform: string;
  label: string;
  /** Its required secrets are set. */
  configured: boolean;
  /** The gateway runs it (`platforms.<id>.enabled`, `<ID>_ENABLED`). */
  enabled: boolean;
  /** Whether it has chats to send to (the API server answers requests instead). */
  can_send: boolean;
  /** The home channel as a target (`telegram:-100123`), or null. */
  home_channel: string | null;
  /** The chats the gateway has talked to, as targets, sorted. */
  chats: string[];
}

/** What `herald send --list --json` prints. */
export interface SendTargetsView {
  profile: string;
  platforms: SendPlatformView[];
}

function targetText(target: { platform: string; chatId?: string; threadId?: string }): string {
  return [target.platform, target.chatId, target.threadId].filter((part) => part !== undefined)
    .join(":");
}

/**
 * Every platform this build can reach, for `herald send --list`: whether it
 * is configured and enabled, its home channel and the chats the gateway
 * has talked to. Reads files only; no network call.
 */
export async function listTargets(profile: ProfileContext): Promise<SendTargetsView> {
  const links = profile.messaging();
  const from = await readSendSettings(profile);
  const chats = (await links.knownChats?.()) ?? [];
  const platforms = (await links.platforms()).map((platform): SendPlatformView => {
    const info = platformInfo(platform);
    const check: PlatformCheck = info
      ? checkPlatformSecrets(info, from.credentials.lookup)
      : { ok: true };
    const settings = from.settings(platform);
    let home: SendTarget | undefined;
    try {
      home = homeChannel(platform, from);
    } catch {
      // A malformed home channel is listed as none; sending to it says what is wrong.
      home = undefined;
    }
    return {
      platform,
      label: info?.label ?? platform,
      configured: check.ok || check.missing.length === 0,
      enabled: platformEnabled(platform, from.credentials.lookup, settings),
      can_send: info?.hasBot ?? true,
      home_channel: home ? targetText(home) : null,
      chats: chats.filter((chat) => chat.platform === platform).map(targetText).sort(),
    };
  });
  return { profile: profile.name, platforms };
}
