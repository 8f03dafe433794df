/**
 * The `todo` tool: a per-session task list the model keeps while it works.
 * It lives in memory only; each session has its own list.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type Tool, type ToolContext, ToolError } from "./types.ts";

/** Status of one todo item. */
export type TodoStatus = "pending" | "in_progress" | "completed" | "cancelled";

/** One item of a session's todo list. */
export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
}

/** Counts per status, returned with every call. */
export interface TodoSummary {
  total: number;
  pending: number;
  in_progress: number;
  completed: number;
  cancelled: number;
}

const STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;

const todoArgs = z.object({
  todos: z.array(
    z.object({
      id: z.string().min(1).describe('Stable identifier of the item, e.g. "1" or "tests".'),
      content: z.string().optional().describe(
        "What to do. Required for a new item; may be left out when merging a status change.",
      ),
      status: z.enum(STATUSES).optional().describe(
        "pending, in_progress, completed or cancelled. Defaults to pending for a new item.",
      ),
    }).describe("One todo item."),
  ).optional().describe("Items to write. Leave out to read the current list."),
  merge: z.boolean().optional().describe(
    "true: update items with matching ids and append new ones. false (default): replace the whole list.",
  ),
});

/** Arguments of the `todo` tool. */
export type TodoArgs = z.infer<typeof todoArgs>;

/** Result of the `todo` tool. */
export interface TodoResult {
  todos: TodoItem[];
  summary: TodoSummary;
}

/** The `todo` tool plus read access to each session's list (for prompts and compaction). */
export interface TodoTool extends Tool<TodoArgs> {
  /** Reads or updates the session's list. */
  run(args: TodoArgs, context: ToolContext): Promise<TodoResult>;
  /** A copy of the session's current list (empty when it has none). */
  list(sessionId: string): TodoItem[];
  /** Forgets the session's list. */
  clear(sessionId: string): void;
}

/**
 * Creates a `todo` tool whose lists are kept per `sessionId`.
 *
 * @example
 * ```ts
 * const todo = createTodoTool();
 * await todo.run({ todos: [{ id: "1", content: "Write tests", status: "in_progress" }] }, ctx);
 * await todo.run({ todos: [{ id: "1", status: "completed" }], merge: true }, ctx);
 * ```
 */
export function createTodoTool(): TodoTool {
  const lists = new Map<string, TodoItem[]>();
  const tool = defineTool({
    name: "todo",
    description: "Keep a task list for the current session. Call with no arguments to read it. " +
      "Pass `todos` to replace the whole list, or `todos` with `merge: true` to update items by id " +
      "and append new ones. Mark one item in_progress at a time and mark items completed as you finish them.",
    schema: todoArgs,
    run: (args, context): Promise<TodoResult> =>
      Promise.resolve().then(() => {
        const current = lists.get(context.sessionId) ?? [];
        if (args.todos === undefined) return result(current);
        const next = args.merge ? mergeTodos(current, args.todos) : replaceTodos(args.todos);
        lists.set(context.sessionId, next);
        return result(next);
      }),
  });
  return {
    ...tool,
    run: tool.run as TodoTool["run"],
    list: (sessionId) => (lists.get(sessionId) ?? []).map((item) => ({ ...item })),
    clear: (sessionId) => void lists.delete(sessionId),
  };
}

type TodoInput = NonNullable<TodoArgs["todos"]>[number];

function replaceTodos(input: TodoInput[]): TodoItem[] {
  const byId = new Map<string, TodoItem>();
  for (const item of input) {
    if (item.content === undefined || item.content.trim() === "") {
      throw new ToolError(
        "invalid_todo",
        `Todo "${item.id}" has no content; give every item a content when replacing the list, ` +
          "or set merge to true to change only its status",
      );
    }
    byId.set(item.id, { id: item.id, content: item.content, status: item.status ?? "pending" });
  }
  return [...byId.values()];
}

function mergeTodos(current: TodoItem[], input: TodoInput[]): TodoItem[] {
  const next = current.map((item) => ({ ...item }));
  const index = new Map(next.map((item, i) => [item.id, i]));
  for (const item of input) {
    const at = index.get(item.id);
    if (at !== undefined) {
      const existing = next[at];
      if (item.content !== undefined && item.content.trim() !== "") existing.content = item.content;
      if (item.status !== undefined) existing.status = item.status;
      continue;
    }
    if (item.content === undefined || item.content.trim() === "") {
      throw new ToolError(
        "invalid_todo",
        `Todo "${item.id}" does not exist yet and has no content; give it a content to add it`,
      );
    }
    index.set(item.id, next.length);
    next.push({ id: item.id, content: item.content, status: item.status ?? "pending" });
  }
  return next;
}

function result(todos: TodoItem[]): TodoResult {
  const summary: TodoSummary = {
    total: todos.length,
    pending: 0,
    in_progress: 0,
    completed: 0,
    cancelled: 0,
  };
  for (const item of todos) summary[item.status]++;
  return { todos: todos.map((item) => ({ ...item })), summary };
}
