/**
 * Shared setup for the model client tests: settings pointing at the scripted
 * model server for each wire format, and a tiny raw HTTP server for answers
 * the scripted server cannot give (HTML pages, broken streams, odd usage).
 *
 * @module
 */

import type { ModelSettings } from "../../../core/models/settings.ts";
import type { ModelServer } from "../../fakes/model_server.ts";

/** The two wire formats, with a provider that speaks each. */
export const WIRES = [
  { wire: "openai", provider: "openrouter", keyEnv: "OPENROUTER_API_KEY", model: "gpt-test" },
  { wire: "anthropic", provider: "anthropic", keyEnv: "ANTHROPIC_API_KEY", model: "claude-test" },
] as const;

/** One entry of {@link WIRES}. */
export type Wire = (typeof WIRES)[number];

/** Client options that make retries immediate. */
export const FAST = { retryBaseMs: 1 };

/** Settings for `wire` against the scripted `server`. */
export function settingsFor(
  server: ModelServer,
  wire: Wire,
  extra: Partial<ModelSettings> = {},
): ModelSettings {
  return {
    provider: wire.provider,
    model: wire.model,
    baseUrl: wire.wire === "anthropic" ? server.anthropicBaseUrl : server.openaiBaseUrl,
    apiKey: "sk-test",
    maxRetries: 3,
    ...extra,
  };
}

/** A raw HTTP server on 127.0.0.1 that counts its requests. */
export interface RawServer extends AsyncDisposable {
  readonly url: string;
  readonly hits: number;
}

/** Serves every request with `handler` until disposed. */
export async function rawServer(handler: (request: Request) => Response): Promise<RawServer> {
  let hits = 0;
  const closing = new AbortController();
  const { promise: listening, resolve } = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: closing.signal, onListen: () => resolve() },
    async (request) => {
      hits++;
      await request.body?.cancel();
      return handler(request);
    },
  );
  await listening;
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    get hits() {
      return hits;
    },
    async [Symbol.asyncDispose]() {
      closing.abort();
      await server.finished;
    },
  };
}

/** One OpenAI-style SSE event (`data:` only). */
export function dataEvent(value: unknown): string {
  return `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;
}

/** One Anthropic-style SSE event (`event:` named after the value's type, then `data:`). */
export function typedEvent(value: { type: string; [field: string]: unknown }): string {
  return `event: ${value.type}\ndata: ${JSON.stringify(value)}\n\n`;
}

/** A `text/event-stream` response sending `events` one by one. */
export function sseResponse(events: string[]): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === events.length) controller.close();
      else controller.enqueue(encoder.encode(events[next++]));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** What the TCP stream server sends for one request. */
export interface StreamScript {
  events: string[];
  /** When true the connection closes after the events without ending the body. */
  drop?: boolean;
}

/**
 * A bare HTTP/1.1 server over TCP that answers each request with a chunked
 * SSE body and can drop the connection mid-body, as a failing network does.
 * `script` is called with the 1-based request number.
 */
export function streamServer(script: (hit: number) => StreamScript): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const encoder = new TextEncoder();
  let hits = 0;
  const serveOne = async (conn: Deno.Conn) => {
    try {
      await readRequest(conn);
      const { events, drop } = script(++hits);
      const write = (text: string) => conn.write(encoder.encode(text));
      await write(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
          "transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
      );
      for (const event of events) {
        const bytes = encoder.encode(event);
        await write(`${bytes.length.toString(16)}\r\n`);
        await conn.write(bytes);
        await write("\r\n");
      }
      if (!drop) await write("0\r\n\r\n");
    } catch {
      // The client went away; nothing to clean up but the connection.
    } finally {
      conn.close();
    }
  };
  const connections: Promise<void>[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) connections.push(serveOne(conn));
    } catch {
      // The listener was closed.
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    get hits() {
      return hits;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      await Promise.all(connections);
    },
  };
}

/** Reads one request (headers and a Content-Length body) from `conn`. */
async function readRequest(conn: Deno.Conn): Promise<void> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) return;
    text += decoder.decode(buffer.subarray(0, n), { stream: true });
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) continue;
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
    if (new TextEncoder().encode(text.slice(end + 4)).length >= length) return;
  }
}
