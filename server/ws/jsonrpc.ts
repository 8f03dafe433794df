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
 * `session_not_found`, `turn_running`, `too_many_calls`, ...).
 *
 * Limits (server/ws/limits.ts): a batch holds at most
 * {@link MAX_RPC_BATCH_CALLS} calls (a larger one gets one -32600 error with
 * `data.code` `batch_too_large` and none of it runs), its calls run
 * {@link MAX_RPC_BATCH_CONCURRENCY} at a time, and a connection's calls in
 * flight are capped by a {@link CallBudget}.
 *
 * @module
 */

import type { z } from "zod";
import { HeraldError } from "../../core/errors.ts";
import { describeIssues } from "../../core/validation.ts";
import { ApiError } from "../errors.ts";
import {
  MAX_RPC_BATCH_CALLS,
  MAX_RPC_BATCH_CONCURRENCY,
  MAX_RPC_CALLS_IN_FLIGHT,
} from "./limits.ts";

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

/** A well-formed request, ready to run. */
interface DecodedCall {
  name: string;
  params: unknown;
  /** False for a notification, which gets no response. */
  hasId: boolean;
  id: RpcId;
}

/**
 * Checks one request without running it: a call to run, or the answer owed
 * for a malformed one (undefined when that answer is not owed: a
 * notification).
 */
function decodeOne(
  methods: RpcMethods,
  request: unknown,
): { call: DecodedCall } | { answer: RpcResponse | undefined } {
  if (!request || typeof request !== "object" || Array.isArray(request)) {
    return {
      answer: errorResponse(
        null,
        RpcErrorCode.invalidRequest,
        "Invalid request: expected a JSON-RPC 2.0 request object",
      ),
    };
  }
  const { jsonrpc, method: name, params, id } = request as Record<string, unknown>;
  const hasId = "id" in request;
  if (hasId && !validId(id)) {
    return {
      answer: errorResponse(
        null,
        RpcErrorCode.invalidRequest,
        "Invalid request: id must be a string, a number or null",
      ),
    };
  }
  const replyId: RpcId = hasId ? id as RpcId : null;
  if (jsonrpc !== "2.0" || typeof name !== "string") {
    return {
      answer: errorResponse(
        replyId,
        RpcErrorCode.invalidRequest,
        'Invalid request: "jsonrpc" must be "2.0" and "method" a string',
      ),
    };
  }
  const owed = (response: RpcResponse) => ({ answer: hasId ? response : undefined });
  if (!Object.hasOwn(methods, name)) {
    return owed(errorResponse(replyId, RpcErrorCode.methodNotFound, `Method not found: "${name}"`));
  }
  if (
    params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))
  ) {
    return owed(
      errorResponse(
        replyId,
        RpcErrorCode.invalidParams,
        `Invalid params for "${name}": params must be an object of named values`,
      ),
    );
  }
  return { call: { name, params: params ?? {}, hasId, id: replyId } };
}

/** Runs one decoded call; undefined for a notification. */
async function runCall(methods: RpcMethods, call: DecodedCall): Promise<RpcResponse | undefined> {
  let response: RpcResponse;
  try {
    const result = await methods[call.name].call(call.params, call.name);
    response = { jsonrpc: "2.0", id: call.id, result: result ?? null };
  } catch (error) {
    const { code, message, data } = toRpcError(error);
    response = errorResponse(call.id, code, message, data);
  }
  return call.hasId ? response : undefined;
}

/**
 * How many calls one connection has running or waiting; a frame's calls
 * are admitted together or refused together.
 *
 * @example
 * ```ts
 * const budget = new CallBudget(2);
 * budget.tryTake(2); // true
 * budget.tryTake(1); // false, until budget.release(1)
 * ```
 */
export class CallBudget {
  #inFlight = 0;

  /** Creates a budget of `limit` calls (default {@link MAX_RPC_CALLS_IN_FLIGHT}). */
  constructor(readonly limit: number = MAX_RPC_CALLS_IN_FLIGHT) {}

  /** Calls admitted and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Admits `count` calls when they all fit; false (and nothing taken) when not. */
  tryTake(count: number): boolean {
    if (this.#inFlight + count > this.limit) return false;
    this.#inFlight += count;
    return true;
  }

  /** Gives back `count` finished calls. */
  release(count = 1): void {
    this.#inFlight = Math.max(0, this.#inFlight - count);
  }
}

function tooManyCalls(call: DecodedCall, limit: number): RpcResponse | undefined {
  if (!call.hasId) return undefined;
  return errorResponse(
    call.id,
    RpcErrorCode.domainError,
    `Too many calls in flight on this connection (limit ${limit}); ` +
      "wait for answers before sending more",
    { code: "too_many_calls", limit },
  );
}

/** Runs `run` over `items`, at most `limit` at a time; results keep the order of `items`. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Options of {@link handleFrame}. */
export interface FrameOptions {
  /**
   * The connection's budget of calls in flight; a frame whose calls do not
   * fit gets a -32000 `too_many_calls` error per call and runs none of
   * them. Without it, a frame is limited only by the batch size.
   */
  budget?: CallBudget;
}

/**
 * Answers one text frame: a request, or a batch of at most
 * {@link MAX_RPC_BATCH_CALLS} (a larger one gets a single -32600 error and
 * runs nothing). Returns the JSON text to send back, or undefined when
 * nothing is owed (notifications only). Calls of a batch run
 * {@link MAX_RPC_BATCH_CONCURRENCY} at a time; the batch answer waits for
 * all. The frame's size is the caller's to check, before this parses it.
 */
export async function handleFrame(
  methods: RpcMethods,
  text: string,
  options: FrameOptions = {},
): Promise<string | undefined> {
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
  const batch = Array.isArray(decoded);
  const requests: unknown[] = Array.isArray(decoded) ? decoded : [decoded];
  if (batch && requests.length === 0) {
    return JSON.stringify(
      errorResponse(null, RpcErrorCode.invalidRequest, "Invalid request: empty batch"),
    );
  }
  if (requests.length > MAX_RPC_BATCH_CALLS) {
    return JSON.stringify(
      errorResponse(
        null,
        RpcErrorCode.invalidRequest,
        `Invalid request: a batch may hold at most ${MAX_RPC_BATCH_CALLS} calls and this one ` +
          `holds ${requests.length}; none of them ran. Send smaller batches`,
        { code: "batch_too_large", limit: MAX_RPC_BATCH_CALLS },
      ),
    );
  }
  const checked = requests.map((request) => decodeOne(methods, request));
  const calls = checked.flatMap((item) => "call" in item ? [item.call] : []);
  const budget = options.budget;
  const admitted = budget ? budget.tryTake(calls.length) : true;
  const answers = await mapLimited(checked, MAX_RPC_BATCH_CONCURRENCY, async (item) => {
    if (!("call" in item)) return item.answer;
    if (!admitted) return tooManyCalls(item.call, budget!.limit);
    try {
      return await runCall(methods, item.call);
    } finally {
      budget?.release(1);
    }
  });
  const owed = answers.filter((answer) => answer !== undefined);
  if (!batch) return owed.length ? JSON.stringify(owed[0]) : undefined;
  return owed.length ? JSON.stringify(owed) : undefined;
}
