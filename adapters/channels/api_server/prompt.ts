/**
 * Turning what a client sends (Chat Completions `messages`, Responses
 * `input` and `instructions`) into the one user turn a conversation takes.
 *
 * The conversation object takes text, so the agent gets one message per
 * request. The client's last message must be the user's; it is the turn.
 * Everything the client sent before it (system and developer prompts,
 * earlier user and assistant messages, tool results) goes in front of it as
 * a transcript, each message under its role in brackets:
 *
 * ```
 * The API client sent these earlier messages of the conversation; answer the last one.
 *
 * [system]
 * You are terse.
 *
 * [user]
 * hello
 * ```
 *
 * A request with one user message and nothing else sends its text as it
 * is (so `/help` and the other slash commands work as on every surface).
 * Only text reaches the agent: image, audio and file parts are refused
 * with 400 `unsupported_content_type` rather than dropped.
 *
 * @module
 */

import { z } from "zod";
import { ApiRequestError } from "./errors.ts";

/** One earlier message of the client's transcript. */
export interface TranscriptEntry {
  /** `system`, `developer`, `user`, `assistant`, `tool`. */
  role: string;
  text: string;
}

const Part = z.object({ type: z.string() }).loose();

/** A Chat Completions message, as far as the server reads it (other fields are ignored). */
export const ChatMessage = z.object({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: z.union([z.string(), z.null(), z.array(Part)]).optional(),
  name: z.string().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z.array(
    z.object({ function: z.object({ name: z.string(), arguments: z.string() }).loose() }).loose(),
  ).optional(),
}).loose();

/** A Chat Completions message. */
export type ChatMessage = z.infer<typeof ChatMessage>;

/** A Responses input item (messages only; other item types are refused when read). */
export const InputItem = z.object({
  type: z.string().optional(),
  role: z.string().optional(),
  content: z.union([z.string(), z.array(Part)]).optional(),
}).loose();

/** A Responses input item. */
export type InputItem = z.infer<typeof InputItem>;

/** The transcript in front of `latest`, or `latest` alone when there is none. */
export function promptText(history: readonly TranscriptEntry[], latest: string): string {
  if (history.length === 0) return latest;
  const lines = [
    "The API client sent these earlier messages of the conversation; answer the last one.",
    "",
  ];
  for (const entry of history) lines.push(`[${entry.role}]`, entry.text, "");
  lines.push("[user]", latest);
  return lines.join("\n");
}

function unsupported(what: string, param: string): ApiRequestError {
  return new ApiRequestError(
    400,
    "unsupported_content_type",
    `${param} is ${what}: this server passes only text to the agent; send the content as text`,
    param,
  );
}

/** The media type of a `data:` URL, or undefined for another URL. */
function dataUrlType(url: unknown): string | undefined {
  if (typeof url !== "string" || !url.startsWith("data:")) return undefined;
  const end = url.search(/[;,]/);
  return (end === -1 ? url.slice(5) : url.slice(5, end)).toLowerCase() || "text/plain";
}

function imageUrlOf(part: Record<string, unknown>): unknown {
  const image = part.image_url;
  if (typeof image === "string") return image;
  if (image && typeof image === "object") return (image as { url?: unknown }).url;
  return undefined;
}

/** The text of one content part; anything but text is refused. */
function partText(part: z.infer<typeof Part>, param: string): string {
  switch (part.type) {
    case "text":
    case "input_text":
    case "output_text":
      if (typeof part.text !== "string") {
        throw new ApiRequestError(400, "invalid_request", `${param}.text must be a string`, param);
      }
      return part.text;
    case "refusal":
      return typeof part.refusal === "string" ? part.refusal : "";
    case "image_url":
    case "input_image": {
      const type = dataUrlType(imageUrlOf(part));
      if (type !== undefined && !type.startsWith("image/")) {
        throw unsupported(`a data URL of type "${type}" (not an image)`, param);
      }
      throw unsupported("an image", param);
    }
    case "file":
    case "input_file":
      throw unsupported("a file", param);
    case "input_audio":
      throw unsupported("audio", param);
    default:
      throw unsupported(`a "${part.type}" part`, param);
  }
}

/** The text of a message's content (a string, or parts joined by blank lines). */
function contentText(
  content: string | null | undefined | readonly z.infer<typeof Part>[],
  param: string,
): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part, index) => partText(part, `${param}[${index}]`))
    .filter((text) => text !== "").join("\n\n");
}

function lastUserText(role: string, text: string, param: string): string {
  if (role !== "user") {
    throw new ApiRequestError(
      400,
      "invalid_request",
      `The last message must be the user's (it is "${role}"); the agent answers a user message`,
      param,
    );
  }
  if (text.trim() === "") {
    throw new ApiRequestError(400, "invalid_request", `${param} has no text to answer`, param);
  }
  return text;
}

function chatEntryText(message: ChatMessage, param: string): string {
  const text = contentText(message.content, `${param}.content`);
  const calls = (message.tool_calls ?? []).map((call) =>
    `(called ${call.function.name} with ${call.function.arguments})`
  );
  return [text, ...calls].filter((part) => part !== "").join("\n");
}

/**
 * The turn for a Chat Completions request's `messages`.
 *
 * @throws ApiRequestError 400 when there is no message, the last one is
 * not the user's or has no text, or a part is not text (`unsupported_content_type`).
 */
export function chatPrompt(messages: readonly ChatMessage[]): string {
  if (messages.length === 0) {
    throw new ApiRequestError(400, "invalid_request", "messages is empty", "messages");
  }
  const history = messages.slice(0, -1).map((message, index) => {
    const param = `messages[${index}]`;
    const role = message.role === "function" ? "tool" : message.role;
    const label = role === "tool" && message.tool_call_id ? `tool ${message.tool_call_id}` : role;
    return { role: label, text: chatEntryText(message, param) };
  });
  const last = messages.length - 1;
  const param = `messages[${last}]`;
  const latest = lastUserText(
    messages[last].role,
    contentText(messages[last].content, `${param}.content`),
    param,
  );
  return promptText(history, latest);
}

function inputEntry(item: InputItem, param: string): TranscriptEntry {
  if (item.type !== undefined && item.type !== "message") {
    throw new ApiRequestError(
      400,
      "unsupported_input_item",
      `${param} is a "${item.type}" item: this server takes messages only (its agent runs its ` +
        "own tools; it never asks the client to run one)",
      param,
    );
  }
  const role = item.role ?? "";
  if (!["user", "assistant", "system", "developer"].includes(role)) {
    throw new ApiRequestError(
      400,
      "invalid_request",
      `${param}.role must be user, assistant, system or developer`,
      `${param}.role`,
    );
  }
  return { role, text: contentText(item.content, `${param}.content`) };
}

/**
 * The turn for a Responses request's `input` (a string is the user's
 * message) and `instructions` (put in front as a system message).
 *
 * @throws ApiRequestError 400 as {@link chatPrompt}, and
 * `unsupported_input_item` for an item that is not a message.
 */
export function responsesPrompt(
  input: string | readonly InputItem[],
  instructions: string | undefined,
): string {
  const history: TranscriptEntry[] = [];
  if (instructions !== undefined && instructions.trim() !== "") {
    history.push({ role: "system", text: instructions });
  }
  if (typeof input === "string") return promptText(history, lastUserText("user", input, "input"));
  if (input.length === 0) {
    throw new ApiRequestError(400, "invalid_request", "input is empty", "input");
  }
  const entries = input.map((item, index) => inputEntry(item, `input[${index}]`));
  const latest = entries.pop()!;
  return promptText(
    [...history, ...entries],
    lastUserText(latest.role, latest.text, `input[${input.length - 1}]`),
  );
}
