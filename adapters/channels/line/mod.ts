/**
 * The bundled LINE platform: a LINE Official Account reached through the
 * Messaging API, inbound by a signed webhook. The gateway discovers it
 * through {@link plugin}.
 *
 * @module
 */

import type { ChannelPlugin } from "../../../core/channels/contract.ts";
import { createLineChannel } from "./channel.ts";
import { LINE_ID } from "./settings.ts";

export { createLineChannel, LineChannel } from "./channel.ts";
export { LineApiError } from "./api.ts";
export { type LineReplyContext } from "./inbound.ts";

/**
 * The LINE plugin. `create` needs `LINE_CHANNEL_ACCESS_TOKEN` and
 * `LINE_CHANNEL_SECRET` in the profile's environment; the other LINE_*
 * settings are optional (see adapters/channels/line/settings.ts).
 */
export const plugin: ChannelPlugin = {
  id: LINE_ID,
  label: "LINE",
  create: (context) => createLineChannel(context),
};
