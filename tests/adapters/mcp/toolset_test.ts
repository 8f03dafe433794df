/**
 * The MCP toolset against the real `@modelcontextprotocol/server-everything`
 * (from node_modules, run by Node), over stdio and over Streamable HTTP,
 * called through the tool registry as the model calls tools: the tools
 * listed as `mcp_everything_<tool>` in a stable order, a call, an error
 * result, an image passed on as sent, a URL elicitation approved and
 * declined, a form elicitation nobody can fill declined without asking, a
 * call past a short per-server timeout, and the server killed mid-call
 * (the call says so, the next one waits, then Herald starts it again).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openMcpToolset } from "../../../adapters/mcp/toolset.ts";
import type { McpServerConfig } from "../../../core/mcp/mod.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { REPO_ROOT, tempDir } from "../../_helpers.ts";
import { toolContext } from "../tools/_context.ts";

const EVERYTHING = join(
  REPO_ROOT,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

function stdioServer(timeout = 300): McpServerConfig {
  return { command: "node", args: [EVERYTHING, "stdio"], timeout, enabled: true };
}

/** server-everything over Streamable HTTP on a free port, stopped on dispose. */
async function httpServer() {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const child = new Deno.Command("node", {
    args: [EVERYTHING, "streamableHttp"],
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("listening")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server-everything did not start: ${seen}`);
    seen += value;
  }
  void (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
    },
  };
}

async function open(servers: Record<string, McpServerConfig>, clock = { now: Date.now() }) {
  const warnings: string[] = [];
  const toolset = await openMcpToolset(servers, {
    baseEnv: Deno.env.toObject(),
    onWarning: (message) => warnings.push(message),
    now: () => clock.now,
  });
  const registry = new ToolRegistry(toolset.tools);
  const dir = await tempDir();
  let id = 0;
  const call = async (name: string, args: Record<string, unknown> = {}, approve = false) => {
    const context = toolContext({ cwd: dir.path, approve });
    const outcome = await registry.execute(
      { id: `call_${++id}`, name, arguments: JSON.stringify(args) },
      context,
    );
    return { outcome, approvals: context.approvals };
  };
  return {
    toolset,
    registry,
    warnings,
    call,
    async [Symbol.asyncDispose]() {
      await toolset.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

type Opened = Awaited<ReturnType<typeof open>>;

function ok(outcome: Awaited<ReturnType<Opened["call"]>>["outcome"]) {
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return outcome.result as { content: Record<string, unknown>[] };
}

/** The checks both transports pass. */
async function exercise(env: Opened) {
  const names = env.registry.specs().map((spec) => spec.name);
  assert.deepEqual(names, [...names].sort(), "a stable order: by name");
  for (const tool of ["echo", "get-sum", "get-tiny-image", "trigger-url-elicitation"]) {
    assert.ok(names.includes(`mcp_everything_${tool}`), `${tool} in ${names}`);
  }
  const echoSpec = env.registry.specs().find((spec) => spec.name === "mcp_everything_echo")!;
  assert.equal(echoSpec.parameters.type, "object");
  assert.ok("message" in (echoSpec.parameters.properties as Record<string, unknown>));
  assert.equal(echoSpec.parameters.$schema, undefined);

  const echo = ok((await env.call("mcp_everything_echo", { message: "hi" })).outcome);
  assert.deepEqual(echo.content, [{ type: "text", text: "Echo: hi" }]);

  const sum = ok((await env.call("mcp_everything_get-sum", { a: 2, b: 3 })).outcome);
  assert.match(String(sum.content[0].text), /5/);

  const bad = (await env.call("mcp_everything_get-sum", { a: "two" })).outcome;
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.equal(bad.code, "mcp_tool_error");
    assert.match(bad.message, /a|number|Invalid/i);
  }

  const image = ok((await env.call("mcp_everything_get-tiny-image")).outcome);
  const block = image.content.find((part) => part.type === "image")!;
  assert.equal(block.mimeType, "image/png");
  assert.ok(String(block.data).length > 50, "the image data is passed on");

  const url = "https://example.org/authorize";
  const accepted = await env.call("mcp_everything_trigger-url-elicitation", { url }, true);
  assert.deepEqual(accepted.approvals.map((request) => request.command), [`open ${url}`]);
  assert.match(JSON.stringify(ok(accepted.outcome).content), /accept/i);
  const declined = await env.call("mcp_everything_trigger-url-elicitation", { url }, false);
  assert.equal(declined.approvals.length, 1);
  assert.match(JSON.stringify(declined.outcome), /decline/i);
}

Deno.test("stdio: server-everything's tools list, call, fail, pass images and elicit through approvals", async () => {
  await using env = await open({ everything: stdioServer() });
  assert.deepEqual(env.warnings, []);
  await exercise(env);
  // A form whose required name has no default cannot be typed here: declined without asking.
  const form = await env.call("mcp_everything_trigger-elicitation-request", {}, true);
  assert.deepEqual(form.approvals, []);
  assert.match(JSON.stringify(form.outcome), /decline/i);
});

Deno.test("Streamable HTTP: the same against server-everything over HTTP", async () => {
  await using server = await httpServer();
  await using env = await open({
    everything: { url: server.url, timeout: 300, enabled: true },
  });
  assert.deepEqual(env.warnings, []);
  await exercise(env);
});

Deno.test("a call past the server's timeout fails with the reason and the server stays usable", async () => {
  await using env = await open({ everything: stdioServer(1) });
  const slow = (await env.call("mcp_everything_trigger-long-running-operation", {
    duration: 5,
    steps: 5,
  })).outcome;
  assert.equal(slow.ok, false);
  if (!slow.ok) {
    assert.equal(slow.code, "mcp_timeout");
    assert.match(slow.message, /did not answer trigger-long-running-operation within 1 s/);
  }
  ok((await env.call("mcp_everything_echo", { message: "still here" })).outcome);
});

Deno.test("a server killed mid-call: the call says so, the next waits, then Herald starts it again", async () => {
  const clock = { now: Date.now() };
  await using env = await open({ everything: stdioServer() }, clock);
  const [status] = env.toolset.status();
  assert.ok(status.connected && status.pid, JSON.stringify(status));
  const running = env.call("mcp_everything_trigger-long-running-operation", {
    duration: 30,
    steps: 30,
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  Deno.kill(-status.pid!, "SIGKILL");
  const { outcome } = await running;
  assert.equal(outcome.ok, false);
  if (!outcome.ok) {
    assert.equal(outcome.code, "mcp_closed");
    assert.match(outcome.message, /stopped during the call/);
  }
  assert.equal(env.warnings.length, 1, env.warnings.join("\n"));
  assert.match(env.warnings[0], /connection to MCP server "everything" ended/);

  const waiting = (await env.call("mcp_everything_echo", { message: "x" })).outcome;
  assert.equal(waiting.ok, false);
  if (!waiting.ok) {
    assert.equal(waiting.code, "mcp_server_down");
    assert.match(waiting.message, /tries again in 1 s/);
  }
  clock.now += 1_000;
  const back = ok((await env.call("mcp_everything_echo", { message: "back" })).outcome);
  assert.deepEqual(back.content, [{ type: "text", text: "Echo: back" }]);
  assert.equal(env.warnings.length, 1, "reported once");
});

Deno.test("a server that does not start is reported once and gives no tools; the others work", async () => {
  await using env = await open({
    broken: { command: "no-such-mcp-server-xyz", timeout: 300, enabled: true },
    off: { command: "node", args: [EVERYTHING, "stdio"], timeout: 300, enabled: false },
    everything: stdioServer(),
  });
  assert.equal(env.warnings.length, 1);
  assert.match(
    env.warnings[0],
    /MCP server "broken" did not start: Cannot start "no-such-mcp-server-xyz"/,
  );
  const names = env.registry.specs().map((spec) => spec.name);
  assert.ok(names.every((name) => name.startsWith("mcp_everything_")), names.join(","));
  assert.deepEqual(env.toolset.status().map((entry) => [entry.name, entry.connected]), [
    ["broken", false],
    ["everything", true],
  ]);
});

Deno.test("Streamable HTTP: a server killed mid-call fails the call and the session goes on", async () => {
  await using server = await httpServer();
  await using env = await open({ everything: { url: server.url, timeout: 20, enabled: true } });
  const running = env.call("mcp_everything_trigger-long-running-operation", {
    duration: 30,
    steps: 30,
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  server.child.kill("SIGKILL");
  const { outcome } = await running;
  assert.equal(outcome.ok, false, JSON.stringify(outcome));
  if (!outcome.ok) assert.equal(outcome.code, "mcp_closed", outcome.message);
  assert.equal(env.warnings.length, 1, env.warnings.join("\n"));
  assert.match(env.warnings[0], /MCP server "everything" cannot be reached any more/);
  const after = (await env.call("mcp_everything_echo", { message: "x" })).outcome;
  assert.equal(after.ok, false);
  if (!after.ok) assert.equal(after.code, "mcp_server_down");
});
