/**
 * Codex's thread items as Herald sees them. A completed item of a Codex
 * turn becomes the messages Herald's own loop would have stored for it (an
 * assistant text, or an assistant tool call followed by its result), so a
 * Codex session's history, `session_search` and resuming work as for any
 * other session. The user's own message is never projected: Herald stores
 * it before the turn starts, and Codex echoes it back as a `userMessage`.
 *
 * Item shapes: ../shared/reference/protocols.md A.7 (codex 0.169.0).
 *
 * @module
 */

import type { ChatMessage, ToolCall } from "../models/types.ts";
import { mcpToolName } from "../mcp/tools.ts";

/** A thread item as the app-server sends it (flat, with a `type`). */
export type CodexItem = Record<string, unknown> & { type: string; id: string };

/** A Codex item that is a tool call: its call as Herald records it and its result text. */
export interface ProjectedCall {
  call: ToolCall;
  /** The result as the model's history keeps it (JSON text). */
  result: string;
  /** False when the call failed or was declined. */
  ok: boolean;
  /** Why it failed from the user's point of view, or null. */
  failure: string | null;
}

/** Whether `value` looks like a thread item. */
export function isCodexItem(value: unknown): value is CodexItem {
  const item = value as CodexItem;
  return !!item && typeof item === "object" && typeof item.type === "string" &&
    typeof item.id === "string";
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The tool call an item stands for, as `tool_start` shows it; undefined for other items. */
export function itemCall(item: CodexItem): ToolCall | undefined {
  switch (item.type) {
    case "commandExecution":
      return {
        id: item.id,
        name: "shell",
        arguments: JSON.stringify({ command: text(item.command), cwd: text(item.cwd) }),
      };
    case "fileChange":
      return {
        id: item.id,
        name: "apply_patch",
        arguments: JSON.stringify({
          changes: fileChanges(item).map(({ path, kind }) => ({ path, kind })),
        }),
      };
    case "mcpToolCall":
      return {
        id: item.id,
        name: mcpToolName(text(item.server), text(item.tool)),
        arguments: typeof item.arguments === "string"
          ? item.arguments
          : JSON.stringify(item.arguments ?? {}),
      };
    case "dynamicToolCall":
      return {
        id: item.id,
        name: text(item.tool) || "dynamic_tool",
        arguments: JSON.stringify(item.arguments ?? {}),
      };
    case "webSearch":
      return { id: item.id, name: "web_search", arguments: JSON.stringify({ query: item.query }) };
    default:
      return undefined;
  }
}

/** One file of a `fileChange` item. */
export interface FileChange {
  path: string;
  kind: string;
  diff: string;
}

/** The files of a `fileChange` item (`changes[]`). */
export function fileChanges(item: CodexItem): FileChange[] {
  const changes = Array.isArray(item.changes) ? item.changes : [];
  return changes.map((change) => {
    const entry = change as Record<string, unknown>;
    const kind = (entry.kind as Record<string, unknown> | undefined)?.type;
    return { path: text(entry.path), kind: text(kind) || "update", diff: text(entry.diff) };
  });
}

/**
 * What an approval prompt shows for a file change: `1 add, 1 update:
 * /tmp/new.py, /tmp/old.py`; empty when the item is unknown.
 */
export function summariseFileChanges(changes: readonly FileChange[]): string {
  if (changes.length === 0) return "";
  const counts = new Map<string, number>();
  for (const change of changes) counts.set(change.kind, (counts.get(change.kind) ?? 0) + 1);
  const tally = [...counts].map(([kind, count]) => `${count} ${kind}`).join(", ");
  return `${tally}: ${changes.map((change) => change.path).join(", ")}`;
}

function statusFailure(status: string): string | null {
  if (status === "declined") return "declined";
  if (status === "failed") return "failed";
  return null;
}

/** The call and result of a completed tool-like item; undefined for other items. */
export function projectCall(item: CodexItem): ProjectedCall | undefined {
  const call = itemCall(item);
  if (!call) return undefined;
  const status = text(item.status);
  let result: Record<string, unknown>;
  let failure = statusFailure(status);
  switch (item.type) {
    case "commandExecution": {
      const exitCode = typeof item.exitCode === "number" ? item.exitCode : null;
      if (!failure && exitCode !== null && exitCode !== 0) failure = `exit ${exitCode}`;
      result = { status, exit_code: exitCode, output: text(item.aggregatedOutput) };
      break;
    }
    case "fileChange":
      result = { status, changes: fileChanges(item) };
      break;
    case "mcpToolCall": {
      const error = item.error as Record<string, unknown> | null | undefined;
      if (error) failure = text(error.message) || failure || "failed";
      result = { status, result: item.result ?? null, ...(error ? { error } : {}) };
      break;
    }
    default:
      result = { status, ...item };
  }
  return { call, result: JSON.stringify(result), ok: failure === null, failure };
}

/**
 * The messages a turn's completed items stand for, in order: agent texts as
 * assistant messages, tool calls as an assistant call (carrying the text
 * just before it, as one model answer would) and the tool's result.
 * `userMessage`, reasoning and plan items are left out.
 */
export function projectItems(items: readonly CodexItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const item of items) {
    if (item.type === "agentMessage") {
      const content = text(item.text);
      if (content !== "") messages.push({ role: "assistant", content });
      continue;
    }
    const projected = projectCall(item);
    if (!projected) continue;
    const last = messages[messages.length - 1];
    if (last?.role === "assistant" && !last.toolCalls?.length) {
      messages[messages.length - 1] = { ...last, toolCalls: [projected.call] };
    } else {
      messages.push({ role: "assistant", content: null, toolCalls: [projected.call] });
    }
    messages.push({
      role: "tool",
      toolCallId: projected.call.id,
      name: projected.call.name,
      content: projected.result,
      ...(projected.ok ? {} : { isError: true }),
    });
  }
  return messages;
}
