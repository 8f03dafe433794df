/**
 * Limits of the dashboard's WebSockets (`/api/ws` and `/api/pty`) and the
 * close codes used when a client goes past one. docs/dashboard.md quotes
 * these figures; tests use the constants rather than repeating them.
 *
 * | limit | figure | past it |
 * | --- | --- | --- |
 * | {@link MAX_RPC_MESSAGE_BYTES} | 1 MiB per `/api/ws` message | close 1009, nothing parsed |
 * | binary message on `/api/ws` | not accepted | close 1003 |
 * | {@link MAX_RPC_BATCH_CALLS} | 100 calls per batch | one -32600 answer, no call runs |
 * | {@link MAX_RPC_BATCH_CONCURRENCY} | 8 calls of a batch at a time | the rest wait, in order |
 * | {@link MAX_RPC_CALLS_IN_FLIGHT} | 128 unanswered calls per connection | -32000 `too_many_calls` per call |
 * | {@link MAX_GATEWAY_SESSIONS} | 32 open sessions per connection | -32000 `too_many_sessions` |
 * | {@link MAX_PTY_MESSAGE_BYTES} | 64 KiB per `/api/pty` message | close 1009 |
 * | {@link MAX_PTY_STARTUP_INPUT_BYTES} | 256 KiB typed before the program runs | close 1008 |
 * | {@link MAX_SOCKET_BUFFERED_BYTES} | 8 MiB queued for a client that is not reading | close 1008 |
 *
 * What the runtime itself enforces first (Deno 2.9.6): one frame larger than
 * 64 MiB, or a text frame that is not valid UTF-8, drops the TCP connection
 * without a close frame (so no 1009 or 1007 reaches the client), before any
 * handler runs. A message split into many fragments is put together whole,
 * whatever its size, before the handler sees it; the limits above apply
 * then. (A fragmented text message past V8's largest string, about
 * 512 MiB, makes Deno's own WebSocket code throw outside any handler, which
 * ends the process; nothing here can catch it.)
 *
 * @module
 */

/** Largest JSON-RPC message on `/api/ws`, in UTF-8 bytes (1 MiB). Larger: close 1009. */
export const MAX_RPC_MESSAGE_BYTES = 1024 * 1024;

// The JSON-RPC limits are the peer's defaults (core/rpc/limits.ts): 100 calls
// per batch, 8 of them at a time, 128 calls in flight per connection.
export {
  MAX_RPC_BATCH_CALLS,
  MAX_RPC_BATCH_CONCURRENCY,
  MAX_RPC_CALLS_IN_FLIGHT,
} from "../../core/rpc/limits.ts";

/** Sessions one `/api/ws` connection may hold open (`session.start` past it: `too_many_sessions`). */
export const MAX_GATEWAY_SESSIONS = 32;

/** Largest message a client may send on `/api/pty`, in bytes (64 KiB). Larger: close 1009. */
export const MAX_PTY_MESSAGE_BYTES = 64 * 1024;

/** Bytes a client may send on `/api/pty` while the terminal program starts. More: close 1008. */
export const MAX_PTY_STARTUP_INPUT_BYTES = 256 * 1024;

/**
 * Bytes the server may have queued for one client that is not reading
 * (`WebSocket.bufferedAmount`, in 8 MiB). Past it the server stops sending,
 * closes with 1008 and ends the connection's work (sessions, terminal).
 */
export const MAX_SOCKET_BUFFERED_BYTES = 8 * 1024 * 1024;

/** WebSocket close codes the dashboard sends (RFC 6455 section 7.4.1). */
export const WsCloseCode = Object.freeze({
  normal: 1000,
  /** The dashboard is stopping (SIGINT or SIGTERM); see server/ws/live.ts. */
  goingAway: 1001,
  /** A kind of message the endpoint does not take (binary on `/api/ws`). */
  unsupportedData: 1003,
  /** Data inconsistent with the message type; Deno 2.9.6 cannot send it (see the module doc). */
  invalidPayload: 1007,
  /** The client broke a rule of the endpoint (stopped reading, typed too much too early). */
  policyViolation: 1008,
  messageTooBig: 1009,
  internalError: 1011,
});

/** The parts of a server-side WebSocket these helpers use. */
export interface LimitedSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string | Uint8Array<ArrayBuffer>): void;
  close(code?: number, reason?: string): void;
}

const OPEN = 1;

/**
 * The UTF-8 length of `text` in bytes, computed only as far as needed to
 * compare with `limit`: the exact length when it is at most `limit`, and
 * some number above `limit` otherwise.
 */
export function utf8LengthUpTo(text: string, limit: number): number {
  // Every UTF-16 unit takes 1 to 3 bytes (a surrogate pair, 2 units, takes 4).
  if (text.length > limit) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The size in bytes of a received message (a string, ArrayBuffer, typed
 * array or Blob), counted up to just past `limit`.
 */
export function messageBytesUpTo(data: unknown, limit: number): number {
  if (typeof data === "string") return utf8LengthUpTo(data, limit);
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (ArrayBuffer.isView(data)) return data.byteLength;
  if (data instanceof Blob) return data.size;
  return 0;
}

/** The close reason for a message over `limit` bytes (within the 123 bytes a reason may take). */
export function tooBigReason(what: string, limit: number): string {
  return `${what} larger than the ${limit}-byte limit`;
}

/** Closes `socket` with `code` and `reason` unless it is already closing. */
export function closeWithCode(socket: LimitedSocket, code: number, reason: string): void {
  if (socket.readyState !== OPEN) return;
  try {
    socket.close(code, reason);
  } catch {
    // Closed between the check and the call.
  }
}

/**
 * Sends `data` unless the client has stopped reading: when more than
 * `highWater` bytes are already queued for it, nothing more is queued, the
 * socket is closed with 1008 and `false` is returned (the caller ends the
 * connection's work). Also `false` when the socket is not open.
 */
export function sendBounded(
  socket: LimitedSocket,
  data: string | Uint8Array<ArrayBuffer>,
  highWater: number = MAX_SOCKET_BUFFERED_BYTES,
): boolean {
  if (socket.readyState !== OPEN) return false;
  if (socket.bufferedAmount > highWater) {
    closeWithCode(
      socket,
      WsCloseCode.policyViolation,
      `The client is not reading: over ${highWater} bytes are waiting to be sent`,
    );
    return false;
  }
  try {
    socket.send(data);
    return true;
  } catch {
    // The socket started closing; its close handler cleans up.
    return false;
  }
}
