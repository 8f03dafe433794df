/**
 * `herald mcp serve` end to end: the real program as a subprocess with its
 * own home (no model configured), driven by the MCP SDK's own `Client`
 * over `StdioClientTransport`: the served tools, a read and a write in the
 * working folder, a dangerous command denied with nothing deleted, an
 * allowed command run, and the process gone once the client closed. Then
 * the raw protocol: requests piped in and standard input closed, every
 * answer on standard output (and nothing else), exit code 0.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { processRunning, REPO_ROOT, tempDir } from "../_helpers.ts";

const MAIN = join(REPO_ROOT, "cli", "main.ts");

/** The one text block of a tool result. */
function text(result: unknown): string {
  const [block] = (result as { content: { type: string; text: string }[] }).content;
  assert.equal(block.type, "text");
  return block.text;
}

Deno.test("herald mcp serve serves its tools to an MCP client over stdio and exits when it closes", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const cwd = join(dir.path, "work");
  await Deno.mkdir(cwd, { recursive: true });
  await Deno.writeTextFile(join(cwd, "readme.txt"), "served by herald\n");
  await Deno.mkdir(join(cwd, "x/keep"), { recursive: true });

  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", MAIN, "mcp", "serve"],
    env: { HERALD_HOME: home, NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "herald-e2e", version: "0.0.1" });
  await client.connect(transport);
  const pid = transport.pid;
  assert.ok(pid !== null && pid !== undefined);
  try {
    assert.equal(client.getServerVersion()?.name, "herald");

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const wanted of ["read_file", "write_file", "patch", "search_files", "terminal"]) {
      assert.ok(names.includes(wanted), `${wanted} in ${names.join(", ")}`);
    }
    for (const wanted of ["session_search", "memory", "skills_list"]) {
      assert.ok(names.includes(wanted), `${wanted} in ${names.join(", ")}`);
    }
    assert.deepEqual(
      names.filter((name) => /^(mcp_|kanban|cronjob|send_message|todo)/.test(name)),
      [],
    );

    const read = await client.callTool({ name: "read_file", arguments: { path: "readme.txt" } });
    assert.equal(read.isError, false, text(read));
    assert.match(text(read), /served by herald/);

    const write = await client.callTool({
      name: "write_file",
      arguments: { path: "made/by-client.txt", content: "hello from the client\n" },
    });
    assert.equal(write.isError, false, text(write));
    assert.equal(
      await Deno.readTextFile(join(cwd, "made/by-client.txt")),
      "hello from the client\n",
    );

    const denied = await client.callTool({
      name: "terminal",
      arguments: { command: `rm -rf ${join(cwd, "x")}` },
    });
    assert.equal(denied.isError, true);
    assert.match(text(denied), /denied|not approved/);
    assert.ok((await Deno.stat(join(cwd, "x/keep"))).isDirectory, "nothing was deleted");

    const allowed = await client.callTool({
      name: "terminal",
      arguments: { command: "echo ran-in-$(basename $PWD)" },
    });
    assert.equal(allowed.isError, false, text(allowed));
    assert.match(text(allowed), /ran-in-work/);
  } finally {
    await client.close();
  }
  assert.equal(await processRunning(pid), false, "herald mcp serve exited");
  assert.match(stderr, /denied a dangerous terminal call .*herald approvals allow/);
});

Deno.test("herald mcp serve answers what it read, writes only protocol on stdout and exits 0 when stdin closes", async () => {
  await using dir = await tempDir();
  const messages = [
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "terminal", arguments: { command: "sleep 1; echo late" } },
    },
  ];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "mcp", "serve"],
    cwd: dir.path,
    env: { HERALD_HOME: join(dir.path, "home"), NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(messages.map((m) => JSON.stringify(m) + "\n").join("")),
  );
  await writer.close();
  const output = await child.output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const answers = stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(answers.map((answer) => answer.id), [0, 1, 2]);
  assert.equal(answers[0].result.protocolVersion, "2025-11-25");
  assert.ok(answers[1].result.tools.length > 0);
  assert.match(answers[2].result.content[0].text, /late/);
});
