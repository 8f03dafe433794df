/**
 * The bundled Telegram platform: a bot reached through the Bot API by long
 * polling. The gateway discovers it through {@link plugin}.
 *
 * @module
 */

import type { ChannelPlugin } from "../../../core/channels/contract.ts";
import { createTelegramChannel, TELEGRAM_ID } from "./channel.ts";

export { createTelegramChannel, type TelegramChannelOptions } from "./channel.ts";
export { TelegramApiError } from "./api.ts";

/**
 * The Telegram plugin. `create` needs `TELEGRAM_BOT_TOKEN` in the profile's
 * environment and takes `TELEGRAM_API_BASE` when set.
 */
export const plugin: ChannelPlugin = {
  id: TELEGRAM_ID,
  label: "Telegram",
  create: (context) => createTelegramChannel(context),
};
