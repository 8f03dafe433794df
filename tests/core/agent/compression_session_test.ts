/**
 * Context compression in the turn loop, against the scripted model server
 * over HTTP with a real SQLite store: a session that outgrows a small
 * context is compressed and goes on under the same id, every request keeps
 * tool calls and results paired, the stored history stays whole, a resumed
 * session sends the checkpoint, a failed summary is reported and `/compact`
 * works on demand.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { type CompressionOptions, contextWindowResolver } from "../../../core/agent/compression.ts";
import { Conversation, type ConversationResult } from "../../../core/agent/conversation.ts";
import { AgentSession, type AgentSessionOptions } from "../../../core/agent/session.ts";
import type { AgentEvent } from "../../../core/agent/turn_runtime.ts";
import { defaultConfig } from "../../../core/config/schema.ts";
import { callAuxiliary } from "../../../core/models/auxiliary.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { defineTool } from "../../../core/tools/types.ts";
import { createProfile } from "../../../adapters/home/mod.ts";
import { createModelClient } from "../../../adapters/models/mod.ts";
import { openAgentRuntime } from "../../../adapters/runtime/agent_runtime.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { type RecordedRequest, startModelServer } from "../../fakes/model_server.ts";
import { configureModel } from "../../e2e/_herald.ts";
import { tempDir } from "../../_helpers.ts";

type WireMessage = {
  role: string;
  content: string | null;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
};

function sent(request: RecordedRequest): WireMessage[] {
  return (request.body as { messages: WireMessage[] }).messages;
}

/** Asserts a request sends every tool result after its call and every call with its result. */
function assertPaired(request: RecordedRequest): void {
  const open = new Set<string>();
  for (const message of sent(request)) {
    if (message.role === "tool") {
      assert.ok(open.delete(message.tool_call_id!), `orphan tool result ${message.tool_call_id}`);
      continue;
    }
    assert.equal(open.size, 0, `tool calls without results: ${[...open]}`);
    for (const call of message.tool_calls ?? []) open.add(call.id);
  }
  assert.equal(open.size, 0, `tool calls without results: ${[...open]}`);
}

const lookup = defineTool({
  name: "lookup",
  description: "looks a key up",
  schema: z.object({ key: z.string() }),
  readOnly: true,
  run: (args) => Promise.resolve({ key: args.key, value: `value of ${args.key}` }),
});

function setup(
  dir: string,
  baseUrl: string,
  compression: Partial<CompressionOptions> = {},
  overrides: Partial<AgentSessionOptions> = {},
) {
  const store = openStateStore(join(dir, "state.db"));
  const main = { provider: "custom", model: "m", baseUrl, maxRetries: 0 };
  const options: AgentSessionOptions = {
    client: createModelClient(main),
    store,
    compactions: store,
    tools: new ToolRegistry([lookup]),
    approve: () => Promise.resolve("deny"),
    cwd: dir,
    home: join(dir, ".herald-home"),
    source: "test",
    systemPrompt: "You are a test.\n",
    maxTurns: 10,
    verifyFileMutations: false,
    dumpRequests: false,
    compression: {
      enabled: true,
      threshold: 0.5,
      protectFirst: 2,
      protectLast: 2,
      contextWindow: contextWindowResolver(4_000),
      summarize: (prompt, model) =>
        callAuxiliary(createModelClient, defaultConfig(), () => undefined, "compression", prompt, {
          ...main,
          model,
        }),
      ...compression,
    },
    ...overrides,
  };
  return { store, options };
}

const SUMMARY = "## Goal\nLook up k1 and k2.\n## Progress\n### Done\nk1 found.";

Deno.test("a session that outgrows a small context is compressed, goes on and keeps its id", async () => {
  await using dir = await tempDir();
  // A 4,000-token window with threshold 0.5: compression starts above 2,000 tokens.
  await using server = await startModelServer({
    replies: [
      { text: "Noted.", usage: { input: 500, output: 10 } },
      {
        toolCalls: [{ name: "lookup", arguments: { key: "k1" } }],
        usage: { input: 900, output: 10 },
      },
      { text: "k1 found.", usage: { input: 1_400, output: 10 } },
      {
        toolCalls: [{ name: "lookup", arguments: { key: "k2" } }],
        usage: { input: 1_800, output: 10 },
      },
      { text: "k2 found.", usage: { input: 2_100, output: 10 } },
      { text: SUMMARY },
      { text: "All done." },
    ],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl);
  try {
    const session = AgentSession.start(options);
    const events: AgentEvent[] = [];
    const onEvent = (event: AgentEvent) => void events.push(event);
    const ids = new Set<string>();
    for (const text of ["Remember the plan.", "Look up k1.", "Now k2."]) {
      ids.add((await session.send(text, { onEvent })).sessionId);
    }
    assert.equal(server.requests.length, 5);
    assert.deepEqual(events.filter((e) => e.type === "compressed"), []);

    const last = await session.send("Sum it up.", { onEvent });
    ids.add(last.sessionId);
    assert.deepEqual([...ids], [session.id]);
    assert.equal(last.response, "All done.");
    const compressed = events.filter((e) => e.type === "compressed");
    assert.equal(compressed.length, 1);
    assert.match(
      (compressed[0] as { message: string }).message,
      /^Context compressed: 7 earlier messages are now a summary \(about \d[\d,]* → \d[\d,]* tokens\)/,
    );

    // The summary request: the compression prompt, no tools, the middle's messages.
    const summary = server.requests[5];
    assert.equal((summary.body as { tools?: unknown }).tools, undefined);
    assert.match(String(sent(summary)[0].content), /## Goal[\s\S]*## Next Steps/);
    assert.match(String(sent(summary)[1].content), /\[user\]\nLook up k1\./);
    assert.doesNotMatch(String(sent(summary)[1].content), /Remember the plan/);

    // The next request: system, the first two messages, the note, the last two.
    const after = sent(server.requests[6]);
    assert.deepEqual(after.map((m) => m.role), [
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    assert.equal(after[1].content, "Remember the plan.");
    assert.match(String(after[3].content), new RegExp(`in session ${session.id} \\(message ids`));
    assert.ok(String(after[3].content).endsWith(SUMMARY));
    assert.equal(after[4].content, "k2 found.");
    assert.equal(after[5].content, "Sum it up.");
    for (const request of server.requests) assertPaired(request);

    // Everything stays stored, and the checkpoint points into it.
    const stored = store.getMessages(session.id!);
    assert.equal(stored.length, 12);
    assert.deepEqual(stored.map((m) => m.content).slice(0, 3), [
      "Remember the plan.",
      "Noted.",
      "Look up k1.",
    ]);
    const checkpoint = store.latestCompaction(session.id!)!;
    assert.equal(checkpoint.headThroughId, stored[1].id);
    assert.equal(checkpoint.tailFromId, stored[9].id);
    assert.equal(checkpoint.summarisedCount, 7);

    // A resumed session sends what the live one sent, and the stored text is still searchable.
    server.enqueue({ text: "Resumed." });
    await AgentSession.resume(options, session.id!).send("Go on.");
    const resumed = sent(server.requests[7]);
    assert.deepEqual(
      resumed.slice(0, 4).map((m) => m.content),
      after.slice(0, 4).map((m) => m.content),
    );
    assert.equal(resumed.length, after.length + 2);
    const hits = store.searchHits("k1", { roles: ["user"], order: "oldest", candidates: 10 });
    assert.deepEqual(hits.map((hit) => hit.messageId), [stored[2].id]);
  } finally {
    store.close();
  }
});

Deno.test("without usage from the provider the size is estimated from the characters", async () => {
  await using dir = await tempDir();
  const long = "word ".repeat(1_800); // about 2,250 tokens: over the 2,000 at once
  const none = { input: 0, output: 0 };
  await using server = await startModelServer({
    replies: [
      { text: "one", usage: none },
      { text: "two", usage: none },
      { text: SUMMARY, usage: none },
      { text: "three", usage: none },
    ],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl);
  try {
    const session = AgentSession.start(options);
    const events: AgentEvent[] = [];
    for (const text of ["first", `second ${long}`, "third"]) {
      await session.send(text, { onEvent: (event) => void events.push(event) });
    }
    // The second turn is too big already, but its message is the protected tail: nothing
    // to summarise until the third turn.
    assert.equal(events.filter((e) => e.type === "compressed").length, 1);
    assert.match(String(sent(server.requests[2])[1].content), /\[user\]\nsecond word/);
    assert.deepEqual(sent(server.requests[3]).map((m) => m.content?.slice(0, 20)), [
      "You are a test.\n",
      "first",
      "one",
      "[Context compaction]",
      "two",
      "third",
    ]);
  } finally {
    store.close();
  }
});

Deno.test("a failed summary is reported once and the turn goes on with the whole history", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [
      { text: "Noted.", usage: { input: 500, output: 10 } },
      { text: "Sure.", usage: { input: 900, output: 10 } },
      { text: "Right.", usage: { input: 2_500, output: 10 } },
      { status: 500, message: "summariser down", headers: { "x-should-retry": "false" } },
      { toolCalls: [{ name: "lookup", arguments: { key: "k" } }] },
      { text: "Done anyway." },
    ],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl);
  try {
    const session = AgentSession.start(options);
    for (const text of ["a", "b", "c"]) await session.send(text);
    const events: AgentEvent[] = [];
    const result = await session.send("d", { onEvent: (event) => void events.push(event) });
    assert.equal(result.response, "Done anyway.");
    const notices = events.filter((e) => e.type === "notice");
    assert.equal(notices.length, 1);
    assert.equal((notices[0] as { code: string }).code, "compression_failed");
    assert.match((notices[0] as { message: string }).message, /Context compression failed/);
    // One summary attempt; both model calls of the turn send the whole history.
    assert.equal(server.requests.length, 6);
    assert.equal(sent(server.requests[4]).length, 8);
    assert.equal(sent(server.requests[5]).length, 10);
    assert.equal(store.latestCompaction(result.sessionId), undefined);
  } finally {
    store.close();
  }
});

function replyText(result: ConversationResult): string {
  assert.equal(result.kind, "reply");
  return (result as { text: string }).text;
}

Deno.test("/compact summarises on demand with the compression slot, and says when there is nothing to do", async () => {
  await using root = await tempDir();
  await using server = await startModelServer({
    replies: [
      { text: "hi" },
      { text: "ok" },
      { text: "## Goal\nsay hello" },
      { text: "still here" },
    ],
  });
  const paths = await createProfile(root.path, "work", { bundledSkills: false });
  await configureModel(
    paths.home,
    server.openaiBaseUrl,
    "compression:\n  protect_first: 1\n  protect_last: 1\n" +
      "auxiliary:\n  compression:\n    model: summary-model\n",
  );
  const runtime = await openAgentRuntime(paths, {
    safeMode: false,
    source: "test",
    cwd: root.path,
    env: { PATH: Deno.env.get("PATH") },
    approvals: {},
    onWarning: (file, message) => assert.fail(`${file}: ${message}`),
  });
  const conversation = await Conversation.open({ runtime });
  try {
    const events: AgentEvent[] = [];
    const onEvent = (event: AgentEvent) => void events.push(event);
    assert.match(
      replyText(await conversation.input("/compact", { onEvent })),
      /^Nothing to compact yet/,
    );
    await conversation.input("hello", { onEvent });
    assert.match(replyText(await conversation.input("/compact")), /^Nothing to compact yet/);
    await conversation.input("more", { onEvent });
    const done = replyText(await conversation.input("/compress the greeting", { onEvent }));
    assert.match(done, /^Context compressed: 2 earlier messages are now a summary/);
    assert.equal(conversation.busy, false);

    const summary = server.requests[2];
    assert.equal((summary.body as { model: string }).model, "summary-model");
    assert.match(String(sent(summary)[1].content), /Pay particular attention to: the greeting$/);
    await conversation.input("and now?", { onEvent });
    const next = sent(server.requests[3]);
    assert.deepEqual(next.map((m) => m.content?.slice(0, 20)), [
      next[0].content!.slice(0, 20),
      "hello",
      "[Context compaction]",
      "ok",
      "and now?",
    ]);
    // The model's context length is unknown: one warning, at the first turn.
    const notices = events.filter((e) => e.type === "notice");
    assert.deepEqual(notices.map((e) => (e as { code: string }).code), ["context_length_unknown"]);
    assert.deepEqual(events.filter((e) => e.type === "compressed"), []);
  } finally {
    await conversation.close();
  }
});
