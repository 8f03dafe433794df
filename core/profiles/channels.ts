/**
 * Messaging channels in a cloned profile. Two profiles serving the same bot
 * token would fight over its messages, so a clone leaves the messaging
 * platforms' secrets (core/messaging/platforms.ts) out of the copied `.env`
 * unless asked to keep them (`--clone-channels`).
 *
 * @module
 */

import { removeEnvValuesFromText } from "../config/env_text.ts";
import { PLATFORMS } from "../messaging/platforms.ts";

/**
 * The `.env` names of every messaging bot's secrets (bot tokens, channel
 * secrets). The API server's key is not one: it names no bot, and two
 * profiles may share it.
 */
export const CHANNEL_SECRET_NAMES: readonly string[] = PLATFORMS.filter((platform) =>
  platform.hasBot
).flatMap((platform) => platform.secrets.map((secret) => secret.name));

/**
 * `.env` text without the messaging platforms' secrets, and the names
 * that were set there, in {@link CHANNEL_SECRET_NAMES} order. Every other
 * line is kept as written.
 *
 * @example
 * ```ts
 * stripChannelSecrets("OPENAI_API_KEY=sk-1\nTELEGRAM_BOT_TOKEN=123:abc\n");
 * // { text: "OPENAI_API_KEY=sk-1\n", removed: ["TELEGRAM_BOT_TOKEN"] }
 * ```
 */
export function stripChannelSecrets(text: string): { text: string; removed: string[] } {
  return removeEnvValuesFromText(text, CHANNEL_SECRET_NAMES);
}
