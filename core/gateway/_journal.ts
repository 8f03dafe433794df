/**
 * The inbound journal's side of the runner: a message as the journal keeps
 * it (plain data) and taken in again after a restart (its files say they
 * cannot be fetched any more).
 *
 * @module
 */

import type { InboundMessage } from "../channels/contract.ts";
import type { JournaledMessage } from "../channels/ports.ts";

/** The message as the journal keeps it: plain data, the reply context only when it is plain JSON. */
export function journaled(message: InboundMessage): JournaledMessage {
  let replyContext: unknown;
  try {
    const text = JSON.stringify(message.replyContext);
    replyContext = text === undefined ? undefined : JSON.parse(text);
  } catch {
    replyContext = undefined;
  }
  return {
    chat: message.chat,
    chatKind: message.chatKind,
    userId: message.userId,
    ...(message.userName === undefined ? {} : { userName: message.userName }),
    text: message.text,
    attachments: message.attachments.map((attachment) => ({
      kind: attachment.kind,
      ...(attachment.name === undefined ? {} : { name: attachment.name }),
      ...(attachment.mimeType === undefined ? {} : { mimeType: attachment.mimeType }),
      ...(attachment.size === undefined ? {} : { size: attachment.size }),
    })),
    ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
    ...(replyContext === undefined ? {} : { replyContext }),
    receivedAt: message.receivedAt,
  };
}

/** What a restart says about a file it cannot fetch again. */
export const ATTACHMENT_GONE_TEXT =
  "it came before the gateway restarted and could not be fetched again; send it again";

/**
 * What the model reads in front of a message taken in again after a
 * restart: its turn may have begun, and some of what it did (a command, a
 * message sent) may already be done.
 */
export const REPLAY_NOTE = "[Herald restarted before answering this message; anything begun for " +
  "it may already be done, so check before doing it again.]";

/**
 * A journaled message taken in again: the model is told it is a replay
 * ({@link REPLAY_NOTE}; a slash command stays as typed), and its files say
 * they are gone when fetched.
 */
export function revived(message: JournaledMessage): InboundMessage {
  const command = message.text.trimStart().startsWith("/");
  return {
    ...message,
    text: command || message.text.trim() === ""
      ? message.text
      : `${REPLAY_NOTE}\n\n${message.text}`,
    attachments: message.attachments.map((attachment) => ({
      ...attachment,
      fetch: () => Promise.reject(new Error(ATTACHMENT_GONE_TEXT)),
    })),
  };
}
