import assert from "node:assert/strict";
import { buildSystemPrompt } from "../../../core/agent/prompt.ts";
import { MAX_FOOTER_ENTRIES, MutationTracker } from "../../../core/agent/verifier.ts";
import { historyFromStored } from "../../../core/agent/history.ts";
import { runOutputHooks } from "../../../core/agent/hooks.ts";
import { createSlashRegistry, parseSlashInput } from "../../../core/commands/mod.ts";
import type { StoredMessage } from "../../../core/sessions/store.ts";

const context = { model: "m", provider: "custom" };

Deno.test("the system prompt is a pure function of its inputs", () => {
  const inputs = {
    cwd: "/work",
    date: "2026-11-21",
    toolNames: ["terminal", "read_file"],
    memory: "likes tea",
  };
  assert.equal(buildSystemPrompt(inputs), buildSystemPrompt({ ...inputs }));
  assert.match(buildSystemPrompt(inputs), /Working directory: \/work/);
  assert.match(buildSystemPrompt(inputs), /## Memory\nlikes tea/);
  assert.doesNotMatch(buildSystemPrompt({ ...inputs, memory: "  " }), /## Memory/);
});

Deno.test("a failed write that is later redone successfully leaves no footer", () => {
  const tracker = new MutationTracker();
  tracker.record("/a.txt", false, "not found");
  tracker.record("/a.txt", true);
  assert.equal(tracker.footer(), "");
});

Deno.test("a failed write never redone is listed in the footer with its error", () => {
  const tracker = new MutationTracker();
  tracker.record("/a.txt", true);
  tracker.record("/b.txt", false, "old_string not found");
  const footer = tracker.footer();
  assert.match(footer, /1 file change failed/);
  assert.match(footer, /- \/b\.txt: old_string not found/);
  assert.doesNotMatch(footer, /a\.txt/);
});

Deno.test("twelve failures list ten and count the rest", () => {
  const tracker = new MutationTracker();
  for (let i = 1; i <= 12; i++) tracker.record(`/f${i}`, false, "boom");
  const listed = tracker.footer().split("\n").filter((line) => /^- \/f\d+/.test(line));
  assert.equal(listed.length, MAX_FOOTER_ENTRIES);
  assert.match(tracker.footer(), /12 file changes failed/);
  assert.match(tracker.footer(), /- \.\.\. and 2 more/);
});

Deno.test("stored tool calls without results get an interrupted result when history is rebuilt", () => {
  const base = { sessionId: "s", toolCallId: null, toolName: null, toolCalls: null, timestamp: 1 };
  const rows: StoredMessage[] = [
    { ...base, id: 1, role: "user", content: "hi" },
    {
      ...base,
      id: 2,
      role: "assistant",
      content: null,
      toolCalls: [{ id: "c1", name: "terminal", arguments: "{}" }, {
        id: "c2",
        name: "todo",
        arguments: "{}",
      }],
    },
    { ...base, id: 3, role: "tool", content: '{"ok":1}', toolCallId: "c1", toolName: "terminal" },
    { ...base, id: 4, role: "user", content: "again" },
  ];
  const history = historyFromStored(rows);
  assert.deepEqual(history.map((m) => m.role), ["user", "assistant", "tool", "tool", "user"]);
  const synthetic = history[3];
  assert.ok(
    synthetic.role === "tool" && synthetic.toolCallId === "c2" &&
      /interrupted/.test(synthetic.content),
  );
});

Deno.test("plugin hooks transform in order and post hooks see the final text", async () => {
  const seen: string[] = [];
  const output = await runOutputHooks(
    [
      { transform_llm_output: (text) => text + " [a]" },
      {
        transform_llm_output: (text) => text.toUpperCase(),
        post_llm_call: (c) => void seen.push(c.response),
      },
    ],
    "hello",
    { sessionId: "s", model: "m", provider: "p", userMessage: "u" },
  );
  assert.equal(output, "HELLO [A]");
  assert.deepEqual(seen, ["HELLO [A]"]);
});

Deno.test("slash input is recognised only for command-shaped words", () => {
  assert.deepEqual(parseSlashInput("/Exit --delete"), { name: "exit", args: "--delete" });
  assert.equal(parseSlashInput("/usr/bin is a folder"), undefined);
  assert.equal(parseSlashInput("hello /exit"), undefined);
  assert.equal(parseSlashInput("/"), undefined);
});

Deno.test("/exit and /quit accept --delete and -d in any case, and refuse anything else", async () => {
  const registry = createSlashRegistry();
  for (const line of ["/exit --delete", "/quit -d", "/EXIT --DELETE", "/exit -D"]) {
    const outcome = await registry.dispatch(line, context);
    assert.ok(outcome?.kind === "exit" && outcome.deleteSession, line);
  }
  const plain = await registry.dispatch("/quit", context);
  assert.ok(plain?.kind === "exit" && !plain.deleteSession);
  const bogus = await registry.dispatch("/exit --bogus", context);
  assert.ok(bogus?.kind === "reply" && /Unknown argument "--bogus"/.test(bogus.text));
});

Deno.test("/help lists every command and /model reports or switches the model", async () => {
  const registry = createSlashRegistry();
  const help = await registry.dispatch("/help", context);
  assert.ok(help?.kind === "reply");
  for (const name of ["/help", "/new", "/model", "/exit", "/quit"]) {
    assert.ok(help.text.includes(name));
  }
  const show = await registry.dispatch("/model", context);
  assert.ok(show?.kind === "reply" && show.text.includes("m (provider custom)"));
  assert.deepEqual(await registry.dispatch("/model big-model", context), {
    kind: "set_model",
    model: "big-model",
    text: "Model set to big-model for this session.",
  });
  const unknown = await registry.dispatch("/nonsense", context);
  assert.ok(unknown?.kind === "reply" && /type \/help/.test(unknown.text));
  assert.equal(await registry.dispatch("just text", context), undefined);
});
