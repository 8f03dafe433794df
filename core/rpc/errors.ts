/**
 * Why a call to the other side of a JSON-RPC connection got no answer: it
 * timed out, the connection closed first, or the bytes on the wire broke
 * the framing. (An answer that is an error rejects with {@link RpcError}.)
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** A request the other side did not answer in time. */
export class RpcTimeoutError extends HeraldError {
  /** Creates the error for `method`, which waited `timeoutMs` milliseconds. */
  constructor(readonly method: string, readonly timeoutMs: number) {
    super(
      "rpc_timeout",
      "unavailable",
      `No answer to "${method}" within ${timeoutMs} ms; the other side may be stuck or overloaded`,
      { details: { method, timeout_ms: timeoutMs } },
    );
  }
}

/** A request that can no longer be answered: the connection closed. */
export class RpcClosedError extends HeraldError {
  /**
   * Creates the error for `method` (undefined for a message that could not
   * be sent); `reason` is why the connection closed, when known.
   */
  constructor(readonly method: string | undefined, reason?: unknown) {
    const why = reason instanceof Error ? `: ${reason.message}` : "";
    super(
      "rpc_closed",
      "unavailable",
      method === undefined
        ? `The connection is closed${why}`
        : `The connection closed before "${method}" was answered${why}`,
      reason === undefined ? { details: { method } } : { cause: reason, details: { method } },
    );
  }
}

/** What broke the framing of a byte stream. */
export type RpcFramingProblem =
  | "line_too_long"
  | "header_too_large"
  | "header_malformed"
  | "content_length_missing"
  | "content_length_invalid"
  | "body_too_large"
  | "charset_unsupported"
  | "truncated";

/**
 * Bytes from the other side that do not follow the framing (a line or a
 * header over its cap, a malformed header, a message cut off). The stream
 * cannot be trusted past it, so the connection ends.
 */
export class RpcFramingError extends HeraldError {
  /** Creates the error for `problem`, described by `message`. */
  constructor(readonly problem: RpcFramingProblem, message: string) {
    super(`rpc_${problem}`, "parse", message, { details: { problem } });
  }
}
