/**
 * MCP's Streamable HTTP transport as a port of the JSON-RPC peer
 * (core/rpc/peer.ts): every message this side sends is one POST to the
 * server's endpoint; the reply is one JSON message, or an SSE stream that
 * may carry the server's own requests and notifications before the answer,
 * or `202` with no body for a notification or a response. Every message
 * received is handed to the peer.
 *
 * The `MCP-Session-Id` the server gives on the first reply is sent back on
 * every later request, with `MCP-Protocol-Version` once the caller set the
 * negotiated revision; {@link McpHttpPort.terminate} ends the session with
 * `DELETE`. Each POST (its reply read to the end included) and the DELETE
 * have their own timeout.
 *
 * @module
 */

import { HeraldError } from "../../core/errors.ts";
import type { RpcPort } from "../../core/rpc/mod.ts";

/** What went wrong with an HTTP exchange. */
export type McpHttpProblem = "status" | "html" | "no_answer";

/** A reply that is not an MCP reply: an HTTP error, an HTML page, a request left unanswered. */
export class McpHttpError extends HeraldError {
  /** Creates the error; `status` is the HTTP status of the reply. */
  constructor(
    readonly problem: McpHttpProblem,
    readonly status: number,
    message: string,
  ) {
    super(`mcp_http_${problem}`, problem === "status" ? "unavailable" : "parse", message, {
      details: { status },
    });
  }
}

/** Options of {@link McpHttpPort}. */
export interface McpHttpPortOptions {
  /** Headers sent with every request (credentials from the server's config). */
  headers?: Readonly<Record<string, string>>;
  /** How long one POST may take, its reply read to the end included, in milliseconds. */
  timeoutMs: number;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The id of `message` when it is a request; undefined for a notification or a response. */
function requestId(message: Record<string, unknown> | undefined): unknown {
  return message && typeof message.method === "string" && "id" in message ? message.id : undefined;
}

/** What to add to an HTTP error status: a refusal (401, 403) points at the credentials. */
function statusHint(status: number): string {
  return status === 401 || status === 403 ? "; check the server's headers (credentials)" : "";
}

function answers(text: string, id: unknown): boolean {
  const message = parseObject(text);
  return !!message && message.id === id && ("result" in message || "error" in message);
}

/**
 * One MCP server endpoint spoken to over Streamable HTTP.
 *
 * @example
 * ```ts
 * const port = new McpHttpPort("http://127.0.0.1:3901/mcp", { timeoutMs: 10_000 });
 * const peer = new RpcPeer(port);
 * port.attach((text) => peer.receive(text));
 * const result = await peer.request("initialize", params);
 * port.protocolVersion = String((result as { protocolVersion: string }).protocolVersion);
 * await peer.notify("notifications/initialized");
 * await port.terminate();
 * ```
 */
export class McpHttpPort implements RpcPort {
  readonly #url: string;
  readonly #headers: Readonly<Record<string, string>>;
  #deliver: (text: string) => void = () => {};
  /** How long one POST (and, by default, the DELETE) may take, in milliseconds. */
  readonly timeoutMs: number;
  /** The session the server gave on its first reply, if any. */
  sessionId: string | undefined;
  /** The negotiated revision, sent as `MCP-Protocol-Version` once set. */
  protocolVersion: string | undefined;

  /** Creates the port for the endpoint `url`; nothing is sent until the peer sends. */
  constructor(url: string, options: McpHttpPortOptions) {
    this.#url = url;
    this.#headers = options.headers ?? {};
    this.timeoutMs = options.timeoutMs;
  }

  /** Sets where received messages go (the peer's `receive`). */
  attach(deliver: (text: string) => void): void {
    this.#deliver = deliver;
  }

  /**
   * POSTs one message and hands every message of the reply to the peer.
   * For a request, returns once its answer came (the rest of an SSE stream
   * is dropped).
   *
   * @throws McpHttpError for an HTTP error status, an HTML page, or a
   * request the reply did not answer (its message names the method sent,
   * `initialize` say); the fetch's own errors (a
   * `TimeoutError` past {@link timeoutMs}, a `TypeError` for a server that
   * cannot be reached) as they are.
   */
  async send(text: string): Promise<void> {
    const message = parseObject(text);
    const sent = typeof message?.method === "string" ? `${message.method} ` : "";
    const response = await fetch(this.#url, {
      method: "POST",
      headers: {
        ...this.#sessionHeaders(),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: text,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new McpHttpError(
        "status",
        response.status,
        `${this.#url} answered ${sent}with HTTP ${response.status}${statusHint(response.status)}`,
      );
    }
    this.sessionId ??= response.headers.get("mcp-session-id") ?? undefined;
    const type = response.headers.get("content-type") ?? "";
    if (type.includes("text/html")) {
      await response.body?.cancel();
      throw new McpHttpError(
        "html",
        response.status,
        `${this.#url} answered with an HTML page, not an MCP response; check the URL`,
      );
    }
    const id = requestId(message);
    const answered = type.includes("text/event-stream") && response.body
      ? await this.#readEvents(response.body, id)
      : this.#take(await response.text(), id);
    if (id !== undefined && !answered) {
      throw new McpHttpError(
        "no_answer",
        response.status,
        `${this.#url} did not answer ${sent}with a JSON-RPC response`,
      );
    }
  }

  /**
   * Ends the session with `DELETE` when the server gave one, waiting at most
   * `timeoutMs` (default {@link timeoutMs}). Best effort: never throws.
   */
  async terminate(timeoutMs: number = this.timeoutMs): Promise<void> {
    if (!this.sessionId) return;
    try {
      const ended = await fetch(this.#url, {
        method: "DELETE",
        headers: this.#sessionHeaders(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await ended.body?.cancel();
    } catch {
      // The server forgets idle sessions on its own.
    }
  }

  #sessionHeaders(): Record<string, string> {
    return {
      ...this.#headers,
      ...(this.protocolVersion ? { "mcp-protocol-version": this.protocolVersion } : {}),
      ...(this.sessionId ? { "mcp-session-id": this.sessionId } : {}),
    };
  }

  /** Hands `text` to the peer; true when it answers request `id`. */
  #take(text: string, id: unknown): boolean {
    if (text.trim() === "") return false;
    this.#deliver(text);
    return id !== undefined && answers(text, id);
  }

  /** Reads SSE events until the one answering request `id` (or the end); true when it came. */
  async #readEvents(body: ReadableStream<Uint8Array>, id: unknown): Promise<boolean> {
    let buffer = "";
    for await (const chunk of body.pipeThrough(new TextDecoderStream())) {
      buffer += chunk.replace(/\r\n/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split("\n").filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart()).join("\n");
        // Returning from the loop cancels the rest of the stream.
        if (this.#take(data, id)) return true;
      }
    }
    return false;
  }
}
