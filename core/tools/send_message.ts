/**
 * The `send_message` tool: the agent sends a message to a chat on one of
 * the profile's messaging platforms, as `herald send` does. The sending is
 * core/usecases/send.ts sendMessage, handed in by the runtime that
 * registers the tool (adapters/runtime/agent_runtime.ts), so the tool and
 * the command share one path. Files the message names (`MEDIA:<path>`)
 * that are protected like the file tools' writes are refused.
 *
 * Not gated by an approval, but bounded: the agent may send only to a home
 * channel or a chat that has talked to the gateway (only allowed people
 * do), so a prompt-injected model cannot reach a stranger who once wrote
 * to the bot; a person sends anywhere with `herald send`.
 *
 * @module
 */

import { z } from "zod";
import { HeraldError } from "../errors.ts";
import { defineTypedTool, ToolError, type TypedTool } from "./types.ts";

/** What the tool returns: where the message went and the platform's message ids. */
export interface SendMessageResult {
  platform: string;
  chat_id: string;
  thread_id?: string;
  message_ids: string[];
}

/** Sends `message` to `target` (`platform` or `platform:chat_id[:thread_id]`). */
export type SendMessageFunction = (
  target: string,
  message: string,
  signal: AbortSignal,
) => Promise<SendMessageResult>;

const sendMessageArgs = z.object({
  target: z.string().min(1).describe(
    "Where to send: a platform name alone (telegram, line) for its home channel, or " +
      "platform:chat_id, or platform:chat_id:thread_id (e.g. telegram:-1001234567890:42).",
  ),
  message: z.string().min(1).describe(
    "The text to send, in Markdown (converted to what the platform shows; long text is split). " +
      "A line MEDIA:<absolute path> sends that file; [[as_document]] sends files as documents.",
  ),
});

/** Arguments of the `send_message` tool. */
export type SendMessageArgs = z.infer<typeof sendMessageArgs>;

/**
 * Creates the `send_message` tool over `send`.
 *
 * @example
 * ```ts
 * const tool = createSendMessageTool((target, message, signal) =>
 *   sendMessage(profile, target, message, { signal, protectFiles: true })
 * );
 * ```
 */
export function createSendMessageTool(
  send: SendMessageFunction,
): TypedTool<SendMessageArgs, SendMessageResult> {
  return defineTypedTool({
    name: "send_message",
    description: "Send a message to a chat on one of the user's messaging platforms " +
      "(Telegram, LINE, ...) through their bot: a notification, a result, a reminder for a " +
      "chat other than this conversation. Do not use it to answer the current conversation, " +
      "even when it is a chat: your answer reaches the user by itself. The target is a " +
      "platform name for its home channel, or platform:chat_id[:thread_id].",
    schema: sendMessageArgs,
    run: async (args, context): Promise<SendMessageResult> => {
      try {
        return await send(args.target, args.message, context.signal);
      } catch (error) {
        if (error instanceof HeraldError) throw new ToolError(error.code, error.message);
        throw error;
      }
    },
  });
}
