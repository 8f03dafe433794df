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

/** A message of the rebuilt conversation and the stored row it came from. */
export interface HistoryEntry {
  message: ChatMessage;
  /**
   * The stored row's id; for a synthetic "interrupted" result, the id of the
   * last stored row before it.
   */
  id: number;
}

/**
 * Rebuilds the conversation from stored rows. Tool calls that never got a
 * result (a crash or an interrupt between the two writes) get a synthetic
 * "interrupted" result, because providers refuse a call without its result.
 */
export function historyFromStored(rows: readonly StoredMessage[]): ChatMessage[] {
  return historyEntriesFromStored(rows).map((entry) => entry.message);
}

/**
 * {@link historyFromStored} with each message's stored id, so a compression
 * checkpoint (which names stored ids) can be mapped onto the conversation.
 */
export function historyEntriesFromStored(rows: readonly StoredMessage[]): HistoryEntry[] {
  const history: HistoryEntry[] = [];
  let pending: ToolCall[] = [];
  let lastId = 0;
  const closePending = () => {
    for (const call of pending) {
      history.push({
        id: lastId,
        message: {
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: JSON.stringify({
            error: "interrupted before the tool finished",
            code: "interrupted",
          }),
          isError: true,
        },
      });
    }
    pending = [];
  };
  for (const row of rows) {
    if (row.role === "tool") {
      const index = pending.findIndex((call) => call.id === row.toolCallId);
      if (index === -1) continue;
      pending.splice(index, 1);
      lastId = row.id;
      history.push({
        id: row.id,
        message: {
          role: "tool",
          toolCallId: row.toolCallId ?? "",
          name: row.toolName ?? "",
          content: row.content ?? "",
        },
      });
      continue;
    }
    closePending();
    if (row.role === "user") {
      lastId = row.id;
      history.push({ id: row.id, message: { role: "user", content: row.content ?? "" } });
    } else if (row.role === "assistant") {
      lastId = row.id;
      const toolCalls = (row.toolCalls ?? []).filter(isToolCall);
      history.push({
        id: row.id,
        message: {
          role: "assistant",
          content: row.content,
          ...(toolCalls.length ? { toolCalls } : {}),
        },
      });
      pending = [...toolCalls];
    }
  }
  closePending();
  return history;
}
