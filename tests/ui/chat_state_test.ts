/**
 * The Chat page's view state without a browser: how `/api/ws`
 * notifications become transcript items, and what a tool block reads
 * from a call's arguments and result.
 */

import assert from "node:assert/strict";
import {
  type ChatAction,
  chatReducer,
  type ChatState,
  emptyChat,
  type ToolItem,
} from "../../server/ui/src/pages/chat/chat_state.ts";
import { fileEdit, outputPreview, toolTarget } from "../../server/ui/src/pages/chat/tool_view.ts";
import { historyItems } from "../../server/ui/src/pages/chat/history.ts";
import { matchCompletions, slashQuery } from "../../server/ui/src/pages/chat/slash.ts";

function note(method: string, params: Record<string, unknown> = {}): ChatAction {
  return { type: "notification", method, params };
}

function run(...actions: ChatAction[]): ChatState {
  return actions.reduce(chatReducer, emptyChat());
}

function shape(state: ChatState): string[] {
  return state.items.map((item) =>
    item.kind === "assistant"
      ? `assistant:${item.text}${item.error ? `!${item.error}` : ""}`
      : item.kind === "tool"
      ? `tool:${item.name}:${item.status}`
      : item.kind === "notice"
      ? `notice:${item.text}`
      : `${item.kind}:${item.text}`
  );
}

Deno.test("an answer is split around its tool calls and a notice stays out of the streaming text", () => {
  const state = run(
    { type: "user", text: "hi" },
    note("message.start", { session_id: "ses_1" }),
    note("message.delta", { text: "Let me " }),
    note("notice", { level: "warning", message: "careful" }),
    note("message.delta", { text: "look." }),
    note("tool.start", { tool_call_id: "c1", name: "terminal", arguments: '{"command":"ls"}' }),
    note("tool.complete", { tool_call_id: "c1", name: "terminal", ok: true, failure: null }),
    note("message.delta", { text: "Done." }),
    note("message.complete", { response: "Done.", aborted: false }),
  );
  assert.deepEqual(shape(state), [
    "user:hi",
    "notice:careful",
    "assistant:Let me look.",
    "tool:terminal:ok",
    "assistant:Done.",
  ]);
  assert.equal(state.running, false);
  assert.ok(state.items.every((item) => item.kind !== "assistant" || !item.streaming));
});

Deno.test("a failed call shows its failure, a failed turn its error in the bubble", () => {
  const state = run(
    note("message.start"),
    note("tool.start", { tool_call_id: "c1", name: "terminal", arguments: "{}" }),
    note("tool.complete", { tool_call_id: "c1", name: "terminal", ok: true, failure: "exit 1" }),
    note("message.error", { code: "model_error", message: "The model is unreachable" }),
  );
  const tool = state.items[0] as ToolItem;
  assert.equal(tool.status, "failed");
  assert.equal(tool.failure, "exit 1");
  assert.deepEqual(shape(state).at(-1), "assistant:!The model is unreachable");
  assert.equal(state.running, false);
});

Deno.test("a write's old text arrives with tool.complete, so its diff shows once the write went", () => {
  const args = '{"path":"a.txt","content":"new\\n"}';
  const started = run(
    note("message.start"),
    note("tool.start", { tool_call_id: "w1", name: "write_file", arguments: args, before: "x" }),
  );
  const running = started.items[0] as ToolItem;
  assert.equal(running.before, undefined, "tool.start carries no old text");
  assert.equal(fileEdit(running), null);
  const done = chatReducer(
    started,
    note("tool.complete", { tool_call_id: "w1", name: "write_file", ok: true, before: "old\n" }),
  );
  assert.deepEqual(fileEdit(done.items[0] as ToolItem), {
    path: "a.txt",
    before: "old\n",
    after: "new\n",
    created: false,
  });
});

Deno.test("an approval question is held until answered or expired, and an aborted turn says so", () => {
  const asked = run(
    note("message.start"),
    note("approval.request", { id: "apr_1", tool: "terminal", command: "rm -rf x", reason: "r" }),
  );
  assert.equal(asked.approval?.command, "rm -rf x");
  const expired = chatReducer(asked, note("approval.expire", { id: "apr_1" }));
  assert.equal(expired.approval, null);
  assert.match(shape(expired).at(-1)!, /expired unanswered/);
  const stopped = chatReducer(asked, note("message.complete", { response: "", aborted: true }));
  assert.equal(stopped.approval, null);
  assert.match(shape(stopped).at(-1)!, /Stopped/);
});

Deno.test("/exit --delete and /clear outcomes read as they should", () => {
  const exited = run({
    type: "outcome",
    outcome: { kind: "exit", text: "Leaving.", session_id: "ses_9", deleted: true },
  });
  assert.deepEqual(shape(exited), ["notice:Session ses_9 was closed and deleted."]);
  const cleared = run(
    { type: "user", text: "old" },
    { type: "outcome", outcome: { kind: "new_session", text: "New session.", clear: true } },
  );
  assert.deepEqual(shape(cleared), ["notice:New session."]);
});

Deno.test("a tool block finds the key argument, the file edit and the output", () => {
  assert.equal(toolTarget("terminal", '{"command":"npm test","timeout":5}'), "npm test");
  assert.equal(toolTarget("read_file", '{"path":"a.ts","offset":3}'), "a.ts");
  assert.equal(toolTarget("mcp_thing", '{"n":1,"q":"find"}'), "find");
  const base: ToolItem = { kind: "tool", id: 1, callId: "c", name: "", args: "", status: "ok" };
  assert.deepEqual(
    fileEdit({ ...base, name: "patch", args: '{"path":"a","old_string":"x","new_string":"y"}' }),
    { path: "a", before: "x", after: "y", created: false },
  );
  assert.deepEqual(
    fileEdit({ ...base, name: "write_file", args: '{"path":"n","content":"c"}', before: null }),
    { path: "n", before: "", after: "c", created: true },
  );
  assert.equal(fileEdit({ ...base, name: "write_file", args: '{"path":"n","content":"c"}' }), null);
  const out = outputPreview({
    ...base,
    name: "terminal",
    output: '{"exit_code":1,"stdout":"a\\nb\\n","stderr":"boom\\n"}',
  });
  assert.deepEqual(out, { text: "a\nb\nboom", label: "Output: exit 1, 3 lines" });
  assert.deepEqual(
    outputPreview({ ...base, name: "terminal", output: '{"exit_code":0,"stdout":""}' }),
    { text: "", label: "No output (exit 0)" },
  );
});

Deno.test("stored messages become user lines, answers and tool calls with their results", () => {
  const items = historyItems([
    {
      id: 1,
      role: "user",
      content: "q",
      tool_calls: null,
      tool_call_id: null,
      tool_name: null,
      timestamp: 1,
    },
    {
      id: 2,
      role: "assistant",
      content: null,
      tool_calls: [{ id: "t1", name: "terminal", arguments: '{"command":"false"}' }],
      tool_call_id: null,
      tool_name: null,
      timestamp: 1,
    },
    {
      id: 3,
      role: "tool",
      content: '{"exit_code":1}',
      tool_calls: null,
      tool_call_id: "t1",
      tool_name: "terminal",
      timestamp: 1,
    },
    {
      id: 4,
      role: "assistant",
      content: "a",
      tool_calls: null,
      tool_call_id: null,
      tool_name: null,
      timestamp: 1,
    },
  ], 5);
  const state = run({ type: "reset", items });
  assert.deepEqual(shape(state), [
    "notice:5 earlier messages not shown (see Sessions).",
    "user:q",
    "tool:terminal:failed",
    "assistant:a",
  ]);
});

Deno.test("the autocomplete opens on a command name being typed and filters by prefix", () => {
  assert.equal(slashQuery("/"), "");
  assert.equal(slashQuery("/my_b"), "my_b");
  assert.equal(slashQuery("/my-bundle go"), null);
  assert.equal(slashQuery("hello /x"), null);
  const entries = [
    { name: "help", description: "", kind: "command" as const, marker: "›" },
    { name: "my-bundle", description: "B (2 skills)", kind: "bundle" as const, marker: "▣" },
  ];
  assert.deepEqual(matchCompletions(entries, "my_b").map((e) => e.name), ["my-bundle"]);
  assert.equal(matchCompletions(entries, "").length, 2);
});
