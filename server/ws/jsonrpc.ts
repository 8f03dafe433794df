/**
 * JSON-RPC 2.0 framing for the dashboard's WebSocket gateway: one JSON value
 * per text frame, a request object or a batch (an array of them). Method
 * handlers take validated params and return a result or throw; every error
 * becomes a JSON-RPC error object here, in one place.
 *
 * Error codes: the standard -32700 (parse error), -32600 (invalid request),
 * -32601 (method not found), -32602 (invalid params) and -32603 (internal
 * error), plus -32000 for a domain error, whose `data.code` carries Herald's
 * machine-readable code (`profile_not_found`, `model_not_configured`,
 * `session_not_found`, `turn_running`, ...).
 *
 * @module
 */

import { z } from "zod";
import { HeraldError } from "../../core/errors.ts";
import { ApiError } from "../errors.ts";

/** Standard and Herald-specific JSON-RPC error codes. */
export const RpcErrorCode = Object.freeze({
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** A Herald domain error; `data.code` says which. */
  domainError: -32000,
});

/** A request id: a string, a number or null (JSON-RPC 2.0 section 4). */
export type RpcId = string | number | null;

/** The error member of a response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A response to one request. */
export type RpcResponse =
  | { jsonrpc: "2.0"; id: RpcId; result: unknown }
  | { jsonrpc: "2.0"; id: RpcId; error: RpcErrorObject };

/** A server-to-client notification. */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params: Record<string, unknown>;
}

/** An error a handler throws to answer with a specific JSON-RPC error. */
export class RpcError extends Error {
  /** Creates the error with a JSON-RPC `code` and optional `data`. */
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = "RpcError";
  }
}

/** A domain error with a machine-readable Herald `code` (JSON-RPC -32000). */
export function domainError(code: string, message: string): RpcError {
  return new RpcError(RpcErrorCode.domainError, message, { code });
}

/** One method: validates its params and answers. */
export interface RpcMethod {
  /**
   * Answers a call with `params` (an object, `{}` when absent).
   *
   * @throws RpcError -32602 when the params do not fit the method.
   */
  call(params: unknown, name: string): Promise<unknown>;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`)
    .join("; ");
}

/** Declares a method whose params are checked by the zod schema `params`. */
export function method<S extends z.ZodType>(
  params: S,
  run: (params: z.output<S>) => Promise<unknown> | unknown,
): RpcMethod {
  return {
    async call(value, name) {
      const parsed = params.safeParse(value);
      if (!parsed.success) {
        throw new RpcError(
          RpcErrorCode.invalidParams,
          `Invalid params for "${name}": ${describeIssues(parsed.error)}`,
        );
      }
      return await run(parsed.data);
    },
  };
}

/** The methods a connection answers, by name. */
export type RpcMethods = Readonly<Record<string, RpcMethod>>;

/** Builds a notification. */
export function notification(method: string, params: Record<string, unknown>): RpcNotification {
  return { jsonrpc: "2.0", method, params };
}

function errorResponse(id: RpcId, code: number, message: string, data?: unknown): RpcResponse {
  return {
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

/** The JSON-RPC error object for anything a handler threw. */
export function toRpcError(error: unknown): RpcErrorObject {
  if (error instanceof RpcError) {
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  }
  if (error instanceof ApiError) {
    return { code: RpcErrorCode.domainError, message: error.message, data: { code: error.code } };
  }
  if (error instanceof HeraldError) {
    return { code: RpcErrorCode.domainError, message: error.message, data: { code: error.code } };
  }
  const message = error instanceof Error && error.message ? error.message : String(error);
  return { code: RpcErrorCode.internalError, message: `Internal error: ${message}` };
}

function validId(id: unknown): id is RpcId {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** Runs one decoded request; undefined for a notification (no `id`), which gets no response. */
async function handleOne(methods: RpcMethods, request: unknown): Promise<RpcResponse | undefined> {
  if (!request || typeof request !== "object" || Array.isArray(request)) {
    return errorResponse(
      null,
      RpcErrorCode.invalidRequest,
      "Invalid request: expected a JSON-RPC 2.0 request object",
    );
  }
  const { jsonrpc, method: name, params, id } = request as Record<string, unknown>;
  const hasId = "id" in request;
  if (hasId && !validId(id)) {
    return errorResponse(
      null,
      RpcErrorCode.invalidRequest,
      "Invalid request: id must be a string, a number or null",
    );
  }
  const replyId: RpcId = hasId ? id as RpcId : null;
  if (jsonrpc !== "2.0" || typeof name !== "string") {
    return errorResponse(
      replyId,
      RpcErrorCode.invalidRequest,
      'Invalid request: "jsonrpc" must be "2.0" and "method" a string',
    );
  }
  const respond = (response: RpcResponse) => hasId ? response : undefined;
  const handler = Object.hasOwn(methods, name) ? methods[name] : undefined;
  if (!handler) {
    return respond(
      errorResponse(replyId, RpcErrorCode.methodNotFound, `Method not found: "${name}"`),
    );
  }
  if (
    params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))
  ) {
    return respond(
      errorResponse(
        replyId,
        RpcErrorCode.invalidParams,
        `Invalid params for "${name}": params must be an object of named values`,
      ),
    );
  }
  try {
    const result = await handler.call(params ?? {}, name);
    return respond({ jsonrpc: "2.0", id: replyId, result: result ?? null });
  } catch (error) {
    const { code, message, data } = toRpcError(error);
    return respond(errorResponse(replyId, code, message, data));
  }
}

/**
 * Answers one text frame: a request, or a batch of them. Returns the JSON
 * text to send back, or undefined when nothing is owed (notifications only).
 * Requests of a batch run concurrently; the batch answer waits for all.
 */
export async function handleFrame(methods: RpcMethods, text: string): Promise<string | undefined> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch (error) {
    return JSON.stringify(
      errorResponse(
        null,
        RpcErrorCode.parseError,
        `Parse error: the frame is not valid JSON (${(error as Error).message})`,
      ),
    );
  }
  if (Array.isArray(decoded)) {
    if (decoded.length === 0) {
      return JSON.stringify(
        errorResponse(null, RpcErrorCode.invalidRequest, "Invalid request: empty batch"),
      );
    }
    const answers = await Promise.all(decoded.map((request) => handleOne(methods, request)));
    const owed = answers.filter((answer) => answer !== undefined);
    return owed.length ? JSON.stringify(owed) : undefined;
  }
  const answer = await handleOne(methods, decoded);
  return answer === undefined ? undefined : JSON.stringify(answer);
}

/** The answer to a frame that is not text (the gateway speaks text frames only). */
export function binaryFrameError(): string {
  return JSON.stringify(
    errorResponse(
      null,
      RpcErrorCode.invalidRequest,
      "Invalid request: send JSON-RPC as text frames, not binary frames",
    ),
  );
}
