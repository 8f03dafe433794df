/**
 * A tiny MCP server speaking the real stdio transport: newline-delimited
 * JSON-RPC 2.0 on stdin/stdout, logs on stderr. It answers `initialize`,
 * `ping` and `tools/list`. Run with `deno run <this file> [mode]`:
 *
 * - (no mode): a well-behaved server; `serverInfo.title` is `$FAKE_MCP_TITLE` when set;
 * - `silent`: reads requests and never answers (for timeouts);
 * - `crash`: writes to stderr and exits with code 3 before answering;
 * - `refuse`: answers initialize with a JSON-RPC error.
 *
 * With `$FAKE_MCP_RECORD` set, every message received is appended to that file.
 */

const mode = Deno.args[0] ?? "normal";
const encoder = new TextEncoder();
const record = Deno.env.get("FAKE_MCP_RECORD");

function send(message: unknown): void {
  Deno.stdout.writeSync(encoder.encode(JSON.stringify(message) + "\n"));
}

console.error(`fake-mcp: starting in ${mode} mode`);
if (mode === "crash") {
  console.error("fake-mcp: cannot open the database");
  Deno.exit(3);
}

let buffer = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffer += chunk;
  let newline: number;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (line.trim() === "") continue;
    const message = JSON.parse(line);
    if (record) await Deno.writeTextFile(record, line + "\n", { append: true });
    if (mode === "silent") continue;
    if (message.method === "initialize") {
      if (mode === "refuse") {
        send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32602, message: "Unsupported protocol version" },
        });
        continue;
      }
      const title = Deno.env.get("FAKE_MCP_TITLE");
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: "fake-mcp", version: "1.0.0", ...(title ? { title } : {}) },
        },
      });
    } else if (message.method === "ping") {
      send({ jsonrpc: "2.0", id: message.id, result: {} });
    } else if (message.method === "tools/list") {
      send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          tools: [{ name: "echo", inputSchema: { type: "object" } }],
        },
      });
    } else if (message.id !== undefined) {
      send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: "Method not found" },
      });
    }
  }
}
