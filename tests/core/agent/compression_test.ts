/**
 * Context compression's pure parts: where the cut falls, how tool calls and
 * results stay paired, the note's role, stored checkpoints mapped back onto
 * a rebuilt history, token estimates and context windows.
 */

import assert from "node:assert/strict";
import {
  compactedMessages,
  type Compaction,
  compactionFromRecord,
  contextWindowResolver,
  DEFAULT_CONTEXT_LENGTH,
  knownContextLength,
  planCompaction,
  reportedTokens,
  summaryBudget,
  summaryPrompt,
} from "../../../core/agent/compression.ts";
import { historyEntriesFromStored, pairToolMessages } from "../../../core/agent/history.ts";
import type { ChatMessage } from "../../../core/models/types.ts";
import type { StoredMessage } from "../../../core/sessions/store.ts";

const user = (content: string): ChatMessage => ({ role: "user", content });
const answer = (content: string): ChatMessage => ({ role: "assistant", content });
const call = (...ids: string[]): ChatMessage => ({
  role: "assistant",
  content: null,
  toolCalls: ids.map((id) => ({ id, name: "read_file", arguments: `{"path":"${id}"}` })),
});
const result = (id: string, content = `contents of ${id}`): ChatMessage => ({
  role: "tool",
  toolCallId: id,
  name: "read_file",
  content,
});

/** Asserts every tool result follows its call and every call has its result. */
function assertPaired(messages: readonly ChatMessage[]): void {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === "tool") {
      assert.ok(open.delete(message.toolCallId), `orphan result ${message.toolCallId}`);
      continue;
    }
    assert.equal(open.size, 0, `calls without results: ${[...open]}`);
    if (message.role === "assistant") {
      for (const toolCall of message.toolCalls ?? []) open.add(toolCall.id);
    }
  }
  assert.equal(open.size, 0, `calls without results: ${[...open]}`);
}

Deno.test("the cut keeps the first and last messages and never separates a call from its results", () => {
  const history = [
    user("start"),
    call("a"),
    result("a"),
    answer("read a"),
    user("more"),
    call("b", "c"),
    result("b"),
    result("c"),
    answer("done"),
  ];
  // protect_first 2 ends inside the first call's group: the head takes its result too.
  // protect_last 3 starts on a result: the tail moves back to the call.
  const plan = planCompaction(history, undefined, { protectFirst: 2, protectLast: 3 });
  assert.deepEqual(plan, { headEnd: 3, tailStart: 5, middleStart: 3 });
  const compaction: Compaction = { ...plan!, summary: "## Goal\nread files", summarisedCount: 2 };
  const sent = compactedMessages(history, compaction, { sessionId: "ses_x" });
  assertPaired(sent);
  assert.deepEqual(sent.map((m) => m.role), [
    "user",
    "assistant",
    "tool",
    "user",
    "assistant",
    "tool",
    "tool",
    "assistant",
  ]);
  assert.match(
    String(sent[3].content),
    /^\[Context compaction\] 2 earlier messages were summarised/,
  );
  assert.match(String(sent[3].content), /session_search with session_id "ses_x"/);
  assert.match(String(sent[3].content), /## Goal\nread files$/);
});

Deno.test("nothing is planned when head and tail leave nothing between them", () => {
  const history = [user("a"), answer("b"), user("c"), answer("d")];
  assert.equal(planCompaction(history, undefined, { protectFirst: 2, protectLast: 2 }), undefined);
  assert.equal(planCompaction([], undefined, { protectFirst: 3, protectLast: 20 }), undefined);
  const plan = planCompaction(history, undefined, { protectFirst: 1, protectLast: 1 });
  assert.deepEqual(plan, { headEnd: 1, tailStart: 3, middleStart: 1 });
  // Compressed before up to the same tail: nothing new.
  assert.equal(
    planCompaction(history, { headEnd: 1, tailStart: 3 }, { protectFirst: 1, protectLast: 1 }),
    undefined,
  );
});

Deno.test("a second compression summarises only what came after the previous tail", () => {
  const history = [
    user("a"),
    answer("b"),
    user("c"),
    answer("d"),
    user("e"),
    answer("f"),
    user("g"),
  ];
  const plan = planCompaction(history, { headEnd: 1, tailStart: 3 }, {
    protectFirst: 1,
    protectLast: 2,
  });
  assert.deepEqual(plan, { headEnd: 1, tailStart: 5, middleStart: 3 });
  const prompt = summaryPrompt(history, plan!, {
    previousSummary: "## Goal\nold",
    maxChars: 10_000,
    maxTokens: 1_024,
  });
  assert.match(prompt.prompt, /<previous-summary>\n## Goal\nold\n<\/previous-summary>/);
  assert.match(prompt.prompt, /\[user\]\ne\n/);
  assert.doesNotMatch(prompt.prompt, /\[user\]\nc\n/);
  assert.match(prompt.system, /## Goal[\s\S]*## Progress[\s\S]*## Key Decisions/);
  assert.match(prompt.system, /## Relevant Files[\s\S]*## Next Steps/);
  assert.equal(prompt.maxTokens, 1_024);
});

Deno.test("a token budget shrinks the tail but keeps at least the last exchange", () => {
  const big = "x".repeat(4_000);
  const history = [user("a"), answer("b"), user(big), call("t"), result("t", big), answer("c")];
  const plan = planCompaction(history, undefined, {
    protectFirst: 1,
    protectLast: 10,
    tailTokens: 500,
  });
  // 10 protected would reach back to the head; the budget keeps only the last answer.
  assert.deepEqual(plan, { headEnd: 1, tailStart: 5, middleStart: 1 });
  const tight = planCompaction(history.slice(0, 5), undefined, {
    protectFirst: 1,
    protectLast: 10,
    tailTokens: 1,
  });
  // The last message is a result: the tail starts at its call.
  assert.deepEqual(tight, { headEnd: 1, tailStart: 3, middleStart: 1 });
});

Deno.test("the note takes the role that does not repeat its neighbour's", () => {
  const note = (history: ChatMessage[], headEnd: number, tailStart: number) =>
    compactedMessages(history, { headEnd, tailStart, summary: "s", summarisedCount: 1 })[headEnd]
      .role;
  // No head: the conversation opens with the user.
  assert.equal(note([user("a"), answer("b"), user("c"), user("d")], 0, 3), "user");
  // After an answer: the user's turn.
  assert.equal(note([user("a"), answer("b"), user("c"), user("d")], 2, 3), "user");
  // Between two user-side messages: the assistant's.
  assert.equal(note([user("a"), answer("b"), answer("c"), user("d")], 1, 3), "assistant");
  assert.equal(note([user("a"), call("t"), result("t"), user("d")], 3, 3 + 0), "assistant");
  // Between a user message and an answer one side repeats; the user's, so the answer still follows.
  assert.equal(note([user("a"), user("b"), answer("c"), user("d")], 1, 2), "user");
});

Deno.test("orphan tool results are dropped and calls without results get a stub", () => {
  const paired = pairToolMessages([
    user("a"),
    result("lost"),
    call("x", "y"),
    result("y"),
    user("b"),
  ], "result not available");
  assertPaired(paired);
  assert.deepEqual(paired.map((m) => m.role === "tool" ? `tool:${m.toolCallId}` : m.role), [
    "user",
    "assistant",
    "tool:y",
    "tool:x",
    "user",
  ]);
  const stub = paired[3] as Extract<ChatMessage, { role: "tool" }>;
  assert.equal(JSON.parse(stub.content).code, "interrupted");
});

Deno.test("a stored checkpoint maps back onto the rebuilt history by message id", () => {
  const rows: StoredMessage[] = [
    row(10, "user", "start"),
    row(11, "assistant", null, [{ id: "a", name: "read_file", arguments: "{}" }]),
    // The result of call a was never stored: a synthetic one follows with id 11.
    row(12, "user", "next"),
    row(13, "assistant", "reply"),
    row(14, "user", "last"),
  ];
  const entries = historyEntriesFromStored(rows);
  assert.deepEqual(entries.map((entry) => entry.id), [10, 11, 11, 12, 13, 14]);
  const record = {
    id: 1,
    sessionId: "ses_x",
    headThroughId: 11,
    tailFromId: 13,
    summary: "s",
    summarisedCount: 1,
    createdAt: 0,
  };
  assert.deepEqual(compactionFromRecord(entries, record), {
    headEnd: 3,
    tailStart: 4,
    summary: "s",
    summarisedCount: 1,
  });
  assert.equal(compactionFromRecord(entries, { ...record, tailFromId: 99 }), undefined);
  assert.equal(compactionFromRecord(entries, { ...record, tailFromId: 11 }), undefined);
});

function row(
  id: number,
  role: StoredMessage["role"],
  content: string | null,
  toolCalls: unknown[] | null = null,
): StoredMessage {
  return {
    id,
    sessionId: "ses_x",
    role,
    content,
    toolCalls,
    toolCallId: null,
    toolName: null,
    timestamp: 0,
  };
}

Deno.test("the provider's usage counts when reported; Anthropic adds its cached prompt tokens", () => {
  const usage = {
    inputTokens: 1_000,
    outputTokens: 50,
    cacheReadTokens: 4_000,
    cacheWriteTokens: 0,
  };
  assert.equal(reportedTokens(usage, "openai"), 1_050);
  assert.equal(reportedTokens(usage, "custom"), 1_050);
  assert.equal(reportedTokens(usage, "anthropic"), 5_050);
  assert.equal(reportedTokens({ ...usage, inputTokens: 0 }, "openai"), undefined);
});

Deno.test("context windows: config wins, known families next, else the default with one warning per model", () => {
  assert.equal(knownContextLength("anthropic/claude-sonnet-4"), 200_000);
  assert.equal(knownContextLength("gpt-4o-mini"), 128_000);
  assert.equal(knownContextLength("my-local-model"), undefined);
  assert.deepEqual(contextWindowResolver(32_000)("my-local-model"), {
    tokens: 32_000,
    source: "config",
  });
  const windowOf = contextWindowResolver();
  assert.deepEqual(windowOf("claude-opus-4"), { tokens: 200_000, source: "known" });
  const first = windowOf("my-local-model");
  assert.equal(first.tokens, DEFAULT_CONTEXT_LENGTH);
  assert.match(
    first.warning!,
    /"my-local-model" is unknown; assuming 128,000 tokens.*model\.context_length/,
  );
  assert.equal(windowOf("my-local-model").warning, undefined);
  assert.ok(windowOf("another-model").warning);
});

Deno.test("the summary budget is a quarter of what it replaces, within bounds", () => {
  assert.equal(summaryBudget(100, 128_000), 1_024);
  assert.equal(summaryBudget(20_000, 128_000), 5_000);
  assert.equal(summaryBudget(200_000, 128_000), 8_192);
  assert.equal(summaryBudget(20_000, 2_000), 500);
});
