/**
 * `/api/ws` tool events carry what a client needs to show a call: a
 * write_file's old text on `tool.start` (`before`, for a diff) and a
 * preview of the result on `tool.complete` (`output`), cut so it stays JSON.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { toolOutputView } from "../../core/agent/turn_view.ts";
import { readBeforeWrite } from "../../adapters/tools/files/before_write.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { tempDir } from "../_helpers.ts";
import { RpcClient, startLiveServer } from "./_live.ts";

Deno.test("tool.start carries a write_file's old text and tool.complete a preview of the result", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await Deno.writeTextFile(join(work.path, "notes.txt"), "old line\n");
  await using model = await startModelServer({
    replies: [
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "notes.txt", content: "new line\n" } },
          { name: "write_file", arguments: { path: "fresh.txt", content: "hello\n" } },
          { name: "terminal", arguments: { command: "echo previewed" } },
        ],
      },
      { text: "done" },
    ],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path, { deps: { cwd: work.path } });
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<{ session_key: string }>("session.start", {});
  await client.call("session.send", { session_key, text: "write and run" });

  const starts = client.named("tool.start").map((event) => event.params);
  assert.deepEqual(starts.map((start) => [start.name, start.before]), [
    ["write_file", "old line\n"],
    ["write_file", null],
    ["terminal", undefined],
  ]);
  assert.ok(!("before" in starts[2]), "only write_file carries before");
  assert.equal(await Deno.readTextFile(join(work.path, "notes.txt")), "new line\n");

  const completes = client.named("tool.complete").map((event) => event.params);
  const terminal = completes.find((params) => params.name === "terminal")!;
  assert.equal(terminal.output_truncated, false);
  assert.equal(JSON.parse(String(terminal.output)).stdout, "previewed\n");
});

Deno.test("a long result keeps the start and end of its text fields and stays JSON", () => {
  const stdout = `${"a".repeat(30_000)}THE-END`;
  const content = JSON.stringify({ exit_code: 0, stdout: `START${stdout}`, stderr: "" });
  const view = toolOutputView(content, 1_000);
  assert.equal(view.output_truncated, true);
  assert.ok(view.output.length <= 1_000);
  const parsed = JSON.parse(view.output);
  assert.equal(parsed.exit_code, 0);
  assert.match(parsed.stdout, /^START/);
  assert.match(parsed.stdout, /THE-END$/);
  assert.match(parsed.stdout, /characters left out/);

  const plain = toolOutputView("x".repeat(2_000), 1_000);
  assert.deepEqual(plain, { output: "x".repeat(1_000), output_truncated: true });
  assert.deepEqual(toolOutputView('{"ok":true}'), {
    output: '{"ok":true}',
    output_truncated: false,
  });
});

Deno.test("readBeforeWrite reads only write_file targets, null for a new file", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "a.txt"), "A");
  assert.equal(readBeforeWrite("write_file", '{"path":"a.txt","content":""}', dir.path), "A");
  assert.equal(readBeforeWrite("write_file", '{"path":"b.txt","content":""}', dir.path), null);
  assert.equal(readBeforeWrite("patch", '{"path":"a.txt"}', dir.path), undefined);
  assert.equal(readBeforeWrite("write_file", "not json", dir.path), undefined);
  assert.equal(readBeforeWrite("write_file", '{"path":"."}', dir.path), undefined);
});
