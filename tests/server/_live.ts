/**
 * The dashboard app on a real loopback socket, for WebSocket tests: a live
 * server, a raw upgrade request that reports the HTTP status, a JSON-RPC
 * client over a real `WebSocket`, and a pty client.
 *
 * @module
 */

import { createApp } from "../../server/app.ts";
import type { ServerDeps } from "../../server/deps.ts";
import { TEST_TOKEN, testDeps } from "./_app.ts";

/** A dashboard listening on 127.0.0.1. */
export interface LiveServer extends AsyncDisposable {
  readonly port: number;
  readonly deps: ServerDeps;
  /** `ws://127.0.0.1:<port><path>` with the token (unless `token` is null) and `query`. */
  wsUrl(path: string, query?: Record<string, string>, token?: string | null): string;
}

/**
 * Serves `createApp` on 127.0.0.1 with an OS-assigned port. `bindHost` is
 * the address the app believes it is bound to (for the origin matrix of
 * public binds), while the socket itself stays on loopback.
 */
export function startLiveServer(
  root: string,
  options: { bindHost?: string; deps?: Partial<ServerDeps> } = {},
): LiveServer {
  const controller = new AbortController();
  let fetch: (request: Request) => Response | Promise<Response> = () =>
    new Response("starting", { status: 503 });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen() {} },
    (request) => fetch(request),
  );
  const port = server.addr.port;
  const deps = testDeps(root, {
    bind: { host: options.bindHost ?? "127.0.0.1", port },
    ...options.deps,
  });
  const app = createApp(deps);
  fetch = (request) => app.fetch(request);
  return {
    port,
    deps,
    wsUrl(path, query = {}, token: string | null = TEST_TOKEN) {
      const url = new URL(`ws://127.0.0.1:${port}${path}`);
      if (token !== null) url.searchParams.set("token", token);
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
      return url.href;
    },
    async [Symbol.asyncDispose]() {
      controller.abort();
      await server.finished;
    },
  };
}

/**
 * Sends a WebSocket upgrade request over a raw TCP connection and returns
 * the HTTP status of the answer (101 when upgraded). Unlike a `WebSocket`
 * client, this shows why a handshake was refused and can send any Host.
 */
export async function upgradeStatus(
  port: number,
  pathWithQuery: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const lines = [
      `GET ${pathWithQuery} HTTP/1.1`,
      `Host: ${headers.Host ?? `127.0.0.1:${port}`}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      ...Object.entries(headers).filter(([name]) => name !== "Host").map(([n, v]) => `${n}: ${v}`),
    ];
    await conn.write(new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n`));
    let head = "";
    const buffer = new Uint8Array(4096);
    while (!head.includes("\r\n")) {
      const read = await conn.read(buffer);
      if (read === null) break;
      head += new TextDecoder().decode(buffer.subarray(0, read));
    }
    const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
    if (!status) throw new Error(`No HTTP status line in ${JSON.stringify(head)}`);
    return Number(status[1]);
  } finally {
    conn.close();
  }
}

/** Resolves when `condition` holds, checking every 20 ms; rejects after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens a WebSocket and waits until it is open; rejects when the handshake fails. */
export function openSocket(url: string, headers?: HeadersInit): Promise<WebSocket> {
  // Deno's WebSocket takes headers; the cast keeps this compiling when a browser test in the same
  // type-check pulls in the DOM lib (whose WebSocket takes only protocols).
  const options = (headers ? { headers } : undefined) as ConstructorParameters<typeof WebSocket>[1];
  const socket = new WebSocket(url, options);
  socket.binaryType = "arraybuffer";
  return new Promise((resolve, reject) => {
    socket.onopen = () => resolve(socket);
    socket.onerror = () => reject(new Error(`WebSocket handshake to ${url} failed`));
  });
}

/** Closes a socket and waits for the close to complete. */
export function closeSocket(socket: WebSocket): Promise<void> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    socket.addEventListener("close", () => resolve(), { once: true });
    socket.close();
  });
}

/** A JSON-RPC response as received. */
export interface RpcAnswer {
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: { code?: string } };
}

/** A server notification as received. */
export interface RpcEvent {
  method: string;
  params: Record<string, unknown>;
}

/** A JSON-RPC 2.0 client over a real WebSocket. */
export class RpcClient implements AsyncDisposable {
  readonly socket: WebSocket;
  /** Every notification received, oldest first. */
  readonly events: RpcEvent[] = [];
  /** Responses that answer no request of ours (id null: parse errors and the like). */
  readonly orphans: RpcAnswer[] = [];
  readonly #pending = new Map<number, (answer: RpcAnswer) => void>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.onmessage = (event) => {
      const value = JSON.parse(String(event.data));
      for (const message of Array.isArray(value) ? value : [value]) {
        if (typeof message.method === "string" && !("id" in message)) {
          this.events.push({ method: message.method, params: message.params });
        } else if (typeof message.id === "number" && this.#pending.has(message.id)) {
          const resolve = this.#pending.get(message.id)!;
          this.#pending.delete(message.id);
          resolve(message);
        } else {
          this.orphans.push(message);
        }
      }
    };
  }

  /** Connects to the gateway at `url`. */
  static async connect(url: string, headers?: HeadersInit): Promise<RpcClient> {
    return new RpcClient(await openSocket(url, headers));
  }

  /** Sends a request and resolves to the whole answer (result or error). */
  request(method: string, params?: unknown): Promise<RpcAnswer> {
    const id = this.#nextId++;
    const answer = new Promise<RpcAnswer>((resolve) => this.#pending.set(id, resolve));
    this.socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return answer;
  }

  /** Sends a request and resolves to its result; rejects with the error message. */
  async call<T = Record<string, unknown>>(method: string, params?: unknown): Promise<T> {
    const answer = await this.request(method, params);
    if (answer.error) {
      throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
    }
    return answer.result as T;
  }

  /** Sends raw text as one frame. */
  sendRaw(text: string): void {
    this.socket.send(text);
  }

  /** The notifications named `method` received so far. */
  named(method: string): RpcEvent[] {
    return this.events.filter((event) => event.method === method);
  }

  /** Waits for a notification named `method` that satisfies `match`. */
  async waitFor(
    method: string,
    match: (params: Record<string, unknown>) => boolean = () => true,
  ): Promise<RpcEvent> {
    let found: RpcEvent | undefined;
    await until(() => {
      found = this.events.find((event) => event.method === method && match(event.params));
      return found !== undefined;
    }, `notification ${method}`);
    return found!;
  }

  /** Closes the socket. */
  close(): Promise<void> {
    return closeSocket(this.socket);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** WebSocket opcodes (RFC 6455 section 5.2). */
export const Opcode = Object.freeze({
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
});

/** One frame as it crossed the wire. */
export interface WireFrame {
  fin: boolean;
  opcode: number;
  payload: Uint8Array;
}

/** How the server's side of a raw socket ended. */
export interface WireEnding {
  /** Every frame the server sent before the end, close frame included. */
  frames: WireFrame[];
  /** The server's close frame, when it sent one (`code` 1005 when it carried none). */
  close?: { code: number; reason: string };
  /** How the byte stream ended: a clean EOF, a TCP reset, or still open at the timeout. */
  end: "eof" | "reset" | "timeout";
}

/**
 * A WebSocket client on a raw TCP connection: the upgrade is written by
 * hand and frames are built byte by byte, so a test can send what a
 * well-behaved client never would (invalid UTF-8, oversized or fragmented
 * messages) and see exactly which frames the server answers with, and
 * whether it closes with a close frame or just drops the connection.
 */
export class RawWebSocket {
  readonly #conn: Deno.TcpConn;
  #buffered: Uint8Array;
  #ended: "eof" | "reset" | undefined;
  #closed = false;

  private constructor(conn: Deno.TcpConn, rest: Uint8Array) {
    this.#conn = conn;
    this.#buffered = rest;
  }

  /**
   * Connects to 127.0.0.1:`port` and upgrades `pathWithQuery` (the token
   * goes in the query). Rejects, with the status line, when the answer is
   * not 101.
   */
  static async open(port: number, pathWithQuery: string): Promise<RawWebSocket> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const request = [
      `GET ${pathWithQuery} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
    ];
    await conn.write(new TextEncoder().encode(`${request.join("\r\n")}\r\n\r\n`));
    let received: Uint8Array = new Uint8Array(0);
    const chunk = new Uint8Array(4096);
    let headEnd = -1;
    while (headEnd < 0) {
      const read = await conn.read(chunk);
      if (read === null) break;
      received = concatBytes(received, chunk.subarray(0, read));
      headEnd = indexOfHeadEnd(received);
    }
    const head = new TextDecoder().decode(received.subarray(0, Math.max(headEnd, 0)));
    if (headEnd < 0 || !head.startsWith("HTTP/1.1 101")) {
      conn.close();
      throw new Error(`The upgrade was refused: ${JSON.stringify(head.split("\r\n")[0])}`);
    }
    return new RawWebSocket(conn, received.subarray(headEnd + 4));
  }

  /** Sends one masked frame, as a client must (RFC 6455 section 5.3). */
  async send(opcode: number, payload: Uint8Array, options: { fin?: boolean } = {}): Promise<void> {
    await writeAll(this.#conn, encodeClientFrame(opcode, payload, options.fin ?? true));
  }

  /** Sends `text` as one text frame. */
  sendText(text: string): Promise<void> {
    return this.send(Opcode.text, new TextEncoder().encode(text));
  }

  /**
   * The next frame the server sends; undefined when the stream ended (see
   * {@link RawWebSocket.ended}) or nothing came within `timeoutMs`.
   */
  async next(timeoutMs = 5000): Promise<WireFrame | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const frame = decodeServerFrame(this.#buffered);
      if (frame) {
        this.#buffered = this.#buffered.subarray(frame.size);
        return frame.frame;
      }
      if (this.#ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      const chunk = await this.#read(left);
      if (chunk === "timeout") return undefined;
      if (chunk) this.#buffered = concatBytes(this.#buffered, chunk);
    }
  }

  /** How the stream ended so far: undefined while it is open. */
  get ended(): "eof" | "reset" | undefined {
    return this.#ended;
  }

  /**
   * Reads frames until the server's close frame and the end of the stream
   * (or `timeoutMs`), and reports both. A server that answers a close
   * frame's echo closes the TCP connection; this client sends that echo.
   */
  async readToEnd(timeoutMs = 5000): Promise<WireEnding> {
    const deadline = Date.now() + timeoutMs;
    const frames: WireFrame[] = [];
    let close: WireEnding["close"];
    while (!this.#ended) {
      const frame = await this.next(Math.max(deadline - Date.now(), 0));
      if (!frame) break;
      frames.push(frame);
      if (frame.opcode === Opcode.close && !close) {
        close = parseClosePayload(frame.payload);
        await this.send(Opcode.close, frame.payload.subarray(0, 2)).catch(() => {});
      }
    }
    return { frames, ...(close ? { close } : {}), end: this.#ended ?? "timeout" };
  }

  /** Closes the TCP connection (no close frame). Safe to call more than once. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  async #read(timeoutMs: number): Promise<Uint8Array | null | "timeout"> {
    const chunk = new Uint8Array(64 * 1024);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const reading = this.#conn.read(chunk).then(
      (read) => read === null ? null : chunk.slice(0, read),
      (error) => {
        if (error instanceof Deno.errors.ConnectionReset) return "reset" as const;
        throw error;
      },
    );
    try {
      const result = await Promise.race([reading, timeout]);
      if (result === "timeout") {
        // The read stays pending; it is settled when the connection closes.
        reading.catch(() => {});
        return "timeout";
      }
      if (result === null) this.#ended = "eof";
      if (result === "reset") {
        this.#ended = "reset";
        return null;
      }
      return result;
    } finally {
      clearTimeout(timer);
    }
  }
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** A client frame: FIN bit, opcode, mask bit set, length and a fixed mask key. */
function encodeClientFrame(opcode: number, payload: Uint8Array, fin: boolean): Uint8Array {
  const mask = [0x12, 0x34, 0x56, 0x78];
  const head: number[] = [(fin ? 0x80 : 0) | opcode];
  const length = payload.length;
  if (length < 126) head.push(0x80 | length);
  else if (length < 65536) head.push(0x80 | 126, length >> 8, length & 0xff);
  else {
    head.push(0x80 | 127);
    const big = new DataView(new ArrayBuffer(8));
    big.setBigUint64(0, BigInt(length));
    head.push(...new Uint8Array(big.buffer));
  }
  const frame = new Uint8Array(head.length + 4 + length);
  frame.set(head);
  frame.set(mask, head.length);
  const body = head.length + 4;
  for (let i = 0; i < length; i++) frame[body + i] = payload[i] ^ mask[i & 3];
  return frame;
}

/** Decodes one unmasked server frame at the start of `bytes`, if it is all there. */
function decodeServerFrame(bytes: Uint8Array): { frame: WireFrame; size: number } | undefined {
  if (bytes.length < 2) return undefined;
  const fin = (bytes[0] & 0x80) !== 0;
  const opcode = bytes[0] & 0x0f;
  let length = bytes[1] & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (bytes.length < 4) return undefined;
    length = (bytes[2] << 8) | bytes[3];
    offset = 4;
  } else if (length === 127) {
    if (bytes.length < 10) return undefined;
    length = Number(new DataView(bytes.buffer, bytes.byteOffset + 2, 8).getBigUint64(0));
    offset = 10;
  }
  if ((bytes[1] & 0x80) !== 0) throw new Error("The server sent a masked frame");
  if (bytes.length < offset + length) return undefined;
  return {
    frame: { fin, opcode, payload: bytes.slice(offset, offset + length) },
    size: offset + length,
  };
}

function parseClosePayload(payload: Uint8Array): { code: number; reason: string } {
  if (payload.length < 2) return { code: 1005, reason: "" };
  return {
    code: (payload[0] << 8) | payload[1],
    reason: new TextDecoder().decode(payload.subarray(2)),
  };
}
