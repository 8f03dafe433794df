/**
 * The tool-loop guardrail: counting identical failing calls, the warning
 * the model gets, and the turn loop stopping an unattended session, against
 * the scripted model server with a real SQLite store.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { LoopGuard, withLoopWarning } from "../../../core/agent/loop_guard.ts";
import { AgentSession, type AgentSessionOptions } from "../../../core/agent/session.ts";
import type { AgentEvent } from "../../../core/agent/turn_runtime.ts";
import type { ToolCall } from "../../../core/models/types.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { defineTool, ToolError } from "../../../core/tools/types.ts";
import { createModelClient } from "../../../adapters/models/mod.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { tempDir } from "../../_helpers.ts";

const call = (args: string, id = "c"): ToolCall => ({ id, name: "fetch", arguments: args });

Deno.test("the guard fires on the Nth identical failure in a row and not otherwise", () => {
  const guard = new LoopGuard(3);
  const fail = (args: string, result = '{"error":"down"}') =>
    guard.record(call(args), false, result, "down")?.count;
  assert.equal(fail('{"url":"a","n":1}'), undefined);
  // Key order does not make another call.
  assert.equal(fail('{"n":1,"url":"a"}'), undefined);
  assert.equal(fail('{"url":"a","n":1}'), 3);
  assert.equal(fail('{"url":"a","n":1}'), 4);
  // Other arguments, another failure, or a success start again.
  assert.equal(fail('{"url":"b","n":1}'), undefined);
  assert.equal(fail('{"url":"b","n":1}', '{"error":"other"}'), undefined);
  assert.equal(fail('{"url":"b","n":1}', '{"error":"other"}'), undefined);
  guard.record(call('{"url":"b","n":1}'), true, "{}", "");
  assert.equal(fail('{"url":"b","n":1}', '{"error":"other"}'), undefined);
  // 0 turns it off.
  const off = new LoopGuard(0);
  for (let i = 0; i < 5; i++) assert.equal(off.record(call("{}"), false, "x", "x"), undefined);
});

Deno.test("the warning is a field of a JSON result and a paragraph after any other", () => {
  const streak = { call: call("{}"), count: 3, message: "down" };
  const json = JSON.parse(withLoopWarning('{"error":"down","code":"x"}', streak));
  assert.equal(json.error, "down");
  assert.match(json.loop_warning, /fetch call has now failed the same way 3 times in a row/);
  assert.match(withLoopWarning("plain text", streak), /^plain text\n\n\[This exact fetch call/);
});

const fetchTool = defineTool({
  name: "fetch",
  description: "fetches a URL",
  schema: z.object({ url: z.string() }),
  readOnly: true,
  run: (args) => Promise.reject(new ToolError("unreachable", `Cannot reach ${args.url}`)),
});

function setup(dir: string, baseUrl: string, overrides: Partial<AgentSessionOptions> = {}) {
  const store = openStateStore(join(dir, "state.db"));
  const options: AgentSessionOptions = {
    client: createModelClient({ provider: "custom", model: "m", baseUrl, maxRetries: 0 }),
    store,
    tools: new ToolRegistry([fetchTool]),
    approve: () => Promise.resolve("deny"),
    cwd: dir,
    home: join(dir, ".herald-home"),
    source: "test",
    systemPrompt: "You are a test.\n",
    maxTurns: 10,
    verifyFileMutations: false,
    dumpRequests: false,
    ...overrides,
  };
  return { store, options };
}

const sameCall = { toolCalls: [{ name: "fetch", arguments: { url: "http://down.test" } }] };

function toolResults(body: unknown): Record<string, unknown>[] {
  return (body as { messages: { role: string; content: string }[] }).messages
    .filter((m) => m.role === "tool")
    .map((m) => JSON.parse(m.content));
}

Deno.test("a model repeating a failing call is warned on the third failure and the turn goes on", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [sameCall, sameCall, sameCall, { text: "I cannot reach it." }],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl);
  try {
    const events: AgentEvent[] = [];
    const result = await AgentSession.start(options).send("fetch it", {
      onEvent: (event) => void events.push(event),
    });
    assert.equal(result.response, "I cannot reach it.");
    assert.equal(result.stopped, undefined);
    const results = toolResults(server.requests[3].body);
    assert.deepEqual(results.map((r) => r.loop_warning === undefined), [true, true, false]);
    assert.match(String(results[2].loop_warning), /Do not repeat it/);
    assert.equal(results[2].error, "Cannot reach http://down.test");
    const notices = events.filter((e) => e.type === "notice");
    assert.deepEqual(notices.map((e) => (e as { code: string }).code), ["tool_loop"]);
  } finally {
    store.close();
  }
});

Deno.test("an unattended session stops the turn at the third identical failure and says why", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [sameCall, sameCall, sameCall, { text: "never sent" }],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl, { unattended: true });
  try {
    const result = await AgentSession.start(options).send("fetch it");
    assert.equal(server.requests.length, 3);
    assert.equal(server.pendingReplies, 1);
    assert.deepEqual(result.stopped, {
      code: "tool_loop",
      message: "Stopped: the fetch call failed the same way 3 times in a row " +
        "(Cannot reach http://down.test), and nobody is watching this run to step in.",
    });
    assert.match(result.response, /^\(Stopped: the fetch call failed the same way 3 times/);
    assert.equal(result.hitMaxTurns, false);
    // The warned result is stored, so a resumed session tells the model too.
    const stored = store.getMessages(result.sessionId).filter((m) => m.role === "tool");
    assert.equal(stored.length, 3);
    assert.match(JSON.parse(stored[2].content!).loop_warning, /failed the same way 3 times/);
  } finally {
    store.close();
  }
});

Deno.test("agent.loop_guard sets the streak length, and 0 never stops", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [sameCall, sameCall, sameCall, sameCall, sameCall, sameCall, { text: "ok" }],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl, { unattended: true });
  try {
    const two = await AgentSession.start({ ...options, loopGuard: 2 }).send("fetch");
    assert.equal(two.stopped?.code, "tool_loop");
    assert.equal(server.requests.length, 2);
    const off = await AgentSession.start({ ...options, loopGuard: 0 }).send("fetch");
    assert.equal(off.stopped, undefined);
    assert.equal(off.response, "ok");
    const results = toolResults(server.requests[6].body);
    assert.equal(results.length, 4);
    assert.ok(results.every((r) => r.loop_warning === undefined));
  } finally {
    store.close();
  }
});
