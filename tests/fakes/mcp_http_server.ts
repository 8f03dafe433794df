/**
 * A tiny MCP server on 127.0.0.1 speaking Streamable HTTP: `initialize`
 * answered as an SSE stream (a priming event, then the result) with an
 * `MCP-Session-Id`, `notifications/initialized` answered 202, `tools/list`
 * answered with one tool (`lookup`) as plain JSON, `DELETE`
 * ending the session. Records every request it receives.
 *
 * @module
 */

/** A request the fake received. */
export interface RecordedMcpRequest {
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** A running fake HTTP MCP server. */
export interface FakeMcpHttpServer extends AsyncDisposable {
  url: string;
  requests: RecordedMcpRequest[];
}

/** Starts the fake; `requiredAuthorization` makes requests without that header 401. */
export function startFakeMcpHttpServer(requiredAuthorization?: string): FakeMcpHttpServer {
  const requests: RecordedMcpRequest[] = [];
  const session = crypto.randomUUID();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    requests.push({ method: req.method, headers: Object.fromEntries(req.headers), body });
    if (requiredAuthorization && req.headers.get("authorization") !== requiredAuthorization) {
      return new Response("unauthorized", { status: 401 });
    }
    if (req.method === "DELETE") return new Response(null, { status: 200 });
    const message = JSON.parse(body);
    if (message.method === "initialize") {
      const result = {
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "fake-mcp-http", version: "2.0.0" },
        },
      };
      const stream = `id: 1\ndata: \n\nevent: message\nid: 2\ndata: ${JSON.stringify(result)}\n\n`;
      return new Response(stream, {
        headers: { "content-type": "text/event-stream", "mcp-session-id": session },
      });
    }
    if (message.method === "tools/list") {
      return Response.json({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          tools: [{
            name: "lookup",
            description: "Looks a word up",
            inputSchema: { type: "object" },
          }],
        },
      });
    }
    return new Response(null, { status: 202 });
  });
  const address = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
