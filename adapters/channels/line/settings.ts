/**
 * The LINE channel's settings, read from the profile's environment (its
 * `.env`, then the process environment): the two credentials, where the
 * webhook server listens, the public URL media is served at, the API base
 * URLs (tests point them at a fake) and the slow-response machine's
 * threshold and texts. A missing or malformed value is a
 * `platform_not_configured` error naming the variable; no message ever
 * contains a credential.
 *
 * @module
 */

import type { ChannelContext } from "../../../core/channels/contract.ts";
import {
  DEFAULT_SLOW_RESPONSE_TEXTS,
  DEFAULT_SLOW_RESPONSE_THRESHOLD_SECONDS,
  type SlowResponseTexts,
} from "../../../core/channels/line/postback.ts";
import { HeraldError } from "../../../core/errors.ts";

/** The platform id. */
export const LINE_ID = "line";

/** Where the Messaging API lives; `LINE_API_BASE` overrides it. */
export const DEFAULT_LINE_API_BASE = "https://api.line.me";
/** Where message content is downloaded from; `LINE_DATA_API_BASE` overrides it. */
export const DEFAULT_LINE_DATA_API_BASE = "https://api-data.line.me";
/** The webhook server's default port (`LINE_PORT`). */
export const DEFAULT_LINE_PORT = 8646;
/**
 * The webhook server's default address (`LINE_HOST`). LINE only calls
 * HTTPS webhooks, so the server normally sits behind a TLS proxy or tunnel
 * on the same machine; listening on loopback keeps it off the network until
 * the owner decides otherwise (`LINE_HOST=0.0.0.0` or `::`).
 */
export const DEFAULT_LINE_HOST = "127.0.0.1";

const TOKEN_ENV = "LINE_CHANNEL_ACCESS_TOKEN";
const SECRET_ENV = "LINE_CHANNEL_SECRET";

/** Everything the channel reads from the environment. */
export interface LineSettings {
  token: string;
  secret: string;
  host: string;
  /** 0: any free port. */
  port: number;
  /** The HTTPS origin (and path prefix) LINE reaches the webhook server at, no trailing slash. */
  publicUrl?: string;
  apiBase: string;
  dataApiBase: string;
  /** 0 disables the slow-response button. */
  thresholdMs: number;
  texts: SlowResponseTexts;
}

/**
 * Reads the settings from `context.env`.
 *
 * @throws HeraldError `platform_not_configured` naming the missing or malformed variable.
 */
export function readLineSettings(context: ChannelContext): LineSettings {
  const env = (name: string) => context.env(name)?.trim() ?? "";
  const token = env(TOKEN_ENV);
  if (token === "") {
    throw notConfigured(
      `LINE is enabled but ${TOKEN_ENV} is not set: add the long-lived channel access token ` +
        `(LINE Developers console > Messaging API) to the profile's .env as ${TOKEN_ENV}=..., ` +
        "or disable platforms.line",
      TOKEN_ENV,
    );
  }
  if (/\s/.test(token)) {
    throw notConfigured(
      `${TOKEN_ENV} contains whitespace; copy the channel access token again into the profile's .env`,
      TOKEN_ENV,
    );
  }
  const secret = env(SECRET_ENV);
  if (secret === "") {
    throw notConfigured(
      `LINE is enabled but ${SECRET_ENV} is not set: add the channel secret (LINE Developers ` +
        `console > Basic settings) to the profile's .env as ${SECRET_ENV}=..., or disable ` +
        "platforms.line",
      SECRET_ENV,
    );
  }
  return {
    token,
    secret,
    host: env("LINE_HOST") || DEFAULT_LINE_HOST,
    port: readPort(env("LINE_PORT")),
    ...optional("publicUrl", readPublicUrl(env("LINE_PUBLIC_URL"))),
    apiBase: readBase("LINE_API_BASE", env("LINE_API_BASE"), DEFAULT_LINE_API_BASE),
    dataApiBase: readBase(
      "LINE_DATA_API_BASE",
      env("LINE_DATA_API_BASE"),
      DEFAULT_LINE_DATA_API_BASE,
    ),
    thresholdMs: readThreshold(env("LINE_SLOW_RESPONSE_THRESHOLD")) * 1000,
    texts: {
      ...DEFAULT_SLOW_RESPONSE_TEXTS,
      ...optional("pending", env("LINE_PENDING_TEXT") || undefined),
      ...optional("button", env("LINE_BUTTON_LABEL") || undefined),
      ...optional("delivered", env("LINE_DELIVERED_TEXT") || undefined),
      ...optional("interrupted", env("LINE_INTERRUPTED_TEXT") || undefined),
    },
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function notConfigured(message: string, variable: string): HeraldError {
  return new HeraldError("platform_not_configured", "state", message, {
    details: { platform: LINE_ID, variable },
  });
}

function readPort(text: string): number {
  if (text === "") return DEFAULT_LINE_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw notConfigured(
      `LINE_PORT "${text}" is not a port: use a number from 1 to 65535 (0 for any free port)`,
      "LINE_PORT",
    );
  }
  return port;
}

function readThreshold(text: string): number {
  if (text === "") return DEFAULT_SLOW_RESPONSE_THRESHOLD_SECONDS;
  const seconds = Number(text);
  if (!/^\d+(?:\.\d+)?$/.test(text) || !Number.isFinite(seconds)) {
    throw notConfigured(
      `LINE_SLOW_RESPONSE_THRESHOLD "${text}" is not a number of seconds: use e.g. 45, or 0 ` +
        "to always push late answers",
      "LINE_SLOW_RESPONSE_THRESHOLD",
    );
  }
  return seconds;
}

function readPublicUrl(text: string): string | undefined {
  if (text === "") return undefined;
  const base = text.replace(/\/+$/, "");
  if (!isHttpUrl(base)) {
    throw notConfigured(
      `LINE_PUBLIC_URL "${text}" is not an http(s) URL: use the HTTPS address LINE reaches ` +
        "this webhook server at, e.g. https://bot.example.com",
      "LINE_PUBLIC_URL",
    );
  }
  return base;
}

function readBase(name: string, text: string, fallback: string): string {
  const base = (text || fallback).replace(/\/+$/, "");
  if (!isHttpUrl(base)) {
    throw notConfigured(`${name} "${text}" is not an http(s) URL; fix it or remove it`, name);
  }
  return base;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}
