/**
 * `herald chat` end to end: the real program as a subprocess, a real state
 * database, and the scripted model server over HTTP.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";
import { configureModel, runHerald } from "./_herald.ts";

type Body = {
  messages: { role: string; content: unknown; tool_calls?: unknown }[];
  tools?: unknown;
};

function body(request: { body: unknown }): Body {
  return request.body as Body;
}

function toolResults(request: { body: unknown }): Record<string, unknown>[] {
  return body(request).messages.filter((m) => m.role === "tool").map((m) =>
    JSON.parse(String(m.content))
  );
}

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) names.push(entry.name);
  return names.sort();
}

Deno.test("a model that writes a file and answers: file, tool result, answer and stored messages all exact", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  const content = "héllo 👋\r\nline with trailing spaces   \r\n\tend";
  const answer = "Done ✅ — wrote notes.txt  ";
  await using server = await startModelServer({
    replies: [
      { toolCalls: [{ name: "write_file", arguments: { path: "out/notes.txt", content } }] },
      { text: answer },
    ],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  const run = await runHerald({
    args: ["chat", "-q", "write my notes 📝  ", "--json"],
    home: home.path,
    cwd: work.path,
  });
  assert.equal(run.code, 0, run.stderr);
  const printed = JSON.parse(run.stdout);
  assert.equal(printed.response, answer);
  assert.deepEqual(printed.tool_calls.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [
    ["write_file", true],
  ]);

  assert.equal(await Deno.readTextFile(join(work.path, "out", "notes.txt")), content);
  assert.equal(server.requests.length, 2);
  const [result] = toolResults(server.requests[1]);
  assert.equal(result.bytes_written, new TextEncoder().encode(content).length);
  assert.ok(Number.isInteger(result.bytes_written));
  assert.equal((result.lint as { status: string }).status, "skipped");

  const store = openStateStore(join(home.path, "state.db"));
  try {
    const session = store.getSession(printed.session_id)!;
    assert.equal(session.source, "cli");
    assert.equal(session.model, "test-model");
    assert.equal(session.title, "write my notes 📝");
    const messages = store.getMessages(printed.session_id);
    assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
    assert.equal(messages[0].content, "write my notes 📝  ");
    const call = (messages[1].toolCalls as { name: string; arguments: string }[])[0];
    assert.equal(call.name, "write_file");
    assert.equal(JSON.parse(call.arguments).content, content);
    assert.equal(messages[2].toolName, "write_file");
    assert.equal(JSON.parse(messages[2].content!).bytes_written, result.bytes_written);
    assert.equal(messages[3].content, answer);
    assert.equal(session.messageCount, 4);
    assert.equal(session.toolCallCount, 1);
    assert.equal(session.apiCallCount, 2);
  } finally {
    store.close();
  }
  const transcript = await Deno.readTextFile(
    join(home.path, "sessions", `${printed.session_id}.jsonl`),
  );
  assert.equal(transcript.trim().split("\n").length, 4);
});

Deno.test("one-shot chat prints only the final answer on stdout", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    replies: [{ text: "Thinking first.", toolCalls: [{ name: "todo", arguments: {} }] }, {
      text: "The answer.",
    }],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  const run = await runHerald({ args: ["chat", "-q", "question"], home: home.path });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "The answer.\n");
});

Deno.test("writing invalid JSON gives lint status error with the parser's message", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [{ name: "write_file", arguments: { path: "bad.json", content: '{"a": 1,,}' } }],
      },
      { text: "ok" },
    ],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  const run = await runHerald({ args: ["chat", "-q", "go"], home: home.path, cwd: work.path });
  assert.equal(run.code, 0, run.stderr);
  const [result] = toolResults(server.requests[1]);
  const lint = result.lint as { status: string; output: string };
  assert.equal(lint.status, "error");
  assert.ok(lint.output.length > 0);
  assert.ok(!("lsp_diagnostics" in result));
});

Deno.test("a failed patch never superseded is in the footer; a superseded one is not", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await Deno.writeTextFile(join(work.path, "a.txt"), "alpha\n");
  await Deno.writeTextFile(join(work.path, "b.txt"), "beta\n");
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [
          { name: "patch", arguments: { path: "a.txt", old_string: "missing", new_string: "x" } },
          { name: "patch", arguments: { path: "b.txt", old_string: "missing", new_string: "x" } },
        ],
      },
      {
        toolCalls: [{
          name: "patch",
          arguments: { path: "b.txt", old_string: "beta", new_string: "BETA" },
        }],
      },
      { text: "Finished." },
    ],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  const run = await runHerald({ args: ["chat", "-q", "edit"], home: home.path, cwd: work.path });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^Finished\.\n\n---\nNote: 1 file change failed/);
  assert.ok(run.stdout.includes(join(work.path, "a.txt")));
  assert.ok(!run.stdout.includes(join(work.path, "b.txt")));
  assert.equal(await Deno.readTextFile(join(work.path, "b.txt")), "BETA\n");
});

Deno.test("/exit --delete removes the session's rows, transcript and request dumps", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "hello there" }] });
  await configureModel(home.path, server.openaiBaseUrl, "agent:\n  dump_requests: true\n");
  const run = await runHerald({ args: ["chat"], home: home.path, stdin: "hi\n/exit --delete\n" });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /hello there/);
  assert.equal(server.requests.length, 1);
  const store = openStateStore(join(home.path, "state.db"));
  try {
    assert.deepEqual(store.listSessions(), []);
  } finally {
    store.close();
  }
  assert.deepEqual(await listDir(join(home.path, "sessions")), []);
  assert.deepEqual(await listDir(join(home.path, "request-dumps")), []);
});

Deno.test("plain /exit keeps the session, and its request dumps exist", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "kept" }] });
  await configureModel(home.path, server.openaiBaseUrl, "agent:\n  dump_requests: true\n");
  const run = await runHerald({ args: ["chat"], home: home.path, stdin: "hi\n/EXIT\n" });
  assert.equal(run.code, 0, run.stderr);
  assert.equal((await listDir(join(home.path, "sessions"))).length, 1);
  assert.equal((await listDir(join(home.path, "request-dumps"))).length, 1);
});

Deno.test("/exit with an unknown argument prints a hint and the next line is still answered", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "first" }, { text: "second" }] });
  await configureModel(home.path, server.openaiBaseUrl);
  const run = await runHerald({
    args: ["chat"],
    home: home.path,
    stdin: "one\n/exit --bogus\ntwo\n",
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /first\n.*Unknown argument "--bogus" for \/exit.*\nsecond\n/s);
  assert.equal(server.requests.length, 2);
});

Deno.test("the request prefix is byte-identical across the turns of a session, also when resumed", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    replies: [
      { text: "one" },
      { toolCalls: [{ name: "todo", arguments: {} }] },
      { text: "two" },
      { text: "three" },
    ],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  const first = await runHerald({ args: ["chat"], home: home.path, stdin: "a\nb\n" });
  assert.equal(first.code, 0, first.stderr);
  const store = openStateStore(join(home.path, "state.db"));
  const [session] = store.listSessions();
  store.close();
  const resumed = await runHerald({
    args: ["chat", "--resume", session.id],
    home: home.path,
    stdin: "c\n",
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(server.requests.length, 4);
  const encoded = server.requests.map((request) => body(request));
  for (let i = 1; i < encoded.length; i++) {
    const previous = encoded[i - 1];
    const current = encoded[i];
    assert.equal(JSON.stringify(current.tools), JSON.stringify(previous.tools));
    assert.equal(
      JSON.stringify(current.messages.slice(0, previous.messages.length)),
      JSON.stringify(previous.messages),
      `request ${i + 1} does not extend request ${i}`,
    );
  }
});

Deno.test("a non-interactive run denies a dangerous command and the file survives", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await Deno.mkdir(join(work.path, "keep"));
  await using server = await startModelServer({
    replies: [{ toolCalls: [{ name: "terminal", arguments: { command: "rm -rf keep" } }] }, {
      text: "ok",
    }],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  const run = await runHerald({ args: ["chat", "-q", "clean"], home: home.path, cwd: work.path });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /denied terminal command/);
  assert.ok((await Deno.stat(join(work.path, "keep"))).isDirectory);
  const [result] = toolResults(server.requests[1]);
  assert.equal(result.code, "denied");
});

Deno.test("plugins transform the answer after the footer, and --safe-mode skips them", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(
    join(home.path, "shout.ts"),
    "export function transform_llm_output(text: string) { return `<<${text}>>`; }\n",
  );
  await using server = await startModelServer({ replies: [{ text: "hi" }, { text: "hi" }] });
  await configureModel(home.path, server.openaiBaseUrl, "plugins:\n  - shout.ts\n");
  const withPlugin = await runHerald({ args: ["chat", "-q", "x"], home: home.path });
  assert.equal(withPlugin.stdout, "<<hi>>\n", withPlugin.stderr);
  const safe = await runHerald({
    args: [
      "--safe-mode",
      "chat",
      "-q",
      "x",
      "--provider",
      "custom",
      "--base-url",
      server.openaiBaseUrl,
      "-m",
      "m",
    ],
    home: home.path,
  });
  assert.equal(safe.stdout, "hi\n", safe.stderr);
});

Deno.test("chat against an Anthropic endpoint works the same", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await using server = await startModelServer({
    replies: [
      { toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] },
      { text: "anthropic done" },
    ],
  });
  await configureModel(home.path, server.anthropicBaseUrl, "", "anthropic");
  const run = await runHerald({
    args: ["chat", "-q", "go"],
    home: home.path,
    cwd: work.path,
    env: { ANTHROPIC_API_KEY: "sk-ant-test" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "anthropic done\n");
  assert.equal(await Deno.readTextFile(join(work.path, "x.txt")), "x");
  assert.equal(server.requests[0].path, "/v1/messages");
});

Deno.test("an unconfigured model is a one-line error saying what to run", async () => {
  await using home = await tempDir();
  const run = await runHerald({ args: ["chat", "-q", "hi"], home: home.path });
  assert.equal(run.code, 2);
  assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  assert.match(run.stderr, /herald config set model/);
});

Deno.test("sessions list, show, export and delete work on stored chats", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "stored answer" }] });
  await configureModel(home.path, server.openaiBaseUrl);
  const chat = await runHerald({
    args: ["chat", "-q", "remember this", "--json"],
    home: home.path,
  });
  const id = JSON.parse(chat.stdout).session_id;
  const list = JSON.parse(
    (await runHerald({ args: ["sessions", "list", "--json"], home: home.path })).stdout,
  );
  assert.deepEqual(list.map((s: { id: string }) => s.id), [id]);
  const shown = JSON.parse(
    (await runHerald({ args: ["sessions", "show", id, "--json"], home: home.path })).stdout,
  );
  assert.deepEqual(shown.messages.map((m: { content: string }) => m.content), [
    "remember this",
    "stored answer",
  ]);
  const exported = JSON.parse(
    (await runHerald({ args: ["sessions", "export", id], home: home.path })).stdout,
  );
  assert.equal(exported.format, "herald.session.v1");
  const deleted = await runHerald({
    args: ["sessions", "delete", id, "--yes", "--json"],
    home: home.path,
  });
  assert.deepEqual(JSON.parse(deleted.stdout), { deleted: id, files: 1 });
  const missing = await runHerald({ args: ["sessions", "show", id], home: home.path });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Session ".*" not found/);
});

Deno.test("the model can find an earlier session with session_search, but not the live one", async () => {
  await using home = await tempDir();
  await using server = await startModelServer({
    replies: [
      { text: "Noted: pelican." },
      { toolCalls: [{ name: "session_search", arguments: { query: "pelican" } }] },
      { text: "You told me about the pelican before." },
    ],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  const first = await runHerald({
    args: ["chat", "-q", "the code word is pelican", "--json"],
    home: home.path,
  });
  const earlier = JSON.parse(first.stdout).session_id;
  const second = await runHerald({
    args: ["chat", "-q", "what was the pelican thing?", "--json"],
    home: home.path,
  });
  assert.equal(second.code, 0, second.stderr);
  const [result] = toolResults(server.requests[2]);
  const hits =
    (result as { results: { session_id: string; messages: { content: string }[] }[] }).results;
  assert.deepEqual(hits.map((hit) => hit.session_id), [earlier]);
  assert.equal(hits[0].messages[0].content, "the code word is pelican");
});

Deno.test("the agent cannot write credentials, secrets or Herald's home, nor outside the write root", async () => {
  await using root = await tempDir();
  const userHome = join(root.path, "user");
  const heraldHome = join(userHome, ".herald");
  const work = join(root.path, "project");
  const protectedFiles: Record<string, string> = {
    [join(userHome, ".ssh", "authorized_keys")]: "ssh-ed25519 AAAA me@laptop\n",
    [join(work, ".env")]: "DATABASE_URL=postgres://u:p@db/app\n",
    [join(heraldHome, ".env")]: "OPENAI_API_KEY=sk-test-kept\n",
  };
  for (const [path, text] of Object.entries(protectedFiles)) {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  const outside = join(root.path, "elsewhere", "notes.md");
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "~/.ssh/authorized_keys", content: "evil" } },
          { name: "write_file", arguments: { path: ".env", content: "STOLEN=1" } },
          {
            name: "patch",
            arguments: { path: join(heraldHome, ".env"), old_string: "sk", new_string: "xx" },
          },
          { name: "write_file", arguments: { path: outside, content: "x" } },
          { name: "write_file", arguments: { path: "src/ok.ts", content: "export {};\n" } },
        ],
      },
      { text: "tried" },
    ],
  });
  await configureModel(heraldHome, server.openaiBaseUrl);
  const before = await Deno.readTextFile(join(heraldHome, "config.yaml"));
  const run = await runHerald({
    args: ["chat", "-q", "go"],
    home: heraldHome,
    cwd: work,
    env: { HOME: userHome, HERALD_WRITE_SAFE_ROOT: work },
  });
  assert.equal(run.code, 0, run.stderr);
  const results = toolResults(server.requests[1]).map((r) => String(r.error ?? r.path));
  assert.match(
    results[0],
    /Write denied: .*authorized_keys" is protected \(it is a credential folder\)/,
  );
  assert.match(results[1], /Write denied: .*\.env" is protected \(a \.env file holds secrets\)/);
  assert.match(results[2], /Write denied: .*\.env" is protected/);
  assert.match(results[3], /outside the write root/);
  assert.equal(results[4], join(work, "src", "ok.ts"));
  for (const [path, text] of Object.entries(protectedFiles)) {
    assert.equal(await Deno.readTextFile(path), text, path);
  }
  assert.equal(await Deno.readTextFile(join(heraldHome, "config.yaml")), before);
  await assert.rejects(Deno.stat(outside), Deno.errors.NotFound);
});

/** Asserts a request sends every tool result after its call and every call with its result. */
function assertNoOrphans(request: { body: unknown }, label: string): void {
  const open = new Set<string>();
  type Sent = Body["messages"][number] & { tool_call_id?: string };
  for (const message of body(request).messages as Sent[]) {
    if (message.role === "tool") {
      assert.ok(open.delete(String(message.tool_call_id)), `${label}: orphan tool result`);
      continue;
    }
    assert.equal(open.size, 0, `${label}: tool calls without results`);
    for (const call of (message.tool_calls ?? []) as { id: string }[]) open.add(call.id);
  }
  assert.equal(open.size, 0, `${label}: tool calls without results`);
}

Deno.test("a session that outgrows its context is compressed, keeps its id, and its early text stays findable", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await Deno.writeTextFile(join(work.path, "notes.txt"), "ship it on friday\n");
  // The usage the scripted model reports grows past half of a 20,000-token window.
  await using server = await startModelServer({
    replies: [
      { text: "Noted.", usage: { input: 3_000, output: 10 } },
      {
        toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }],
        usage: { input: 3_200, output: 10 },
      },
      { text: "The notes say: ship it on friday.", usage: { input: 5_000, output: 10 } },
      { toolCalls: [{ name: "todo", arguments: {} }], usage: { input: 6_000, output: 10 } },
      { text: "Nothing pending.", usage: { input: 10_500, output: 10 } },
      { text: "## Goal\nShip on friday.\n## Next Steps\nShip." },
      { text: "Ship it." },
    ],
  });
  await configureModel(
    home.path,
    server.openaiBaseUrl,
    "  context_length: 20000\ncompression:\n  protect_first: 2\n  protect_last: 2\n",
  );
  const lines = [
    "Remember the plan.",
    "Read notes.txt; the code word is flamingo.",
    "Check the todo list.",
    "What now?",
  ];
  const run = await runHerald({
    args: ["chat"],
    home: home.path,
    cwd: work.path,
    stdin: lines.map((line) => `${line}\n`).join(""),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /^herald: Context compressed: 7 earlier messages are now a summary \(about [\d,]+ → [\d,]+ tokens\); the full history stays stored\.$/m,
  );
  assert.match(run.stdout, /Ship it\.\n$/);
  assert.equal(server.requests.length, 7);

  const store = openStateStore(join(home.path, "state.db"));
  let sessionId: string;
  let codeWordMessage: number;
  try {
    const sessions = store.listSessions();
    assert.equal(sessions.length, 1);
    sessionId = sessions[0].id;
    const messages = store.getMessages(sessionId);
    assert.equal(messages.length, 12, "every message stays stored");
    codeWordMessage = messages.find((m) => m.content === lines[1])!.id;
  } finally {
    store.close();
  }

  // The summary request covers the middle; the next request is head, note and tail.
  const summary = body(server.requests[5]);
  assert.equal(summary.tools, undefined);
  assert.match(String(summary.messages[1].content), /code word is flamingo/);
  const compacted = body(server.requests[6]).messages;
  assert.deepEqual(compacted.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
  ]);
  assert.deepEqual([compacted[1].content, compacted[4].content, compacted[5].content], [
    lines[0],
    "Nothing pending.",
    lines[3],
  ]);
  assert.match(String(compacted[3].content), /^\[Context compaction\] 7 earlier messages/);
  assert.ok(String(compacted[3].content).includes(`stored in session ${sessionId}`));

  // Resumed, the session sends the checkpoint, and session_search reads the summarised text.
  server.enqueue(
    {
      toolCalls: [{
        name: "session_search",
        arguments: { session_id: sessionId, around_message_id: codeWordMessage, window: 1 },
      }],
    },
    { text: "The code word was flamingo." },
  );
  const resumed = await runHerald({
    args: ["chat", "--resume", sessionId],
    home: home.path,
    cwd: work.path,
    stdin: "What was the code word?\n",
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /The code word was flamingo\./);
  assert.equal(server.requests.length, 9);
  const afterResume = body(server.requests[7]).messages;
  assert.deepEqual(
    afterResume.slice(0, 4).map((m) => m.content),
    compacted.slice(0, 4).map((m) => m.content),
  );
  const [found] = toolResults(server.requests[8]);
  const scrolled = found as { session_id: string; messages: { content: string }[] };
  assert.equal(scrolled.session_id, sessionId);
  assert.ok(scrolled.messages.some((m) => m.content === lines[1]), JSON.stringify(found));
  server.requests.forEach((request, i) => assertNoOrphans(request, `request ${i + 1}`));
});

Deno.test("chat -q stops a turn whose tool call keeps failing the same way, and says so", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  const again = { toolCalls: [{ name: "read_file", arguments: { path: "missing.txt" } }] };
  await using server = await startModelServer({
    replies: [again, again, again, { text: "never asked" }],
  });
  await configureModel(home.path, server.openaiBaseUrl);
  const run = await runHerald({
    args: ["chat", "-q", "read it", "--json"],
    home: home.path,
    cwd: work.path,
  });
  assert.equal(run.code, 0, run.stderr);
  const printed = JSON.parse(run.stdout);
  assert.equal(printed.stopped, "tool_loop");
  assert.match(
    printed.response,
    /Stopped: the read_file call failed the same way 3 times in a row/,
  );
  assert.equal(server.requests.length, 3);
  assert.equal(server.pendingReplies, 1);
});
