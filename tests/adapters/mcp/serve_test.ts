/**
 * adapters/mcp/serve.ts over the SDK's in-memory transport pair, driven by
 * the SDK's own `Client`: the tools a profile serves (in the registry's
 * order, no todo), a read and a write in the working folder, an unknown
 * tool, a dangerous command denied by a profile that does not allow it
 * (nothing deleted, the denial logged) and run by one that does, a call
 * cancelled by the client (its command stopped before it finished), and
 * the state store closed with the toolset.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type McpToolServer,
  openServedToolset,
  type ServedToolset,
  serveTools,
} from "../../../adapters/mcp/serve.ts";
import { ensureProfileHome, profilePaths } from "../../../adapters/home/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { tempDir } from "../../_helpers.ts";

interface Served extends AsyncDisposable {
  client: Client;
  server: McpToolServer;
  toolset: ServedToolset;
  cwd: string;
  log: string[];
}

/** A profile (with `config` as its config.yaml) served to a connected client. */
async function served(root: string, config = ""): Promise<Served> {
  const paths = profilePaths(join(root, "home"), "default");
  await ensureProfileHome(paths);
  await Deno.writeTextFile(paths.config, config);
  const cwd = join(root, "work");
  await Deno.mkdir(cwd, { recursive: true });
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: root };
  const log: string[] = [];
  const toolset = await openServedToolset(openProfileContext(paths, env), {
    env,
    safeMode: false,
    stateDb: paths.stateDb,
    log: (line) => log.push(line),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = await serveTools(toolset.registry, serverSide, {
    cwd,
    home: paths.home,
    approve: toolset.approve,
  });
  const client = new Client({ name: "serve-test", version: "0.0.1" });
  await client.connect(clientSide);
  return {
    client,
    server,
    toolset,
    cwd,
    log,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.closed;
      toolset.close();
    },
  };
}

/** The one text block of a tool result. */
function text(result: unknown): string {
  const [block] = (result as { content: { type: string; text: string }[] }).content;
  assert.equal(block.type, "text");
  return block.text;
}

Deno.test("mcp serve lists the served tools in the registry's order with object schemas", async () => {
  await using dir = await tempDir();
  await using s = await served(dir.path);
  const { tools } = await s.client.listTools();
  const names = tools.map((tool) => tool.name);
  assert.deepEqual(names, s.toolset.registry.specs().map((spec) => spec.name));
  for (const wanted of ["terminal", "read_file", "write_file", "patch", "search_files"]) {
    assert.ok(names.includes(wanted), `${wanted} is served`);
  }
  for (const wanted of ["memory", "session_search", "skills_list", "skill_view"]) {
    assert.ok(names.includes(wanted), `${wanted} is served`);
  }
  assert.ok(!names.includes("todo"));
  assert.ok(!names.some((name) => /^(mcp_|kanban|cronjob|send_message)/.test(name)));
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, "object");
    assert.ok(tool.description && tool.description.length > 0);
  }
  const read = tools.find((tool) => tool.name === "read_file");
  assert.ok(read?.inputSchema.properties && "path" in read.inputSchema.properties);
});

Deno.test("mcp serve reads and writes files in its working folder", async () => {
  await using dir = await tempDir();
  await using s = await served(dir.path);
  await Deno.writeTextFile(join(s.cwd, "notes.txt"), "first line\nsecond line\n");
  const read = await s.client.callTool({ name: "read_file", arguments: { path: "notes.txt" } });
  assert.notEqual(read.isError, true);
  assert.match(text(read), /second line/);

  const write = await s.client.callTool({
    name: "write_file",
    arguments: { path: "out/new.txt", content: "written over MCP\n" },
  });
  assert.equal(write.isError, false, text(write));
  assert.equal(await Deno.readTextFile(join(s.cwd, "out/new.txt")), "written over MCP\n");

  const invalid = await s.client.callTool({ name: "read_file", arguments: {} });
  assert.equal(invalid.isError, true);
  assert.match(text(invalid), /invalid_arguments/);
});

Deno.test("mcp serve answers an unknown tool with an error result naming the tools", async () => {
  await using dir = await tempDir();
  await using s = await served(dir.path);
  const result = await s.client.callTool({ name: "todo", arguments: {} });
  assert.equal(result.isError, true);
  assert.match(text(result), /No tool named \\"todo\\"/);
  assert.match(text(result), /read_file/);
});

Deno.test("mcp serve denies a dangerous command nobody allowed and runs an allowed one", async () => {
  await using dir = await tempDir();
  {
    await using s = await served(dir.path);
    await Deno.mkdir(join(s.cwd, "x/y"), { recursive: true });
    const denied = await s.client.callTool({
      name: "terminal",
      arguments: { command: "rm -rf x" },
    });
    assert.equal(denied.isError, true);
    assert.match(text(denied), /not approved/);
    assert.ok((await Deno.stat(join(s.cwd, "x/y"))).isDirectory, "nothing was deleted");
    assert.equal(s.log.length, 1);
    assert.match(
      s.log[0],
      /denied a dangerous terminal call .*herald approvals allow rm_recursive:x`/,
    );

    const plain = await s.client.callTool({ name: "terminal", arguments: { command: "echo hi" } });
    assert.equal(plain.isError, false, text(plain));
    assert.match(text(plain), /hi/);
  }
  // The rule the denial named, allowed in the profile's config, lets the same command run.
  await using s = await served(dir.path, "approvals:\n  allow:\n    - rm_recursive:x\n");
  const allowed = await s.client.callTool({ name: "terminal", arguments: { command: "rm -rf x" } });
  assert.equal(allowed.isError, false, text(allowed));
  await assert.rejects(Deno.stat(join(s.cwd, "x")), Deno.errors.NotFound);
  assert.deepEqual(s.log, []);
});

Deno.test("mcp serve stops a call the client cancels", async () => {
  await using dir = await tempDir();
  await using s = await served(dir.path);
  const controller = new AbortController();
  const call = s.client.callTool(
    { name: "terminal", arguments: { command: "touch started; sleep 20; touch finished" } },
    undefined,
    { signal: controller.signal },
  );
  while (true) {
    try {
      await Deno.stat(join(s.cwd, "started"));
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  controller.abort("changed my mind");
  await assert.rejects(call);
  // Closing waits for the calls still running: a call that was not stopped would finish first.
  await s.client.close();
  await s.server.closed;
  await assert.rejects(Deno.stat(join(s.cwd, "finished")), Deno.errors.NotFound);
});
