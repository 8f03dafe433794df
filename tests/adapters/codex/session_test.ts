/**
 * The Codex turn runtime against the real `codex app-server` 0.169.0 and
 * the scripted Responses model: text, approvals (once, session, deny),
 * file changes, permission escalation, interrupt, the turn timeout, a 401,
 * Codex dying mid-turn, and the projected messages in the store.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CodexSession } from "../../../core/agent/codex_session.ts";
import { ModelError } from "../../../core/errors.ts";
import { createSessionSearchTool } from "../../../core/sessions/search_tool.ts";
import { appServerLauncher } from "../../../adapters/codex/app_server.ts";
import { pathExists } from "../../../adapters/fs/mod.ts";
import { codexBinary } from "../../codex_cli.ts";
import { REPO_ROOT, tempDir } from "../../_helpers.ts";
import { answerTo, codexRig, storedLines, wireMessages } from "./_rig.ts";

Deno.test("a text turn streams deltas, answers and stores the user's message once and the answer", async () => {
  await using rig = await codexRig();
  const result = await rig.send("hello there");
  assert.equal(result.response, "Echo: hello there");
  assert.equal(result.aborted, false);
  assert.equal(result.completed, undefined);
  const deltas = rig.events.filter((event) => event.type === "text");
  assert.ok(deltas.length > 1, "the answer arrives in several deltas");
  assert.deepEqual(storedLines(rig), ["user: hello there", "assistant: Echo: hello there"]);
  assert.equal(rig.store.getSession(rig.session.id!)?.source, "test");
});

Deno.test("a command approved once runs, and the call and its result are stored and searchable", async () => {
  await using rig = await codexRig({ choices: ["once"] });
  const result = await rig.send("RUN echo hi-from-codex > proof.txt");
  assert.equal(rig.asked.length, 1);
  assert.match(rig.asked[0].command, /echo hi-from-codex > proof\.txt/);
  assert.match(rig.asked[0].reason, new RegExp(`Codex requests exec in ${rig.work}`));
  assert.equal(rig.asked[0].ruleKey, "codex_exec:echo hi-from-codex > proof.txt");
  assert.equal(await Deno.readTextFile(join(rig.work, "proof.txt")), "hi-from-codex\n");
  assert.match(result.response, /^Done: /);
  assert.deepEqual(result.toolCalls.map((call) => [call.name, call.ok]), [["shell", true]]);
  const lines = storedLines(rig);
  assert.equal(lines[0], "user: RUN echo hi-from-codex > proof.txt");
  assert.match(lines[1], /^assistant: .*\[calls shell\]$/);
  assert.match(lines[2], /^tool shell: .*"status":"completed"/);
  assert.match(lines[lines.length - 1], /^assistant: Done: /);
  const types = rig.events.map((event) => event.type);
  assert.ok(types.indexOf("approval_request") < types.indexOf("approval_result"));
  assert.ok(types.includes("tool_start") && types.includes("tool_end"));

  const search = createSessionSearchTool(rig.store);
  const found = JSON.stringify(await search.run({ query: "hi-from-codex" }, {} as never));
  assert.match(found, new RegExp(rig.session.id!));
  assert.match(found, /proof\.txt/);
});

Deno.test("a command approved for the session runs; a denied one does not, and the model is told", async () => {
  await using rig = await codexRig({ choices: ["session", "deny"] });
  await rig.send("RUN echo session > session.txt");
  assert.equal(await Deno.readTextFile(join(rig.work, "session.txt")), "session\n");
  const denied = await rig.send("RUN echo denied > denied.txt");
  assert.equal(rig.asked.length, 2);
  assert.equal(await pathExists(join(rig.work, "denied.txt")), false);
  assert.deepEqual(denied.toolCalls.map((call) => [call.name, call.ok]), [["shell", false]]);
  assert.match(storedLines(rig).join("\n"), /tool shell: .*"status":"declined"/);
});

Deno.test("a file change asks with a summary of the files, and is written once approved", async () => {
  await using rig = await codexRig({
    choices: ["once"],
    session: { approvalPolicy: "untrusted" },
  });
  const result = await rig.send("PATCH notes.txt written-by-codex");
  assert.ok(rig.asked.length >= 1);
  const change = rig.asked.find((request) => request.ruleKey === "codex_file_change");
  assert.ok(change, `a file-change question: ${JSON.stringify(rig.asked)}`);
  assert.match(change.command, /1 add: .*notes\.txt/);
  assert.match(await Deno.readTextFile(join(rig.work, "notes.txt")), /written-by-codex/);
  assert.ok(result.toolCalls.some((call) => call.name === "apply_patch" && call.ok));
});

Deno.test("a permission escalation is declined without asking: an empty grant, and the model is told", async () => {
  await using rig = await codexRig({
    args: ["--enable", "request_permissions_tool"],
    choices: ["always"],
  });
  const target = join(rig.work, "..", "outside");
  await rig.send(`PERMS ${target}`);
  assert.deepEqual(rig.asked, []);
  assert.ok(
    rig.events.some((event) =>
      event.type === "notice" && event.code === "codex_permissions_declined"
    ),
  );
  const exchange = answerTo(rig.wire, "item/permissions/requestApproval");
  assert.deepEqual(exchange?.answer?.result, { permissions: {}, scope: "turn" });
  assert.match(
    JSON.stringify(rig.model.requests.at(-1)?.body),
    /\\"network\\":null,\\"file_system\\":null/,
  );
});

Deno.test("an interrupted turn ends at once with its partial text stored", async () => {
  await using rig = await codexRig();
  const controller = new AbortController();
  const turn = rig.send("SLOW", controller.signal);
  while (!rig.events.some((event) => event.type === "text")) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  controller.abort();
  const result = await turn;
  assert.equal(result.aborted, true);
  assert.ok(result.response.length > 0);
  const lines = storedLines(rig);
  assert.equal(lines.length, 2);
  assert.equal(lines[1], `assistant: ${result.response}`);
});

Deno.test("a turn past the timeout is interrupted and the error is stored", async () => {
  await using rig = await codexRig({ session: { turnTimeoutMs: 1_500 } });
  const result = await rig.send("HANG");
  assert.equal(result.completed, false);
  assert.match(result.response, /did not complete within 2 s and was interrupted/);
  assert.match(result.response, /\/codex-runtime auto/);
  assert.ok(
    rig.events.some((event) => event.type === "notice" && event.code === "codex_turn_timeout"),
  );
  assert.match(storedLines(rig).join("\n"), /assistant: \[The Codex turn did not complete/);
  assert.ok(
    wireMessages(rig.wire, "out").some((message) => message.method === "turn/interrupt"),
    "Codex was asked to stop the turn",
  );
  // Codex's late end of the stopped turn does not end the next one.
  const next = await rig.send("hello again");
  assert.equal(next.response, "Echo: hello again");
  assert.equal(next.aborted, false);
});

Deno.test("an upstream 401 is a clear model_auth error; the session stays usable", async () => {
  await using rig = await codexRig();
  await assert.rejects(() => rig.send("FAIL401"), (error: unknown) => {
    assert.ok(error instanceof ModelError);
    assert.equal(error.code, "model_auth");
    assert.equal(error.status, 401);
    assert.match(error.message, /401 Unauthorized/);
    assert.match(error.message, /codex login/);
    return true;
  });
  const next = await rig.send("still here");
  assert.equal(next.response, "Echo: still here");
});

Deno.test("Codex dying mid-turn ends the turn with what was done stored; the next turn starts it again", async () => {
  await using rig = await codexRig();
  const turn = rig.send("SLOW");
  while (!rig.events.some((event) => event.type === "text")) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await rig.connections[0].close();
  const result = await turn;
  assert.equal(result.completed, false);
  assert.match(result.response, /Codex stopped during the turn/);
  assert.match(result.response, /\/codex-runtime auto/);
  assert.ok(
    storedLines(rig).some((line) => line.startsWith("assistant: ")),
    "the partial text is stored",
  );
  const again = await rig.send("back again");
  assert.equal(again.response, "Echo: back again");
  assert.equal(rig.connections.length, 2);
});

Deno.test("Codex that cannot start gives a partial result telling how to switch back", async () => {
  await using rig = await codexRig({
    session: {
      launch: () =>
        Promise.reject(new Error('Cannot start "codex app-server": no such program on PATH')),
    },
  });
  const result = await rig.send("hello");
  assert.equal(result.completed, false);
  assert.match(result.response, /no such program on PATH/);
  assert.match(result.response, /\/codex-runtime auto/);
  assert.deepEqual(storedLines(rig), ["user: hello"]);
});

Deno.test("Herald's own tool server's call confirmation is accepted: the tool runs under Codex", async () => {
  await using herald = await tempDir("herald-codex-tools-");
  const command = [Deno.execPath(), "run", "-A", join(REPO_ROOT, "cli", "main.ts"), "mcp", "serve"];
  await using rig = await codexRig({
    home: {
      extra: [
        "[mcp_servers.herald]",
        `command = ${JSON.stringify(command[0])}`,
        `args = ${JSON.stringify(command.slice(1))}`,
        "startup_timeout_sec = 60",
        `env = { HERALD_HOME = ${JSON.stringify(herald.path)} }`,
      ].join("\n"),
    },
    session: { toolServerConfigured: () => Promise.resolve(true) },
  });
  await Deno.writeTextFile(join(rig.work, "hello.txt"), "the word is heron-42\n");
  const result = await rig.send('MCP mcp__herald read_file {"path":"hello.txt"}');
  const exchange = answerTo(rig.wire, "mcpServer/elicitation/request");
  const statuses = wireMessages(rig.wire, "in").filter((message) =>
    String(message.method).startsWith("mcpServer/startupStatus")
  );
  assert.equal(
    exchange?.params.serverName,
    "herald",
    `no confirmation asked; the server's start: ${
      JSON.stringify(statuses)
    }; answer: ${result.response}`,
  );
  assert.equal(
    (exchange?.params._meta as Record<string, unknown>)?.codex_approval_kind,
    "mcp_tool_call",
  );
  assert.deepEqual(exchange?.answer?.result, { action: "accept", content: {}, _meta: null });
  assert.match(storedLines(rig).join("\n"), /tool mcp_herald_read_file: .*heron-42/);
  assert.match(result.response, /^Done: /);
  assert.deepEqual(result.toolCalls.map((call) => [call.name, call.ok]), [[
    "mcp_herald_read_file",
    true,
  ]]);
  assert.deepEqual(rig.asked, [], "Herald's own server is not a question for the user");
});

Deno.test("a third-party server's elicitation is declined and the model is told", async () => {
  const everything = join(REPO_ROOT, "node_modules", ".bin", "mcp-server-everything");
  await using rig = await codexRig({
    home: {
      extra: [
        "[mcp_servers.everything]",
        `command = ${JSON.stringify(everything)}`,
        'args = ["stdio"]',
        "startup_timeout_sec = 60",
      ].join("\n"),
    },
  });
  await rig.send("MCP mcp__everything trigger_elicitation_request {}");
  assert.ok(
    rig.events.some((event) =>
      event.type === "notice" && event.code === "codex_elicitation_declined" &&
      event.message.includes('"everything"')
    ),
  );
  const exchange = answerTo(rig.wire, "mcpServer/elicitation/request");
  assert.equal(exchange?.params.serverName, "everything");
  assert.deepEqual(exchange?.answer?.result, { action: "decline", content: null, _meta: null });
  assert.match(JSON.stringify(rig.model.requests.at(-1)?.body), /declin/i);
});

Deno.test("a server request Herald does not handle is answered -32601 and the turn goes on", async () => {
  const wire: string[] = [];
  const program = await codexBinary();
  let calls = 0;
  await using rig = await codexRig({
    model: {
      script: () =>
        ++calls === 1
          ? { kind: "call", call: { name: "lookup_weather", arguments: { city: "Oslo" } } }
          : undefined,
    },
    session: {
      // A dynamic tool (an experimental part of the protocol) makes Codex send `item/tool/call`,
      // a server request Herald does not serve.
      launch: async (handler) => {
        const connection = await appServerLauncher({
          command: program,
          baseEnv: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
          env: home.env,
          cwd: work,
          trace: (direction, text) => wire.push(`${direction} ${text}`),
        })(handler);
        const request = connection.request.bind(connection);
        return {
          ...connection,
          request: (method, params, options) =>
            request(method, withDynamicTool(method, params), options),
        } as typeof connection;
      },
    },
  });
  const { home, work } = rig;
  const result = await rig.send("weather?");
  assert.match(result.response, /^Done: /);
  const exchange = answerTo(wire, "item/tool/call");
  assert.ok(exchange, "codex sent item/tool/call");
  assert.equal((exchange.answer?.error as Record<string, unknown>)?.code, -32601);
});

function withDynamicTool(method: string, params: Record<string, unknown>) {
  if (method === "initialize") return { ...params, capabilities: { experimentalApi: true } };
  if (method !== "thread/start") return params;
  return {
    ...params,
    dynamicTools: [{
      name: "lookup_weather",
      description: "The weather in a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    }],
  };
}

Deno.test("a resumed session goes on in its Codex thread, with a new app-server", async () => {
  await using rig = await codexRig();
  await rig.send("remember the word lantern");
  await rig.session.close();
  const resumed = await CodexSession.resume(rig.options, rig.session.id!);
  try {
    const result = await resumed.send("what was the word?");
    assert.equal(result.response, "Echo: what was the word?");
    assert.equal(rig.connections.length, 2);
    assert.match(JSON.stringify(rig.model.requests.at(-1)?.body), /remember the word lantern/);
    assert.deepEqual(storedLines(rig).length, 4);
  } finally {
    await resumed.close();
  }
});

Deno.test("a turn stopped before its id is known is still interrupted in Codex", async () => {
  await using rig = await codexRig();
  const controller = new AbortController();
  const turn = rig.send("SLOW", controller.signal);
  while (!wireMessages(rig.wire, "out").some((message) => message.method === "turn/start")) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  controller.abort();
  const result = await turn;
  assert.equal(result.aborted, true);
  assert.ok(wireMessages(rig.wire, "out").some((message) => message.method === "turn/interrupt"));
  const next = await rig.send("and now?");
  assert.equal(next.response, "Echo: and now?");
});

Deno.test("a question still open when the turn is interrupted is answered cancel", async () => {
  await using rig = await codexRig({
    session: {
      // A human who never answers: the question waits until the turn is stopped.
      approve: (_request, { signal }) =>
        new Promise((resolve) => signal.addEventListener("abort", () => resolve("deny"))),
    },
  });
  const controller = new AbortController();
  const turn = rig.send("RUN echo never > never.txt", controller.signal);
  while (!rig.events.some((event) => event.type === "approval_request")) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  controller.abort();
  const result = await turn;
  assert.equal(result.aborted, true);
  const exchange = answerTo(rig.wire, "item/commandExecution/requestApproval");
  assert.deepEqual(exchange?.answer?.result, { decision: "cancel" });
  assert.equal(await pathExists(join(rig.work, "never.txt")), false);
});

Deno.test("approval-required asks before every command, in a resumed session too", async () => {
  await using rig = await codexRig({
    choices: ["once", "once"],
    session: { approvalPolicy: "untrusted" },
  });
  await rig.send("RUN_PLAIN echo one > one.txt");
  assert.equal(rig.asked.length, 1);
  await rig.session.close();
  const resumed = await CodexSession.resume(rig.options, rig.session.id!);
  try {
    await resumed.send("RUN_PLAIN echo two > two.txt");
    assert.equal(rig.asked.length, 2, "the resumed thread asks too");
    assert.equal(await Deno.readTextFile(join(rig.work, "two.txt")), "two\n");
  } finally {
    await resumed.close();
  }
});

Deno.test("a session whose Codex thread is gone goes on in a new one, and says so", async () => {
  await using rig = await codexRig();
  await rig.send("first");
  await rig.session.close();
  await rig.options.threads.set(rig.session.id!, "01a20f00-0000-7000-8000-000000000000");
  const resumed = await CodexSession.resume(rig.options, rig.session.id!);
  const events: string[] = [];
  try {
    const result = await resumed.send("second", {
      onEvent: (event) => event.type === "notice" && events.push(event.code),
    });
    assert.equal(result.response, "Echo: second");
    assert.deepEqual(events, ["codex_thread_lost"]);
  } finally {
    await resumed.close();
  }
});
