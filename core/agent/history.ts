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

/** The error of the synthetic result a call that never got one is given. */
const INTERRUPTED = "interrupted before the tool finished";

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
  // A system row ends the calls before it, as any message but a tool result does.
  let run: HistoryEntry[] = [];
  const pairRun = () => {
    const ids = new Map(run.map((entry) => [entry.message, entry.id]));
    // A synthetic result takes the id of the row before it.
    let id = 0;
    for (const message of pairToolMessages(run.map((entry) => entry.message), INTERRUPTED)) {
      id = ids.get(message) ?? id;
      history.push({ id, message });
    }
    run = [];
  };
  for (const row of rows) {
    if (row.role === "system") pairRun();
    const message = messageOf(row);
    if (message) run.push({ id: row.id, message });
  }
  pairRun();
  return history;
}

/** The conversation message of a stored row; undefined for a row that has none. */
function messageOf(row: StoredMessage): ChatMessage | undefined {
  switch (row.role) {
    case "user":
      return { role: "user", content: row.content ?? "" };
    case "assistant": {
      const toolCalls = (row.toolCalls ?? []).filter(isToolCall);
      return {
        role: "assistant",
        content: row.content,
        ...(toolCalls.length ? { toolCalls } : {}),
      };
    }
    case "tool":
      // A result that names no call answers none.
      return row.toolCallId === null ? undefined : {
        role: "tool",
        toolCallId: row.toolCallId,
        name: row.toolName ?? "",
        content: row.content ?? "",
      };
    default:
      return undefined;
  }
}

/**
 * Makes a run of messages safe to send: a tool result whose call is not in
 * the assistant message before it (or already has its result) is dropped,
 * and a call without a result gets a stub result, an error saying `stub`
 * (code `interrupted`), before the next message. Providers refuse either
 * kind of orphan. The messages kept are the objects given.
 */
export function pairToolMessages(messages: readonly ChatMessage[], stub: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  let open: ToolCall[] = [];
  const closeOpen = () => {
    for (const call of open) {
      out.push({
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: JSON.stringify({ error: stub, code: "interrupted" }),
        isError: true,
      });
    }
    open = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      const index = open.findIndex((call) => call.id === message.toolCallId);
      if (index === -1) continue;
      open.splice(index, 1);
      out.push(message);
      continue;
    }
    closeOpen();
    out.push(message);
    if (message.role === "assistant") open = [...(message.toolCalls ?? [])];
  }
  closeOpen();
  return out;
}
