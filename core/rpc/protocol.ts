/**
 * The JSON-RPC 2.0 vocabulary shared by every Herald peer (the dashboard's
 * WebSocket gateway, MCP servers, the Codex app-server, language servers):
 * ids, message shapes, error codes, the error a handler throws, and method
 * declarations whose params a zod schema checks.
 *
 * Error codes: the standard -32700 (parse error), -32600 (invalid request),
 * -32601 (method not found), -32602 (invalid params) and -32603 (internal
 * error), plus -32000 for a domain error, whose `data.code` carries Herald's
 * machine-readable code (`profile_not_found`, `session_not_found`,
 * `too_many_calls`, ...).
 *
 * @module
 */

import type { z } from "zod";
import { HeraldError } from "../errors.ts";
import { describeIssues } from "../validation.ts";

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

/** The params of a request or notification: named (an object) or positional (an array). */
export type RpcParams = Record<string, unknown> | readonly unknown[];

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

/** A notification with named params, as Herald's gateway sends them. */
export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params: Record<string, unknown>;
}

/**
 * An error answered as a JSON-RPC error: a handler throws it to answer with a
 * specific code, and {@link RpcPeer.request} rejects with it when the other
 * side answers with an error.
 *
 * @example
 * ```ts
 * throw new RpcError(RpcErrorCode.invalidParams, 'Invalid params for "echo": text is required');
 * ```
 */
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

/** One method a peer serves: validates its params and answers. */
export interface RpcMethod {
  /**
   * Answers a call with `params` (an object, `{}` when absent).
   *
   * @throws RpcError -32602 when the params do not fit the method.
   */
  call(params: unknown, name: string): Promise<unknown>;
}

/**
 * Declares a method whose params are checked by the zod schema `params`;
 * params that do not fit are answered with -32602 naming the problem.
 *
 * @example
 * ```ts
 * const methods: RpcMethods = {
 *   echo: method(z.object({ text: z.string() }), ({ text }) => ({ text })),
 * };
 * ```
 */
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

/** The methods a peer answers, by name. */
export type RpcMethods = Readonly<Record<string, RpcMethod>>;

/** Builds a notification with named params. */
export function notification(method: string, params: Record<string, unknown>): RpcNotification {
  return { jsonrpc: "2.0", method, params };
}

/** Builds an error response. */
export function errorResponse(
  id: RpcId,
  code: number,
  message: string,
  data?: unknown,
): RpcResponse {
  return {
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

/**
 * Maps an error a handler threw to a JSON-RPC error object, or undefined to
 * leave it to the default mapping ({@link toRpcError}). A surface passes one
 * for its own error classes.
 */
export type ErrorDescriber = (error: unknown) => RpcErrorObject | undefined;

/**
 * The JSON-RPC error object for anything a handler threw: an
 * {@link RpcError} as it is, a {@link HeraldError} as -32000 with its code in
 * `data.code`, anything else as -32603. `describe` is asked first.
 */
export function toRpcError(error: unknown, describe?: ErrorDescriber): RpcErrorObject {
  const described = describe?.(error);
  if (described) return described;
  if (error instanceof RpcError) {
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  }
  if (error instanceof HeraldError) {
    return { code: RpcErrorCode.domainError, message: error.message, data: { code: error.code } };
  }
  const message = error instanceof Error && error.message ? error.message : String(error);
  return { code: RpcErrorCode.internalError, message: `Internal error: ${message}` };
}

/** True for a valid request id: a string, a finite number or null. */
export function isRpcId(id: unknown): id is RpcId {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}
