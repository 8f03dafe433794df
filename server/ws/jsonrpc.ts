/**
 * JSON-RPC 2.0 for the dashboard's WebSocket gateway: one JSON value per
 * text frame, a request object or a batch (an array of them). The protocol
 * itself (ids, error codes, batches, the budget of calls in flight, the
 * peer) lives in core/rpc/; this module re-exports what the gateway's
 * method handlers (server/ws/methods/) use and adds the server's own error
 * class to the one place errors become JSON-RPC error objects.
 *
 * Error codes: the standard -32700, -32600, -32601, -32602 and -32603, plus
 * -32000 for a domain error, whose `data.code` carries Herald's
 * machine-readable code (`profile_not_found`, `model_not_configured`,
 * `session_not_found`, `turn_running`, `too_many_calls`, ...).
 *
 * Limits (server/ws/limits.ts): a batch holds at most `MAX_RPC_BATCH_CALLS`
 * calls (a larger one gets one -32600 error with `data.code`
 * `batch_too_large` and none of it runs), its calls run
 * `MAX_RPC_BATCH_CONCURRENCY` at a time, and a connection's calls in flight
 * are capped by a {@link CallBudget}.
 *
 * @module
 */

import {
  type FrameOptions,
  handleFrame as handleCoreFrame,
  RpcErrorCode,
  type RpcErrorObject,
  type RpcMethods,
} from "../../core/rpc/mod.ts";
import { ApiError } from "../errors.ts";

export {
  CallBudget,
  domainError,
  method,
  RpcErrorCode,
  type RpcMethods,
} from "../../core/rpc/mod.ts";

/** The JSON-RPC error object for the server's {@link ApiError}: -32000 with its code. */
export function describeServerError(error: unknown): RpcErrorObject | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return { code: RpcErrorCode.domainError, message: error.message, data: { code: error.code } };
}

/**
 * Answers one text frame with the gateway's error mapping (see
 * core/rpc/serve.ts): the JSON text to send back, or undefined when nothing
 * is owed.
 */
export function handleFrame(
  methods: RpcMethods,
  text: string,
  options: FrameOptions = {},
): Promise<string | undefined> {
  return handleCoreFrame(methods, text, { describeError: describeServerError, ...options });
}
