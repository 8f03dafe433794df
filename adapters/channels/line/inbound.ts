/**
 * LINE webhook events as what the channel does with them:
 *
 * - a message event becomes an {@link InboundMessage}: the chat from
 *   `source` (user → direct, group → group, room → room; the chat id is the
 *   user, group or room id), the sender's user id, the text, and files as
 *   attachments downloaded on demand (`GET /v2/bot/message/{id}/content`
 *   from the data API, or the sender's own URL for external content). A
 *   location is an attachment whose "file" is its description (title,
 *   address, coordinates: read as text); a sticker has no file Herald can
 *   fetch, so it becomes text (`[sticker: keywords]`);
 * - a postback from Herald's "Get answer" button is a tap;
 * - everything else is skipped: other event types (follow, join, ...),
 *   events in `standby` mode (another channel owns the chat), and messages
 *   from the bot itself.
 *
 * @module
 */

import { isRecord } from "../../../core/_util/json.ts";
import type {
  ChatAddress,
  ChatKind,
  InboundAttachment,
  InboundMessage,
} from "../../../core/channels/contract.ts";
import { parsePostbackData } from "../../../core/channels/line/postback.ts";
import type { LineApi } from "./api.ts";
import { LINE_ID } from "./settings.ts";

/** The reply context the LINE channel puts on inbound messages. */
export interface LineReplyContext {
  /** The event's reply token; absent for a redelivered event (its token may be spent). */
  replyToken?: string;
  /** When the webhook arrived, on the channel's clock (ms): the token's age counts from here. */
  receivedAt: number;
}

/** Reads a reply context back (it may have been stored as JSON by the ledger). */
export function readReplyContext(context: unknown): Partial<LineReplyContext> {
  if (typeof context !== "object" || context === null) return {};
  const record = context as Record<string, unknown>;
  return {
    ...(typeof record.replyToken === "string" ? { replyToken: record.replyToken } : {}),
    ...(typeof record.receivedAt === "number" ? { receivedAt: record.receivedAt } : {}),
  };
}

/** What to do with one webhook event. */
export type LineEventAction =
  | { kind: "message"; message: InboundMessage; replyToken?: string }
  | { kind: "tap"; chat: ChatAddress; requestId: string; replyToken?: string }
  | { kind: "skip"; reason: string };

/** What reading an event needs. */
export interface ReadEventDeps {
  api: LineApi;
  /** The bot's own user id (the webhook's `destination`), to drop its own messages. */
  botUserId?: string;
  /** Now on the channel's clock (ms): when the webhook arrived. */
  now: number;
  /** Fetches external content (the global `fetch`). */
  fetch: typeof fetch;
}

type Json = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The chat, its kind and the sender of an event's `source`, or undefined when unusable. */
function chatOf(
  source: unknown,
): { chat: ChatAddress; kind: ChatKind; userId?: string } | undefined {
  if (!isRecord(source)) return undefined;
  const userId = text(source.userId);
  const address = (chatId: string | undefined, kind: ChatKind) =>
    chatId === undefined ? undefined : {
      chat: { platform: LINE_ID, chatId },
      kind,
      ...(userId === undefined ? {} : { userId }),
    };
  switch (source.type) {
    case "user":
      return address(userId, "direct");
    case "group":
      return address(text(source.groupId), "group");
    case "room":
      return address(text(source.roomId), "room");
    default:
      return undefined;
  }
}

/** Reads one webhook event. */
export function readEvent(event: unknown, deps: ReadEventDeps): LineEventAction {
  if (!isRecord(event)) return { kind: "skip", reason: "not an event object" };
  if (event.mode === "standby") return { kind: "skip", reason: "standby mode" };
  const where = chatOf(event.source);
  if (where === undefined) return { kind: "skip", reason: "no usable source" };
  if (deps.botUserId !== undefined && where.userId === deps.botUserId) {
    return { kind: "skip", reason: "the bot's own message" };
  }
  const replyToken = text(event.replyToken);
  const redelivered = isRecord(event.deliveryContext) &&
    event.deliveryContext.isRedelivery === true;
  // A redelivered event's token may already be spent or stale: answer it by push.
  const usableToken = redelivered ? undefined : replyToken;
  if (event.type === "postback") {
    const data = isRecord(event.postback) ? text(event.postback.data) : undefined;
    const requestId = data === undefined ? undefined : parsePostbackData(data);
    if (requestId === undefined) return { kind: "skip", reason: "a postback Herald did not send" };
    return {
      kind: "tap",
      chat: where.chat,
      requestId,
      ...(usableToken === undefined ? {} : { replyToken: usableToken }),
    };
  }
  if (event.type !== "message") return { kind: "skip", reason: `a ${String(event.type)} event` };
  if (!isRecord(event.message)) return { kind: "skip", reason: "a message event with no message" };
  const content = readContent(event.message, deps);
  if (content === undefined) {
    return { kind: "skip", reason: `a ${String(event.message.type)} message` };
  }
  const context: LineReplyContext = {
    ...(usableToken === undefined ? {} : { replyToken: usableToken }),
    receivedAt: deps.now,
  };
  const message: InboundMessage = {
    chat: where.chat,
    chatKind: where.kind,
    userId: where.userId ?? "",
    text: content.text,
    attachments: content.attachments,
    ...(text(event.message.id) === undefined ? {} : { messageId: String(event.message.id) }),
    replyContext: context,
    receivedAt: typeof event.timestamp === "number" ? event.timestamp : deps.now,
  };
  return {
    kind: "message",
    message,
    ...(usableToken === undefined ? {} : { replyToken: usableToken }),
  };
}

type MediaKind = "image" | "audio" | "video" | "file";

function readContent(
  message: Json,
  deps: ReadEventDeps,
): { text: string; attachments: InboundAttachment[] } | undefined {
  switch (message.type) {
    case "text":
      return { text: typeof message.text === "string" ? message.text : "", attachments: [] };
    case "image":
    case "audio":
    case "video":
    case "file":
      return { text: "", attachments: [mediaAttachment(message, message.type, deps)] };
    case "sticker":
      return { text: stickerText(message), attachments: [] };
    case "location":
      return { text: "", attachments: [locationAttachment(message)] };
    default:
      return undefined;
  }
}

function mediaAttachment(message: Json, kind: MediaKind, deps: ReadEventDeps): InboundAttachment {
  const id = String(message.id ?? "");
  const provider = isRecord(message.contentProvider) ? message.contentProvider : {};
  const external = provider.type === "external" ? text(provider.originalContentUrl) : undefined;
  const attachment: InboundAttachment & { mimeType?: string } = {
    kind,
    ...(kind === "file" && text(message.fileName) !== undefined
      ? { name: String(message.fileName) }
      : {}),
    ...(typeof message.fileSize === "number" ? { size: message.fileSize } : {}),
    async fetch(): Promise<Uint8Array> {
      if (external !== undefined) {
        const response = await deps.fetch(external);
        if (!response.ok) {
          await response.body?.cancel();
          throw new Error(`the sender's server answered ${response.status}`);
        }
        const type = response.headers.get("content-type");
        if (type) attachment.mimeType = type;
        return new Uint8Array(await response.arrayBuffer());
      }
      try {
        const { bytes, contentType } = await deps.api.content(id);
        if (contentType) attachment.mimeType = contentType;
        return bytes;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`LINE did not hand over the file (${reason})`);
      }
    },
  };
  return attachment;
}

function stickerText(message: Json): string {
  const keywords = Array.isArray(message.keywords)
    ? message.keywords.filter((word): word is string => typeof word === "string").slice(0, 5)
    : [];
  const said = text(message.text);
  const label = keywords.length > 0 ? `[sticker: ${keywords.join(", ")}]` : "[sticker]";
  return said === undefined ? label : `${label} ${said}`;
}

function locationAttachment(message: Json): InboundAttachment {
  const lines = [
    text(message.title),
    text(message.address),
    typeof message.latitude === "number" && typeof message.longitude === "number"
      ? `latitude ${message.latitude}, longitude ${message.longitude}`
      : undefined,
  ].filter((line): line is string => line !== undefined);
  const description = `Location shared on LINE:\n${lines.join("\n")}\n`;
  return {
    kind: "location",
    name: "location.txt",
    mimeType: "text/plain",
    fetch: () => Promise.resolve(new TextEncoder().encode(description)),
  };
}
