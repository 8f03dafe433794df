/**
 * Converting between stored messages and the conversation sent to the model.
 *
 * @module
 */

import type { ChatMessage, ToolCall } from "../models/types.ts";
import type { NewMessage, StoredMessage } from "../sessions/store.ts";

/** The stored form of a conversation message. */
export function toNewMessage(message: ChatMessage, timestamp: number): NewMessage {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content, timestamp };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        toolCalls: message.toolCalls?.length ? message.toolCalls : null,
        timestamp,
      };
    case "tool":
      return {
        role: "tool",
        content: message.content,
        toolCallId: message.toolCallId,
        toolName: message.name,
        timestamp,
      };
  }
}

function isToolCall(value: unknown): value is ToolCall {
  const call = value as ToolCall;
  return typeof call?.id === "string" && typeof call.name === "string" &&
    typeof call.arguments === "string";
}

/**
 * Rebuilds the conversation from stored rows. Tool calls that never got a
 * result (a crash or an interrupt between the two writes) get a synthetic
 * "interrupted" result, because providers refuse a call without its result.
 */
export function historyFromStored(rows: readonly StoredMessage[]): ChatMessage[] {
  const history: ChatMessage[] = [];
  let pending: ToolCall[] = [];
  const closePending = () => {
    for (const call of pending) {
      history.push({
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: JSON.stringify({
          error: "interrupted before the tool finished",
          code: "interrupted",
        }),
        isError: true,
      });
    }
    pending = [];
  };
  for (const row of rows) {
    if (row.role === "tool") {
      const index = pending.findIndex((call) => call.id === row.toolCallId);
      if (index === -1) continue;
      pending.splice(index, 1);
      history.push({
        role: "tool",
        toolCallId: row.toolCallId ?? "",
        name: row.toolName ?? "",
        content: row.content ?? "",
      });
      continue;
    }
    closePending();
    if (row.role === "user") history.push({ role: "user", content: row.content ?? "" });
    else if (row.role === "assistant") {
      const toolCalls = (row.toolCalls ?? []).filter(isToolCall);
      history.push({
        role: "assistant",
        content: row.content,
        ...(toolCalls.length ? { toolCalls } : {}),
      });
      pending = [...toolCalls];
    }
  }
  closePending();
  return history;
}
