/**
 * One JSON-RPC 2.0 peer that both serves and calls, over any framing: the
 * framing hands it each incoming message text ({@link RpcPeer.receive}) and
 * gives it a port to send message texts on. It answers requests from its
 * handler map (unknown methods: -32601; params a schema refuses: -32602;
 * garbage: -32700), sends requests of its own and matches the answers by
 * id, whatever order they come in, and passes the notifications it does not
 * serve to its listeners.
 *
 * The framings are adapters: newline-delimited JSON and `Content-Length`
 * headers over byte streams (adapters/rpc/), WebSocket text frames
 * (server/ws/gateway.ts), one HTTP POST per message (adapters/mcp/).
 *
 * @module
 */

import { RpcClosedError, RpcTimeoutError } from "./errors.ts";
import { CallBudget } from "./limits.ts";
import { RpcError, RpcErrorCode, type RpcId, type RpcMethods, type RpcParams } from "./protocol.ts";
import {
  type FrameOptions,
  handleFrame,
  type IncomingNotification,
  type IncomingResponse,
} from "./serve.ts";

/** Where a peer's outgoing message texts go: one JSON text per call, framed by the port. */
export interface RpcPort {
  /**
   * Sends one message. May throw or reject when it cannot; the request it
   * carried then rejects with that error.
   */
  send(text: string): void | Promise<void>;
}

/** A notification to send when a request is given up (MCP: `notifications/cancelled`). */
export interface CancelNotice {
  method: string;
  params?: RpcParams;
}

/** Options of {@link RpcPeer}. */
export interface RpcPeerOptions extends
  Pick<
    FrameOptions,
    "maxBatchCalls" | "batchConcurrency" | "describeError" | "requireVersion" | "replyToParseErrors"
  > {
  /** The methods this side serves (default: none; every request gets -32601). */
  methods?: RpcMethods;
  /** The budget of incoming calls in flight (default: a {@link CallBudget} of 128). */
  budget?: CallBudget;
  /** Timeout of a request that names none, in milliseconds (default: none). */
  timeoutMs?: number;
  /**
   * The notification telling the other side that a request was given up
   * (timed out or aborted), or undefined to send none (the default).
   */
  cancelNotice?: (id: RpcId, reason: string) => CancelNotice | undefined;
}

/** Options of one {@link RpcPeer.request}. */
export interface RequestOptions {
  /** Gives up after this many milliseconds, rejecting with {@link RpcTimeoutError}. */
  timeoutMs?: number;
  /** Gives up when aborted, rejecting with the signal's reason. */
  signal?: AbortSignal;
}

/** Takes a notification the peer does not serve. */
export type NotificationHandler = (notification: IncomingNotification) => void;

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: unknown): void;
  cleanup(): void;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** The {@link RpcError} for the `error` member of a response. */
function errorFromWire(error: unknown): RpcError {
  if (!isObject(error)) {
    return new RpcError(RpcErrorCode.internalError, "The answer is an error with no details");
  }
  const code = typeof error.code === "number" ? error.code : RpcErrorCode.internalError;
  const message = typeof error.message === "string" ? error.message : "no message";
  return new RpcError(code, message, error.data);
}

function messageText(id: RpcId | undefined, method: string, params?: RpcParams): string {
  const message: Record<string, unknown> = { jsonrpc: "2.0" };
  if (id !== undefined) message.id = id;
  message.method = method;
  if (params !== undefined) message.params = params;
  return JSON.stringify(message);
}

/**
 * A JSON-RPC 2.0 peer over a port.
 *
 * @example
 * ```ts
 * const peer = new RpcPeer({ send: (text) => socket.send(text) }, {
 *   methods: { ping: method(z.object({}), () => ({})) },
 * });
 * socket.onmessage = (event) => peer.receive(String(event.data));
 * const result = await peer.request("initialize", { capabilities: {} }, { timeoutMs: 5000 });
 * peer.onNotification(({ method, params }) => console.log(method, params));
 * ```
 */
export class RpcPeer {
  readonly #port: RpcPort;
  readonly #options: RpcPeerOptions;
  readonly #frame: FrameOptions;
  readonly #methods: RpcMethods;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<NotificationHandler>();
  #nextId = 0;
  #closed = false;
  #closeReason: unknown;

  /** Creates a peer that sends on `port`; nothing is sent until asked. */
  constructor(port: RpcPort, options: RpcPeerOptions = {}) {
    this.#port = port;
    this.#options = options;
    this.#methods = options.methods ?? {};
    this.#frame = {
      budget: options.budget ?? new CallBudget(),
      maxBatchCalls: options.maxBatchCalls,
      batchConcurrency: options.batchConcurrency,
      describeError: options.describeError,
      requireVersion: options.requireVersion,
      replyToParseErrors: options.replyToParseErrors,
      onResponse: (response) => this.#settle(response),
      onNotification: (notification) => this.#dispatch(notification),
    };
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Requests sent and not yet answered, given up or rejected. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Takes one incoming message text. Responses and unserved notifications
   * are handled before this first waits (so they keep their order); calls
   * run, and the answer owed is sent, before the promise resolves. Never
   * rejects; after {@link close} it does nothing.
   */
  async receive(text: string): Promise<void> {
    if (this.#closed) return;
    const answer = await handleFrame(this.#methods, text, this.#frame);
    if (answer === undefined || this.#closed) return;
    try {
      await this.#port.send(answer);
    } catch (error) {
      this.close(error);
    }
  }

  /**
   * Calls `method` on the other side and resolves to its result. Rejects
   * with {@link RpcError} (code, message, data) when the answer is an error,
   * {@link RpcTimeoutError} past the timeout, the signal's reason when
   * aborted, {@link RpcClosedError} when the peer closes first, and the
   * port's own error when the message cannot be sent. `params` undefined
   * leaves the member out (LSP's `shutdown` wants none).
   */
  request<T = unknown>(
    method: string,
    params?: RpcParams,
    options: RequestOptions = {},
  ): Promise<T> {
    if (this.#closed) return Promise.reject(new RpcClosedError(method, this.#closeReason));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => this.#abandon(id, signal!.reason, "The request was aborted");
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    this.#pending.set(id, { method, resolve, reject, cleanup });
    if (timeoutMs !== undefined) {
      timer = setTimeout(
        () =>
          this.#abandon(
            id,
            new RpcTimeoutError(method, timeoutMs),
            `No answer within ${timeoutMs} ms`,
          ),
        timeoutMs,
      );
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#write(messageText(id, method, params)).catch((error) => this.#fail(id, error));
    return promise as Promise<T>;
  }

  /**
   * Sends a notification (no answer comes). Resolves once the port took it;
   * rejects with {@link RpcClosedError} after {@link close}, or with the
   * port's error.
   */
  notify(method: string, params?: RpcParams): Promise<void> {
    if (this.#closed) return Promise.reject(new RpcClosedError(undefined, this.#closeReason));
    return this.#write(messageText(undefined, method, params));
  }

  /**
   * Calls `handler` with every incoming notification that no served method
   * takes, in the order they arrive; returns the function that stops it. A
   * handler that throws does not stop the others.
   */
  onNotification(handler: NotificationHandler): () => void {
    this.#listeners.add(handler);
    return () => this.#listeners.delete(handler);
  }

  /**
   * Closes the peer: every pending request rejects with
   * {@link RpcClosedError} (carrying `reason` as its cause), nothing more is
   * sent or received. Calls already running finish, but their answers are
   * not sent.
   */
  close(reason?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeReason = reason;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of pending) {
      entry.cleanup();
      entry.reject(new RpcClosedError(entry.method, reason));
    }
  }

  /** Sends `text` on the port now (synchronously), as a promise. */
  #write(text: string): Promise<void> {
    try {
      return Promise.resolve(this.#port.send(text));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #take(id: number): Pending | undefined {
    const entry = this.#pending.get(id);
    if (!entry) return undefined;
    this.#pending.delete(id);
    entry.cleanup();
    return entry;
  }

  #settle({ id, message }: IncomingResponse): void {
    // Ours are numbers; anything else (null for a parse error, a stranger's id) answers nothing of ours.
    if (typeof id !== "number") return;
    const entry = this.#take(id);
    if (!entry) return;
    if ("error" in message) entry.reject(errorFromWire(message.error));
    else entry.resolve(message.result);
  }

  #fail(id: number, error: unknown): void {
    this.#take(id)?.reject(error);
  }

  /** Gives up request `id`: rejects it with `error` and tells the other side when configured. */
  #abandon(id: number, error: unknown, reason: string): void {
    const entry = this.#take(id);
    if (!entry) return;
    entry.reject(error);
    const notice = this.#options.cancelNotice?.(id, reason);
    if (notice && !this.#closed) this.notify(notice.method, notice.params).catch(() => {});
  }

  #dispatch(notification: IncomingNotification): void {
    for (const handler of [...this.#listeners]) {
      try {
        handler(notification);
      } catch {
        // One handler's failure is its own; the others still hear the notification.
      }
    }
  }
}
