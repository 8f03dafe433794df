/**
 * The agent with an MCP server, end to end: the real `herald chat -q` with
 * the real server-everything configured (`herald mcp add`) and the scripted
 * model server. The model is offered the server's tools as
 * `mcp_everything_<tool>` and its call reaches the server, whose answer
 * goes back to the model; with `--safe-mode` no MCP server is started and
 * no MCP tool offered; a server that cannot start is reported and the chat
 * still answers.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "../_helpers.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel, runHerald } from "./_herald.ts";

const EVERYTHING = join(
  REPO_ROOT,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

function offeredTools(body: unknown): string[] {
  const tools = (body as { tools?: { function: { name: string } }[] }).tools ?? [];
  return tools.map((tool) => tool.function.name);
}

async function addEverything(home: string) {
  const added = await runHerald({
    args: ["mcp", "add", "everything", "--command", "node", `--arg=${EVERYTHING}`, "--arg=stdio"],
    home,
  });
  assert.equal(added.code, 0, added.stderr);
}

Deno.test("the model calls an MCP tool through herald chat and reads its answer", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  await configureModel(home.path, server.openaiBaseUrl);
  await addEverything(home.path);
  server.enqueue(
    { toolCalls: [{ name: "mcp_everything_echo", arguments: { message: "from the model" } }] },
    { text: "The server said it back." },
  );

  const run = await runHerald({ args: ["chat", "-q", "echo something"], home: home.path });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "The server said it back.");
  const [first, second] = server.requests;
  const offered = offeredTools(first.body);
  const mcp = offered.filter((name) => name.startsWith("mcp_"));
  assert.ok(mcp.includes("mcp_everything_echo"), offered.join(","));
  assert.deepEqual(mcp, [...mcp].sort(), "MCP tools in a stable order");
  assert.deepEqual(offered.slice(-mcp.length), mcp, "after Herald's own tools");
  assert.match(JSON.stringify(second.body), /Echo: from the model/);
});

Deno.test("--safe-mode starts no MCP server and offers no MCP tool", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  await configureModel(home.path, server.openaiBaseUrl);
  await addEverything(home.path);
  server.enqueue({ text: "Safe." });
  const run = await runHerald({
    args: [
      "--safe-mode",
      "chat",
      "-q",
      "hi",
      "--provider",
      "custom",
      "--base-url",
      server.openaiBaseUrl,
      "--model",
      "test-model",
    ],
    home: home.path,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "Safe.");
  const offered = offeredTools(server.requests[0].body);
  assert.ok(offered.length > 0);
  assert.deepEqual(offered.filter((name) => name.startsWith("mcp_")), []);
});

Deno.test("a server that cannot start is reported and the chat still answers", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  await configureModel(home.path, server.openaiBaseUrl);
  const added = await runHerald({
    args: ["mcp", "add", "broken", "--command", "no-such-mcp-server-xyz"],
    home: home.path,
  });
  assert.equal(added.code, 0, added.stderr);
  server.enqueue({ text: "Still here." });
  const run = await runHerald({ args: ["chat", "-q", "hi"], home: home.path });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "Still here.");
  assert.match(run.stderr, /MCP server "broken" did not start/);
});
