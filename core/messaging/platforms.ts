/**
 * The messaging platforms Herald can connect to, what each needs (secrets
 * in `.env`, settings under `platforms.<id>` in config.yaml), and a check
 * that the secrets are present and look right. The check reads values
 * through a lookup and never returns them.
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";

/** A secret a platform needs, kept in the profile's `.env`. */
export interface PlatformSecret {
  /** The `.env` variable. */
  name: string;
  label: string;
  required: boolean;
  /** What a well-formed value looks like; absent means any non-empty value without spaces. */
  pattern?: RegExp;
  /** Where to get it, and what it looks like (never an actual value). */
  hint: string;
}

/** A messaging platform in the catalog. */
export interface PlatformInfo {
  id: string;
  label: string;
  description: string;
  secrets: readonly PlatformSecret[];
  /** Dotted config keys that configure the platform. */
  configKeys: readonly string[];
  /** Where the platform's developer documentation starts. */
  docsUrl: string;
  /**
   * The platform has a bot that a test call can ask who it is (Telegram's
   * `getMe`, LINE's bot info) and whose credential one profile at a time
   * may serve; false for a server Herald runs itself (the API server).
   */
  hasBot: boolean;
}

function configKeys(id: string): string[] {
  return [
    `platforms.${id}.enabled`,
    `platforms.${id}.allowed_users`,
    `platforms.${id}.home_channel`,
  ];
}

/** Every platform Herald knows, in the order they are listed to users. */
export const PLATFORMS: readonly PlatformInfo[] = [
  {
    id: "telegram",
    label: "Telegram",
    description: "A Telegram bot created with @BotFather",
    secrets: [{
      name: "TELEGRAM_BOT_TOKEN",
      label: "Bot token",
      required: true,
      pattern: /^\d{5,}:[A-Za-z0-9_-]{30,}$/,
      hint: "from @BotFather: digits, a colon, then about 35 letters, digits, _ or -",
    }],
    configKeys: configKeys("telegram"),
    docsUrl: "https://core.telegram.org/bots",
    hasBot: true,
  },
  {
    id: "line",
    label: "LINE",
    description: "A LINE Official Account through the Messaging API (webhook)",
    secrets: [
      {
        name: "LINE_CHANNEL_ACCESS_TOKEN",
        label: "Channel access token",
        required: true,
        pattern: /^[A-Za-z0-9+/=._-]{20,}$/,
        hint: "LINE Developers console > Messaging API > Channel access token (long-lived)",
      },
      {
        name: "LINE_CHANNEL_SECRET",
        label: "Channel secret",
        required: true,
        pattern: /^[0-9a-fA-F]{32}$/,
        hint: "LINE Developers console > Basic settings: 32 hexadecimal characters",
      },
    ],
    configKeys: configKeys("line"),
    docsUrl: "https://developers.line.biz/en/docs/messaging-api/",
    hasBot: true,
  },
  {
    id: "api_server",
    label: "API server",
    description: "An OpenAI-compatible HTTP API (chat completions, responses, models) " +
      "that the gateway serves for other programs",
    secrets: [{
      name: "API_SERVER_KEY",
      label: "API key",
      required: true,
      hint: "A long random string you choose (no spaces); clients send it as " +
        "Authorization: Bearer <key>, and it is required even on loopback",
    }],
    configKeys: [
      "platforms.api_server.enabled",
      "platforms.api_server.host",
      "platforms.api_server.port",
      "platforms.api_server.model_name",
    ],
    docsUrl: "https://platform.openai.com/docs/api-reference/chat",
    hasBot: false,
  },
  {
    id: "discord",
    label: "Discord",
    description: "A Discord bot application",
    secrets: [{
      name: "DISCORD_BOT_TOKEN",
      label: "Bot token",
      required: true,
      pattern: /^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$/,
      hint: "Discord Developer Portal > Bot > Reset Token: three parts separated by dots",
    }],
    configKeys: configKeys("discord"),
    docsUrl: "https://discord.com/developers/docs/intro",
    hasBot: true,
  },
  {
    id: "slack",
    label: "Slack",
    description: "A Slack app connected in Socket Mode",
    secrets: [
      {
        name: "SLACK_BOT_TOKEN",
        label: "Bot token",
        required: true,
        pattern: /^xoxb-[A-Za-z0-9-]{10,}$/,
        hint: "OAuth & Permissions > Bot User OAuth Token: starts with xoxb-",
      },
      {
        name: "SLACK_APP_TOKEN",
        label: "App-level token (Socket Mode)",
        required: true,
        pattern: /^xapp-[A-Za-z0-9-]{10,}$/,
        hint: "Basic Information > App-Level Tokens with connections:write: starts with xapp-",
      },
    ],
    configKeys: configKeys("slack"),
    docsUrl: "https://api.slack.com/apis/socket-mode",
    hasBot: true,
  },
];

/** The platform with id `id`, or undefined. */
export function platformInfo(id: string): PlatformInfo | undefined {
  return PLATFORMS.find((platform) => platform.id === id);
}

/** A secret that is set but does not look right. */
export interface MalformedSecret {
  name: string;
  message: string;
}

/** The outcome of {@link checkPlatformSecrets}. */
export type PlatformCheck =
  | { ok: true }
  | { ok: false; missing: string[]; malformed: MalformedSecret[] };

/**
 * Checks that the platform's required secrets are present and well-formed.
 * Optional secrets are checked only when set. Values are never returned.
 *
 * @example
 * ```ts
 * checkPlatformSecrets(platformInfo("telegram")!, () => undefined);
 * // { ok: false, missing: ["TELEGRAM_BOT_TOKEN"], malformed: [] }
 * ```
 */
export function checkPlatformSecrets(platform: PlatformInfo, lookup: EnvLookup): PlatformCheck {
  const missing: string[] = [];
  const malformed: MalformedSecret[] = [];
  for (const secret of platform.secrets) {
    const value = lookup(secret.name)?.trim();
    if (value === undefined || value === "" || /^\$\{[^}]*\}$/.test(value)) {
      if (secret.required) missing.push(secret.name);
      continue;
    }
    const pattern = secret.pattern ?? /^\S+$/;
    if (!pattern.test(value)) {
      malformed.push({
        name: secret.name,
        message:
          `${secret.name} does not look like a ${platform.label} ${secret.label.toLowerCase()} ` +
          `(${secret.hint})`,
      });
    }
  }
  return missing.length === 0 && malformed.length === 0
    ? { ok: true }
    : { ok: false, missing, malformed };
}

/**
 * The prefix of a platform's variables: `telegram` → `TELEGRAM`,
 * `api_server` → `API_SERVER`, `my-chat` → `MY_CHAT`.
 */
export function platformEnvPrefix(platform: string): string {
  return platform.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
}

/** True for `true`, `1`, `yes`, `on` (any case). */
function switchedOn(value: string | undefined): boolean {
  return value !== undefined && /^(true|1|yes|on)$/i.test(value.trim());
}

/**
 * Whether a profile enables platform `id`: `platforms.<id>.enabled: true`
 * in config.yaml (`settings` is `platforms.<id>`), or `<ID>_ENABLED`
 * switched on in its environment.
 *
 * @example
 * ```ts
 * platformEnabled("api_server", (name) => ({ API_SERVER_ENABLED: "true" })[name], {}); // true
 * ```
 */
export function platformEnabled(
  id: string,
  env: EnvLookup,
  settings: Readonly<Record<string, unknown>>,
): boolean {
  return settings.enabled === true || switchedOn(env(`${platformEnvPrefix(id)}_ENABLED`));
}
