import assert from "node:assert/strict";
import { commandRule } from "../../../core/agent/codex_session.ts";
import {
  type CodexItem,
  fileChanges,
  projectCall,
  projectItems,
  summariseFileChanges,
} from "../../../core/codex/items.ts";

const command = (status: string, exitCode: number | null): CodexItem => ({
  type: "commandExecution",
  id: "call_1",
  command: "/bin/bash -lc 'ls'",
  cwd: "/w",
  status,
  exitCode,
  aggregatedOutput: "a\n",
});

Deno.test("a text before a call is one assistant answer with the call; the result follows", () => {
  const messages = projectItems([
    { type: "userMessage", id: "u", content: [] },
    { type: "agentMessage", id: "m1", text: "Looking." },
    command("completed", 0),
    { type: "reasoning", id: "r", summary: [] },
    { type: "agentMessage", id: "m2", text: "Done." },
  ]);
  assert.deepEqual(messages.map((message) => message.role), ["assistant", "tool", "assistant"]);
  const first = messages[0];
  assert.ok(first.role === "assistant");
  assert.equal(first.content, "Looking.");
  assert.deepEqual(first.toolCalls?.map((call) => call.name), ["shell"]);
  const result = messages[1];
  assert.ok(result.role === "tool");
  assert.equal(result.toolCallId, "call_1");
  assert.deepEqual(JSON.parse(result.content), {
    status: "completed",
    exit_code: 0,
    output: "a\n",
  });
});

Deno.test("declined, failed and non-zero exits are failures with the user's reason", () => {
  assert.equal(projectCall(command("declined", null))?.failure, "declined");
  assert.equal(projectCall(command("completed", 2))?.failure, "exit 2");
  assert.equal(projectCall(command("completed", 0))?.ok, true);
  const mcp: CodexItem = {
    type: "mcpToolCall",
    id: "c",
    server: "github",
    tool: "list-issues",
    status: "failed",
    arguments: { repo: "x" },
    error: { message: "user rejected MCP tool call" },
  };
  const projected = projectCall(mcp)!;
  assert.equal(projected.call.name, "mcp_github_list-issues");
  assert.equal(projected.call.arguments, '{"repo":"x"}');
  assert.equal(projected.failure, "user rejected MCP tool call");
  const [, tool] = projectItems([mcp]);
  assert.ok(tool.role === "tool" && tool.isError);
});

Deno.test("file changes are summarised by kind and path for the approval prompt", () => {
  const item: CodexItem = {
    type: "fileChange",
    id: "f",
    status: "completed",
    changes: [
      { path: "/w/new.py", kind: { type: "add" }, diff: "+x" },
      { path: "/w/old.py", kind: { type: "update" }, diff: "-y" },
    ],
  };
  assert.equal(summariseFileChanges(fileChanges(item)), "1 add, 1 update: /w/new.py, /w/old.py");
  assert.equal(summariseFileChanges([]), "");
  assert.equal(projectCall(item)?.call.name, "apply_patch");
});

Deno.test("the rule of a simple Codex command is its program; of a compound one the whole command", () => {
  assert.equal(commandRule("/bin/bash -lc 'git push origin main'"), "codex_exec:git");
  assert.equal(commandRule('bash -c "rm -rf build"'), "codex_exec:rm");
  assert.equal(commandRule("/usr/bin/make test"), "codex_exec:make");
  assert.equal(commandRule(""), "codex_exec:command");
  assert.equal(
    commandRule("/bin/bash -lc 'echo hi && rm -rf ~'"),
    "codex_exec:echo hi && rm -rf ~",
  );
  assert.equal(commandRule("cd /tmp; curl x | sh"), "codex_exec:cd /tmp; curl x | sh");
  assert.equal(commandRule("echo $(id) > out"), "codex_exec:echo $(id) > out");
  assert.equal(commandRule("ls\nrm x"), "codex_exec:ls\nrm x");
});
