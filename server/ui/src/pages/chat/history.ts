/**
 * A stored session's messages (`GET /api/sessions/:id/messages`) as
 * transcript items, so a resumed chat shows what was said before: user
 * lines, answers, and each tool call with the result stored for it. Pure.
 */

import type { MessageView } from "../../../../../core/sessions/views.ts";
import type { NewItem, ToolItem } from "./chat_state.ts";

/** A tool call as an assistant message stores it. */
interface StoredCall {
  id: string;
  name: string;
  arguments: string;
}

/** The stored calls of a message that are well formed (the store keeps them as JSON). */
function storedCalls(calls: unknown[] | null): StoredCall[] {
  return (calls ?? []).filter((call): call is StoredCall => {
    const entry = call as Partial<StoredCall> | null;
    return typeof entry?.id === "string" && typeof entry.name === "string" &&
      typeof entry.arguments === "string";
  });
}

/** Whether a stored tool result reads as a failure (an error, a non-zero exit). */
function failureOf(content: string | null): string | null {
  if (!content) return null;
  try {
    const result = JSON.parse(content);
    if (typeof result?.error === "string") return result.error;
    if (typeof result?.exit_code === "number" && result.exit_code !== 0) {
      return `exit ${result.exit_code}`;
    }
  } catch {
    // Plain text: not a failure.
  }
  return null;
}

/**
 * The transcript items of stored `messages` (system messages left out);
 * `earlier` older messages not loaded are announced first.
 *
 * @example
 * ```ts
 * historyItems([{ id: 1, role: "user", content: "hi", ... }], 0); // [{ kind: "user", text: "hi" }]
 * ```
 */
export function historyItems(messages: MessageView[], earlier: number): NewItem[] {
  const items: NewItem[] = [];
  const tools = new Map<string, Omit<ToolItem, "id">>();
  if (earlier > 0) {
    items.push({
      kind: "notice",
      level: "info",
      text: `${earlier} earlier message${earlier === 1 ? "" : "s"} not shown (see Sessions).`,
    });
  }
  for (const message of messages) {
    if (message.role === "user") {
      items.push({ kind: "user", text: message.content ?? "" });
    } else if (message.role === "assistant") {
      if (message.content) {
        items.push({ kind: "assistant", text: message.content, streaming: false });
      }
      for (const call of storedCalls(message.tool_calls)) {
        const item: Omit<ToolItem, "id"> = {
          kind: "tool",
          callId: call.id,
          name: call.name,
          args: call.arguments,
          status: "ok",
        };
        tools.set(call.id, item);
        items.push(item);
      }
    } else if (message.role === "tool") {
      const item = message.tool_call_id ? tools.get(message.tool_call_id) : undefined;
      if (!item) continue;
      const failure = failureOf(message.content);
      item.status = failure === null ? "ok" : "failed";
      item.failure = failure;
      item.output = message.content ?? undefined;
    }
  }
  return items;
}
