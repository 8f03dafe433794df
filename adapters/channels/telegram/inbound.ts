/**
 * Telegram updates as the gateway's inbound messages: who wrote, in what
 * kind of chat and topic, the text or caption, and the files as
 * attachments fetched on demand (`getFile`, then the download). Channel
 * posts, messages from bots and messages with nothing to answer are left
 * out.
 *
 * @module
 */

import type {
  ChatKind,
  InboundAttachment,
  InboundMessage,
} from "../../../core/channels/contract.ts";
import {
  type TelegramApi,
  TelegramApiError,
  type TelegramFile,
  type TelegramFileRef,
  type TelegramMessage,
  type TelegramUpdate,
} from "./api.ts";

/** How long a `getFile` call or a file download may take. */
const FILE_TIMEOUT_MS = 120_000;

/** What the conversion needs to fetch files later. */
export interface InboundOptions {
  api: TelegramApi;
  /** The platform id the addresses carry (`telegram`). */
  platform: string;
  /** The bot's username (without `@`), when known: `/new@<it>` is read as `/new`. */
  botUsername?: string;
}

/**
 * The inbound message an update carries, or `undefined` when it is not
 * one to answer (a channel post, a bot's message, a service message).
 */
export function inboundFromUpdate(
  update: TelegramUpdate,
  options: InboundOptions,
): InboundMessage | undefined {
  const message = update.message;
  if (message === undefined) return undefined;
  const kind = chatKind(message.chat.type);
  if (kind === undefined) return undefined;
  const from = message.from;
  if (from === undefined || from.is_bot) return undefined;
  const attachments = attachmentsOf(message, options.api);
  const text = withoutBotName(message.text ?? message.caption ?? "", options.botUsername);
  if (text === "" && attachments.length === 0) return undefined;
  const threadId = message.is_topic_message && message.message_thread_id !== undefined
    ? String(message.message_thread_id)
    : undefined;
  return {
    chat: {
      platform: options.platform,
      chatId: String(message.chat.id),
      ...(threadId === undefined ? {} : { threadId }),
    },
    chatKind: kind,
    userId: String(from.id),
    userName: displayName(from.first_name, from.last_name, from.username),
    text,
    attachments,
    messageId: String(message.message_id),
    receivedAt: message.date * 1000,
  };
}

/** In groups Telegram writes commands as `/command@botname`; the name is dropped. */
function withoutBotName(text: string, username: string | undefined): string {
  if (username === undefined) return text;
  const match = /^(\/[A-Za-z0-9_]+)@([A-Za-z0-9_]+)(?=\s|$)/.exec(text);
  if (match === null || match[2].toLowerCase() !== username.toLowerCase()) return text;
  return match[1] + text.slice(match[0].length);
}

function chatKind(type: string): ChatKind | undefined {
  if (type === "private") return "direct";
  if (type === "group" || type === "supergroup") return "group";
  return undefined;
}

function displayName(first: string, last?: string, username?: string): string {
  const name = [first, last].filter((part) => part !== undefined && part !== "").join(" ");
  if (username === undefined) return name;
  return name === "" ? `@${username}` : `${name} (@${username})`;
}

function attachmentsOf(message: TelegramMessage, api: TelegramApi): InboundAttachment[] {
  const found: InboundAttachment[] = [];
  const photo = largest(message.photo);
  if (photo) found.push(attachment("image", photo, api, "image/jpeg"));
  if (message.document) found.push(attachment("file", message.document, api));
  if (message.audio) found.push(attachment("audio", message.audio, api));
  if (message.voice) found.push(attachment("audio", message.voice, api, "audio/ogg"));
  if (message.video) found.push(attachment("video", message.video, api));
  if (message.sticker) found.push(attachment("sticker", message.sticker, api, "image/webp"));
  return found;
}

/** The biggest size of a photo: the most pixels, then the most bytes. */
function largest<T extends TelegramFileRef & { width: number; height: number }>(
  sizes: readonly T[] | undefined,
): T | undefined {
  let best: T | undefined;
  for (const size of sizes ?? []) {
    if (
      best === undefined ||
      size.width * size.height > best.width * best.height ||
      (size.width * size.height === best.width * best.height &&
        (size.file_size ?? 0) > (best.file_size ?? 0))
    ) best = size;
  }
  return best;
}

function attachment(
  kind: InboundAttachment["kind"],
  ref: TelegramFileRef,
  api: TelegramApi,
  defaultType?: string,
): InboundAttachment {
  const mimeType = ref.mime_type ?? defaultType;
  return {
    kind,
    ...(ref.file_name === undefined ? {} : { name: ref.file_name }),
    ...(mimeType === undefined ? {} : { mimeType }),
    ...(ref.file_size === undefined ? {} : { size: ref.file_size }),
    fetch: () => fetchFile(api, ref.file_id),
  };
}

async function fetchFile(api: TelegramApi, fileId: string): Promise<Uint8Array> {
  try {
    const file = await api.call<TelegramFile>("getFile", { file_id: fileId }, {
      timeoutMs: FILE_TIMEOUT_MS,
    });
    if (file.file_path === undefined) {
      throw new Error(
        "Telegram gave no download path for the file; ask the sender to send it again",
      );
    }
    return await api.download(file.file_path, { timeoutMs: FILE_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof TelegramApiError && /file is too big/i.test(error.description ?? "")) {
      throw new Error(
        "The file is larger than the 20 MB Telegram lets bots download; send a smaller file or a link",
      );
    }
    if (error instanceof TelegramApiError) {
      throw new Error(`Could not download the file from Telegram: ${error.message}`);
    }
    throw error;
  }
}
