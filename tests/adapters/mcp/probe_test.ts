/**
 * The MCP probe (adapters/mcp/probe.ts) on its own, against real servers:
 * a stdio server that talks before it answers, and Streamable HTTP servers
 * on 127.0.0.1 answering with JSON, SSE carrying a server request, 202, an
 * HTML page or nothing. (The dashboard route's own tests, with the fakes of
 * tests/fakes/mcp_*, are in tests/server/routes_mcp_test.ts.)
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { probeMcpServer } from "../../../adapters/mcp/mod.ts";
import { tempDir } from "../../_helpers.ts";

const baseEnv = { PATH: Deno.env.get("PATH") };

Deno.test("a stdio server that pings and logs before answering gets a pong and a -32601, no parse error answer", async () => {
  await using home = await tempDir();
  const record = join(home.path, "received.jsonl");
  const script = join(home.path, "chatty_server.ts");
  await Deno.writeTextFile(
    script,
    `
const record = Deno.args[0];
const encoder = new TextEncoder();
const out = (text) => Deno.stdout.writeSync(encoder.encode(text + "\\n"));
const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream())[Symbol.asyncIterator]();
let buffer = "";
async function next() {
  while (!buffer.includes("\\n")) {
    const { value, done } = await lines.next();
    if (done) Deno.exit(0);
    buffer += value;
  }
  const line = buffer.slice(0, buffer.indexOf("\\n"));
  buffer = buffer.slice(buffer.indexOf("\\n") + 1);
  Deno.writeTextFileSync(record, line + "\\n", { append: true });
  return JSON.parse(line);
}
const init = await next();
out("chatty-server 1.0 starting (this line is not JSON)");
out(JSON.stringify({ jsonrpc: "2.0", id: "p1", method: "ping" }));
out(JSON.stringify({ jsonrpc: "2.0", id: "r1", method: "roots/list" }));
await next();
await next();
out(JSON.stringify({ jsonrpc: "2.0", id: init.id, result: {
  protocolVersion: init.params.protocolVersion, capabilities: {}, serverInfo: { name: "chatty" } } }));
await next();
`,
  );
  const result = await probeMcpServer(
    { command: Deno.execPath(), args: ["run", "--quiet", "--allow-write", script, record] },
    { timeoutMs: 20_000, baseEnv },
  );
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(result.ok && result.serverInfo.name, "chatty");
  const received = (await Deno.readTextFile(record)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(received.map((m) => m.method ?? m.id), [
    "initialize",
    ...received.slice(1, 3).map((m) => m.id), // the two answers, in either order
    "notifications/initialized",
  ]);
  assert.equal(received[0].id, 0);
  const answers = Object.fromEntries(received.slice(1, 3).map((m) => [m.id, m]));
  assert.deepEqual(answers.p1, { jsonrpc: "2.0", id: "p1", result: {} });
  assert.equal(answers.r1.error.code, -32601);
});

/** A Streamable HTTP endpoint on 127.0.0.1 answering initialize as `reply` says. */
function httpServer(reply: (body: Record<string, unknown>) => Response | Promise<Response>) {
  const requests: { method: string; headers: Headers; body: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.text();
    requests.push({ method: req.method, headers: req.headers, body });
    if (req.method === "DELETE") return new Response(null, { status: 200 });
    const message = JSON.parse(body);
    if (message.method !== "initialize") return new Response(null, { status: 202 });
    return await reply(message);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

function initializeResult(message: Record<string, unknown>) {
  return {
    jsonrpc: "2.0",
    id: message.id,
    result: {
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "http-json", version: "3" },
    },
  };
}

Deno.test("an HTTP server answering with plain JSON passes; the session header goes back on later requests", async () => {
  await using server = httpServer((message) =>
    Response.json(initializeResult(message), { headers: { "mcp-session-id": "sess-1" } })
  );
  const result = await probeMcpServer({ url: server.url, headers: { "X-Key": "k" } }, {
    timeoutMs: 5000,
    baseEnv,
  });
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(result.ok && result.protocolVersion, "2025-06-18");
  // The tools/list POST gets a bare 202 here: the check still passes, saying why there are no tools.
  assert.deepEqual(server.requests.map((r) => r.method), ["POST", "POST", "POST", "DELETE"]);
  assert.match(result.ok ? result.toolsError ?? "" : "", /did not list its tools/);
  const [, initialized, , deleted] = server.requests;
  assert.equal(initialized.headers.get("mcp-session-id"), "sess-1");
  assert.equal(initialized.headers.get("mcp-protocol-version"), "2025-06-18");
  assert.equal(initialized.headers.get("x-key"), "k");
  assert.equal(deleted.headers.get("mcp-session-id"), "sess-1");
});

Deno.test("a server request in the SSE stream before the answer is answered with its own POST", async () => {
  await using server = httpServer((message) => {
    const events = [
      "id: 1\ndata: \n\n",
      `event: message\nid: 2\ndata: ${
        JSON.stringify({ jsonrpc: "2.0", id: "srv-ping", method: "ping" })
      }\n\n`,
      `event: message\nid: 3\ndata: ${JSON.stringify(initializeResult(message))}\n\n`,
    ];
    return new Response(events.join(""), { headers: { "content-type": "text/event-stream" } });
  });
  const result = await probeMcpServer({ url: server.url }, { timeoutMs: 5000, baseEnv });
  assert.equal(result.ok, true, JSON.stringify(result));
  const bodies = server.requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.body));
  assert.ok(
    bodies.some((body) => body.id === "srv-ping" && JSON.stringify(body.result) === "{}"),
    JSON.stringify(bodies),
  );
  assert.ok(bodies.some((body) => body.method === "notifications/initialized"));
});

Deno.test("HTTP replies that are not an MCP answer report why: 202 with no body, an HTML page, silence, no server", async () => {
  {
    await using server = httpServer(() => new Response(null, { status: 202 }));
    const result = await probeMcpServer({ url: server.url }, { timeoutMs: 5000, baseEnv });
    assert.deepEqual(result.ok ? undefined : [result.code, result.message], [
      "protocol_error",
      `${server.url} did not answer initialize with a JSON-RPC response`,
    ]);
  }
  {
    await using server = httpServer(() =>
      new Response("<html>login</html>", { headers: { "content-type": "text/html" } })
    );
    const result = await probeMcpServer({ url: server.url }, { timeoutMs: 5000, baseEnv });
    assert.equal(result.ok ? undefined : result.code, "protocol_error");
    assert.match(result.ok ? "" : result.message, /HTML page/);
  }
  {
    const never = Promise.withResolvers<Response>();
    await using server = httpServer(() => never.promise);
    const result = await probeMcpServer({ url: server.url }, { timeoutMs: 300, baseEnv });
    assert.equal(result.ok ? undefined : result.code, "timeout");
    assert.match(result.ok ? "" : result.message, /within 0\.3 s \(the MCP test timeout\)/);
    never.resolve(new Response(null, { status: 503 }));
  }
  {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const result = await probeMcpServer({ url: `http://127.0.0.1:${port}/mcp` }, {
      timeoutMs: 5000,
      baseEnv,
    });
    assert.equal(result.ok ? undefined : result.code, "unreachable");
  }
});
