/**
 * The turn loop against the scripted model server over HTTP, with a real
 * SQLite store and the built-in tools.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { AgentSession, type AgentSessionOptions } from "../../../core/agent/session.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { defineTool } from "../../../core/tools/types.ts";
import { createModelClient } from "../../../adapters/models/mod.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { builtinTools } from "../../../adapters/tools/mod.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { tempDir } from "../../_helpers.ts";
import { z } from "zod";

function setup(dir: string, baseUrl: string, overrides: Partial<AgentSessionOptions> = {}) {
  const store = openStateStore(join(dir, "state.db"));
  const options: AgentSessionOptions = {
    client: createModelClient({ provider: "custom", model: "m", baseUrl, maxRetries: 0 }),
    store,
    tools: new ToolRegistry(builtinTools()),
    approve: () => Promise.resolve("deny"),
    cwd: dir,
    // A home of its own, as in real use: the file tools refuse to write a Herald home.
    home: join(dir, ".herald-home"),
    source: "test",
    systemPrompt: "You are a test.\n",
    maxTurns: 10,
    verifyFileMutations: true,
    dumpRequests: false,
    ...overrides,
  };
  return { store, options };
}

Deno.test("an abort mid-stream stops the turn and stores the partial answer", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [{ text: "partial words here", chunkSize: 3, hang: "mid-stream" }],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl);
  try {
    const session = AgentSession.start(options);
    const controller = new AbortController();
    let streamed = "";
    const result = await session.send("start", {
      signal: controller.signal,
      onEvent(event) {
        if (event.type === "text") {
          streamed += event.delta;
          if (streamed === "partial words here") controller.abort();
        }
      },
    });
    assert.equal(result.aborted, true);
    assert.equal(result.response, "partial words here");
    const messages = store.getMessages(result.sessionId);
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [
      ["user", "start"],
      ["assistant", "partial words here"],
    ]);
  } finally {
    store.close();
  }
});

Deno.test("the loop stops after agent.max_turns model calls and says so", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: Array.from({ length: 3 }, () => ({ toolCalls: [{ name: "todo", arguments: {} }] })),
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl, { maxTurns: 3 });
  try {
    const result = await AgentSession.start(options).send("loop");
    assert.equal(result.hitMaxTurns, true);
    assert.equal(result.modelCalls, 3);
    assert.match(result.response, /Stopped after 3 model calls: agent\.max_turns is 3/);
    assert.equal(server.requests.length, 3);
  } finally {
    store.close();
  }
});

Deno.test("independent tool calls run in parallel and results keep the call order", async () => {
  await using dir = await tempDir();
  const log: string[] = [];
  const slow = defineTool({
    name: "slow",
    description: "waits",
    schema: z.object({ label: z.string(), ms: z.number() }),
    readOnly: true,
    async run(args) {
      log.push(`start ${args.label}`);
      await new Promise((resolve) => setTimeout(resolve, args.ms));
      log.push(`end ${args.label}`);
      return { label: args.label };
    },
  });
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [
          { name: "slow", arguments: { label: "a", ms: 60 } },
          { name: "slow", arguments: { label: "b", ms: 10 } },
        ],
      },
      { text: "done" },
    ],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl, {
    tools: new ToolRegistry([slow]),
  });
  try {
    const result = await AgentSession.start(options).send("go");
    assert.deepEqual(log, ["start a", "start b", "end b", "end a"]);
    const tools = store.getMessages(result.sessionId).filter((m) => m.role === "tool");
    assert.deepEqual(tools.map((m) => JSON.parse(m.content!).label), ["a", "b"]);
  } finally {
    store.close();
  }
});

Deno.test("writes to the same file run in call order", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "f.txt", content: "first" } },
          { name: "write_file", arguments: { path: "f.txt", content: "second" } },
        ],
      },
      { text: "done" },
    ],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl);
  try {
    await AgentSession.start(options).send("write twice");
    assert.equal(await Deno.readTextFile(join(dir.path, "f.txt")), "second");
  } finally {
    store.close();
  }
});

Deno.test("an approval for the session is asked once and reused for the same targets only", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "a"));
  await Deno.mkdir(join(dir.path, "b"));
  let asked = 0;
  await using server = await startModelServer({
    replies: [
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf a" } }] },
      // The same rule and target: covered by the session approval.
      { toolCalls: [{ name: "terminal", arguments: { command: "mkdir a && rm -rf a/" } }] },
      // Another target: asked again.
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf b" } }] },
      { text: "cleaned" },
    ],
  });
  const { store, options } = setup(dir.path, server.openaiBaseUrl, {
    approve: () => {
      asked++;
      return Promise.resolve("session");
    },
  });
  try {
    const result = await AgentSession.start(options).send("clean both");
    assert.equal(result.response, "cleaned");
    assert.equal(asked, 2);
    await assert.rejects(() => Deno.stat(join(dir.path, "a")), Deno.errors.NotFound);
    await assert.rejects(() => Deno.stat(join(dir.path, "b")), Deno.errors.NotFound);
  } finally {
    store.close();
  }
});

Deno.test("a resumed session sends its stored system prompt, not a new one", async () => {
  await using dir = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "one" }, { text: "two" }] });
  const { store, options } = setup(dir.path, server.openaiBaseUrl);
  try {
    const first = await AgentSession.start(options).send("hello");
    const resumed = AgentSession.resume(
      { ...options, systemPrompt: "A different prompt.\n" },
      first.sessionId,
    );
    await resumed.send("again");
    const systems = server.requests.map((r) =>
      (r.body as { messages: { role: string; content: string }[] }).messages[0].content
    );
    assert.deepEqual(systems, ["You are a test.\n", "You are a test.\n"]);
    assert.throws(
      () => AgentSession.resume(options, "ses_missing"),
      /Session "ses_missing" not found/,
    );
  } finally {
    store.close();
  }
});
