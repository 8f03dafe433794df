import assert from "node:assert/strict";
import { createTodoTool } from "../../../core/tools/todo.ts";
import { type ToolContext, ToolError } from "../../../core/tools/types.ts";

function context(sessionId: string): ToolContext {
  return {
    sessionId,
    cwd: "/nonexistent",
    home: "/nonexistent",
    signal: new AbortController().signal,
    approve: () => Promise.resolve(false),
  };
}

Deno.test("todo with no arguments returns an empty list and summary", async () => {
  const todo = createTodoTool();
  assert.deepEqual(await todo.run({}, context("ses_a")), {
    todos: [],
    summary: { total: 0, pending: 0, in_progress: 0, completed: 0, cancelled: 0 },
  });
});

Deno.test("todo replaces the list by default and merges by id when asked", async () => {
  const todo = createTodoTool();
  const ctx = context("ses_a");
  await todo.run({
    todos: [
      { id: "1", content: "Read the code", status: "in_progress" },
      { id: "2", content: "Write tests" },
    ],
  }, ctx);
  const merged = await todo.run({
    todos: [
      { id: "1", status: "completed" },
      { id: "2", status: "in_progress" },
      { id: "3", content: "Ship it" },
    ],
    merge: true,
  }, ctx);
  assert.deepEqual(merged, {
    todos: [
      { id: "1", content: "Read the code", status: "completed" },
      { id: "2", content: "Write tests", status: "in_progress" },
      { id: "3", content: "Ship it", status: "pending" },
    ],
    summary: { total: 3, pending: 1, in_progress: 1, completed: 1, cancelled: 0 },
  });

  const replaced = await todo.run({ todos: [{ id: "x", content: "Only this" }] }, ctx);
  assert.deepEqual(replaced, {
    todos: [{ id: "x", content: "Only this", status: "pending" }],
    summary: { total: 1, pending: 1, in_progress: 0, completed: 0, cancelled: 0 },
  });
});

Deno.test("todo lists are kept per session", async () => {
  const todo = createTodoTool();
  await todo.run({ todos: [{ id: "1", content: "A" }] }, context("ses_a"));
  await todo.run({ todos: [{ id: "1", content: "B", status: "cancelled" }] }, context("ses_b"));
  assert.deepEqual(todo.list("ses_a"), [{ id: "1", content: "A", status: "pending" }]);
  assert.deepEqual(todo.list("ses_b"), [{ id: "1", content: "B", status: "cancelled" }]);
  todo.clear("ses_a");
  assert.deepEqual(todo.list("ses_a"), []);
  assert.equal(createTodoTool().list("ses_b").length, 0);
});

Deno.test("todo refuses a new item without content and leaves the list unchanged", async () => {
  const todo = createTodoTool();
  const ctx = context("ses_a");
  await todo.run({ todos: [{ id: "1", content: "A" }] }, ctx);
  await assert.rejects(
    todo.run({ todos: [{ id: "2", status: "completed" }], merge: true }, ctx),
    (error: unknown) =>
      error instanceof ToolError && error.code === "invalid_todo" && error.message.includes('"2"'),
  );
  await assert.rejects(todo.run({ todos: [{ id: "9" }] }, ctx), ToolError);
  assert.deepEqual(todo.list("ses_a"), [{ id: "1", content: "A", status: "pending" }]);
});

Deno.test("todo arguments are validated by the schema", () => {
  const todo = createTodoTool();
  assert.equal(todo.schema.safeParse({ todos: [{ id: "1", status: "done" }] }).success, false);
  assert.equal(todo.schema.safeParse({ todos: [{ id: "1", status: "completed" }] }).success, true);
});
