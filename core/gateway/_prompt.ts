/**
 * A message's files made into what the model reads: each is admitted or
 * refused under the platform's policy (core/channels/attachments.ts), kept
 * files are saved where the agent's tools can open them (when the
 * composition can), and the prompt is the text with the files described.
 *
 * @module
 */

import {
  admitAttachment,
  type AdmittedAttachment,
  type AttachmentPolicy,
  describeAttachmentsForPrompt,
} from "../channels/attachments.ts";
import { type ChatAddress, formatAddress, type InboundMessage } from "../channels/contract.ts";
import type { PreparedInput } from "./chat_session.ts";
import { errorText } from "../../core/errors.ts";

/** A file a message brought that the model gets as a file (not inline text). */
export interface KeptAttachment {
  name: string;
  mimeType?: string;
  bytes: Uint8Array;
}

/** Keeps an admitted file and returns its path. */
export type SaveAttachment = (chat: ChatAddress, file: KeptAttachment) => Promise<string>;

/**
 * Admits `message`'s files under `policy` (one at a time, in order) and
 * builds the prompt: `text`, a blank line, the files described. Refusals
 * are returned for the user; with no text and nothing admitted the prompt
 * is "" (no turn runs).
 */
export async function prepareInput(
  message: InboundMessage,
  text: string,
  policy: AttachmentPolicy,
  save: SaveAttachment | undefined,
  log: (line: string) => void,
): Promise<PreparedInput> {
  const admitted: AdmittedAttachment[] = [];
  for (const attachment of message.attachments) {
    admitted.push(await admitAttachment(attachment, policy));
  }
  const refusals = admitted.flatMap((item) => item.kind === "refused" ? [item.reason] : []);
  if (admitted.every((item) => item.kind === "refused") && text.trim() === "") {
    return { prompt: "", refusals };
  }
  const saved = save ? await saveAll(message.chat, admitted, save, log) : [];
  const described = describeAttachmentsForPrompt(admitted, saved);
  const prompt = text.trim() === "" ? described : `${text}\n\n${described}`;
  return { prompt, refusals };
}

async function saveAll(
  chat: ChatAddress,
  admitted: readonly AdmittedAttachment[],
  save: SaveAttachment,
  log: (line: string) => void,
): Promise<(string | undefined)[]> {
  const paths: (string | undefined)[] = [];
  for (const item of admitted) {
    if (item.kind !== "file") {
      paths.push(undefined);
      continue;
    }
    const { name, bytes, mimeType } = item;
    try {
      paths.push(
        await save(chat, mimeType === undefined ? { name, bytes } : { name, mimeType, bytes }),
      );
    } catch (error) {
      log(`${formatAddress(chat)}: "${name}" could not be kept: ${errorText(error)}`);
      paths.push(undefined);
    }
  }
  return paths;
}
