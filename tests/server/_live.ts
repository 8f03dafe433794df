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
  const socket = new WebSocket(url, headers ? { headers } : undefined);
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
