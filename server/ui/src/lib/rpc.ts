/**
 * The `/api/ws` JSON-RPC 2.0 client: one socket for the page, opened on
 * first use and reopened after a drop. Calls wait for the socket (up to
 * {@link OPEN_TIMEOUT_MS}; a turn's answer itself may take as long as the
 * turn); a drop fails the calls in flight (a turn's result is lost with the
 * socket, but the turn itself is stored by the server and shows up in
 * Sessions). A socket that is refused or never opens has the token checked
 * (lib/socket_auth.ts), so a dashboard restarted with a new token shows the
 * token screen.
 */

import { token } from "./token.ts";
import { checkTokenAfterClose, TOKEN_REFUSED_CLOSE } from "./socket_auth.ts";

/** How long a call waits for the socket to open before it fails. */
export const OPEN_TIMEOUT_MS = 10_000;

/** A JSON-RPC error answered by the server. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: { code?: string; [key: string]: unknown },
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** A notification from the server: `method` and its params. */
export interface RpcNotification {
  method: string;
  params: Record<string, unknown>;
}

/** The socket's state, for the header's connection dot. */
export type RpcState = "connecting" | "open" | "closed";

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/** A JSON-RPC connection over a WebSocket. */
export class RpcClient {
  #socket: WebSocket | undefined;
  #opened: Promise<WebSocket> | undefined;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  #listeners = new Set<(notification: RpcNotification) => void>();
  #stateListeners = new Set<(state: RpcState) => void>();
  #state: RpcState = "closed";

  constructor(readonly url: string = socketUrl()) {}

  /** The socket's current state. */
  get state(): RpcState {
    return this.#state;
  }

  /**
   * Calls `method` and resolves with its result (rejects with {@link RpcError}).
   * Opening the socket may take {@link OPEN_TIMEOUT_MS}; the answer has no
   * limit here (a turn runs as long as it runs).
   */
  async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const socket = await this.#open();
    if (socket.readyState !== WebSocket.OPEN) {
      throw new RpcError(
        -32000,
        `The connection to the dashboard closed before "${method}" was sent. Try again.`,
        { code: "connection_closed" },
      );
    }
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** Listens to every notification; returns the unsubscribe function. */
  onNotification(listener: (notification: RpcNotification) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Listens to state changes; returns the unsubscribe function. */
  onState(listener: (state: RpcState) => void): () => void {
    this.#stateListeners.add(listener);
    return () => void this.#stateListeners.delete(listener);
  }

  /** Closes the socket (the server ends this connection's sessions). */
  close(): void {
    this.#socket?.close(1000);
  }

  #setState(state: RpcState): void {
    this.#state = state;
    for (const listener of this.#stateListeners) listener(state);
  }

  #open(): Promise<WebSocket> {
    if (this.#opened) return this.#opened;
    this.#setState("connecting");
    const opened = new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(this.url);
      this.#socket = socket;
      let wasOpen = false;
      const timer = setTimeout(() => {
        reject(
          new RpcError(
            -32000,
            `The dashboard did not open the live connection within ${
              OPEN_TIMEOUT_MS / 1000
            } s. Is \`herald dashboard\` still running?`,
            { code: "connection_timeout" },
          ),
        );
        socket.close();
      }, OPEN_TIMEOUT_MS);
      socket.onopen = () => {
        clearTimeout(timer);
        wasOpen = true;
        this.#setState("open");
        resolve(socket);
      };
      socket.onmessage = (event) => this.#receive(String(event.data));
      socket.onclose = (event) => {
        clearTimeout(timer);
        if (this.#opened === opened) this.#opened = undefined;
        this.#setState("closed");
        // A refused token arrives as 4401, or as 1006 on a socket that never opened.
        checkTokenAfterClose(event.code, wasOpen);
        const reason = event.code === TOKEN_REFUSED_CLOSE
          ? "The session token was refused."
          : wasOpen
          ? "The connection to the dashboard closed."
          : "Could not connect to the dashboard. Is `herald dashboard` still running?";
        reject(new RpcError(-32000, reason, { code: "connection_closed" }));
        for (const pending of this.#pending.values()) {
          pending.reject(new RpcError(-32000, reason, { code: "connection_closed" }));
        }
        this.#pending.clear();
        for (const listener of this.#listeners) {
          listener({ method: "connection.closed", params: { code: event.code } });
        }
      };
    });
    this.#opened = opened;
    return opened;
  }

  #receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) {
      const entry = item as {
        id?: number;
        method?: string;
        params?: Record<string, unknown>;
        result?: unknown;
        error?: { code: number; message: string; data?: { code?: string } };
      };
      if (entry.method !== undefined && entry.id === undefined) {
        for (const listener of this.#listeners) {
          listener({ method: entry.method, params: entry.params ?? {} });
        }
        continue;
      }
      const pending = entry.id === undefined ? undefined : this.#pending.get(entry.id);
      if (!pending) continue;
      this.#pending.delete(entry.id!);
      if (entry.error) {
        pending.reject(new RpcError(entry.error.code, entry.error.message, entry.error.data));
      } else pending.resolve(entry.result);
    }
  }
}

function socketUrl(): string {
  const url = new URL("/api/ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.search = `?token=${encodeURIComponent(token)}`;
  url.hash = "";
  return url.href;
}

let shared: RpcClient | undefined;

/** The page's one connection. */
export function rpc(): RpcClient {
  shared ??= new RpcClient();
  return shared;
}
