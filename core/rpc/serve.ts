/**
 * The serving half of a JSON-RPC 2.0 peer: answers one incoming message
 * text (a request, a notification, or a batch of them) from a handler map.
 * Every error a handler throws becomes a JSON-RPC error object here, in one
 * place. A peer that also calls the other side ({@link RpcPeer}) passes
 * hooks for the responses and the notifications nobody serves.
 *
 * Limits: a batch holds at most {@link MAX_RPC_BATCH_CALLS} calls (a larger
 * one gets one -32600 error with `data.code` `batch_too_large` and none of it
 * runs), its calls run {@link MAX_RPC_BATCH_CONCURRENCY} at a time, and a
 * connection's calls in flight are capped by a {@link CallBudget}.
 *
 * @module
 */

import { CallBudget, MAX_RPC_BATCH_CALLS, MAX_RPC_BATCH_CONCURRENCY } from "./limits.ts";
import {
  type ErrorDescriber,
  errorResponse,
  isRpcId,
  RpcErrorCode,
  type RpcId,
  type RpcMethods,
  type RpcResponse,
  toRpcError,
} from "./protocol.ts";

/** A response that arrived (to a request this side sent), as parsed. */
export interface IncomingResponse {
  /** The id it answers, as received (not checked: a peer matches it with its own). */
  id: unknown;
  /** The whole message: `result`, or `error` with `code`, `message` and `data`. */
  message: Record<string, unknown>;
}

/** A notification that no served method takes. */
export interface IncomingNotification {
  method: string;
  /** The params as received (usually an object; undefined when absent). */
  params: unknown;
  /** The whole message (some peers put more next to `params`, e.g. Codex's `emittedAtMs`). */
  message: Record<string, unknown>;
}

/** Options of {@link handleFrame}. */
export interface FrameOptions {
  /**
   * The connection's budget of calls in flight; a frame whose calls do not
   * fit gets a -32000 `too_many_calls` error per call and runs none of
   * them. Without it, a frame is limited only by the batch size.
   */
  budget?: CallBudget;
  /** Most calls in a batch (default {@link MAX_RPC_BATCH_CALLS}). */
  maxBatchCalls?: number;
  /** Calls of a batch run at once (default {@link MAX_RPC_BATCH_CONCURRENCY}). */
  batchConcurrency?: number;
  /** Maps a surface's own error classes; see {@link toRpcError}. */
  describeError?: ErrorDescriber;
  /**
   * Whether a request must carry `"jsonrpc": "2.0"` (default true). The
   * Codex app-server leaves the member out; a peer talking to it passes false.
   */
  requireVersion?: boolean;
  /**
   * Whether text that is not JSON is answered with -32700 (default true, as
   * JSON-RPC asks). A client reading a server's output may prefer to skip it.
   */
  replyToParseErrors?: boolean;
  /**
   * Takes the responses in the frame (a message with `result` or `error`
   * and no `method`). Without it such a message is an invalid request.
   */
  onResponse?: (response: IncomingResponse) => void;
  /**
   * Takes the notifications whose method is not served. Without it they are
   * dropped, as JSON-RPC asks.
   */
  onNotification?: (notification: IncomingNotification) => void;
}

/** A well-formed call, ready to run. */
interface DecodedCall {
  name: string;
  params: unknown;
  /** False for a notification, which gets no response. */
  hasId: boolean;
  id: RpcId;
}

/**
 * One message of a frame, checked without running anything: a call to run,
 * the answer owed for a malformed one (undefined when none is owed), or
 * nothing left to do (handed to a hook).
 */
type Checked = { call: DecodedCall } | { answer: RpcResponse | undefined };

const HANDED_OVER: Checked = { answer: undefined };

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

function checkOne(methods: RpcMethods, request: unknown, options: FrameOptions): Checked {
  if (!isObject(request)) {
    return {
      answer: errorResponse(
        null,
        RpcErrorCode.invalidRequest,
        "Invalid request: expected a JSON-RPC 2.0 request object",
      ),
    };
  }
  const { jsonrpc, method: name, params, id } = request;
  if (options.onResponse && !("method" in request) && ("result" in request || "error" in request)) {
    options.onResponse({ id, message: request });
    return HANDED_OVER;
  }
  const hasId = "id" in request;
  if (hasId && !isRpcId(id)) {
    return {
      answer: errorResponse(
        null,
        RpcErrorCode.invalidRequest,
        "Invalid request: id must be a string, a number or null",
      ),
    };
  }
  const replyId: RpcId = hasId ? id as RpcId : null;
  const versionOk = jsonrpc === "2.0" ||
    (options.requireVersion === false && jsonrpc === undefined);
  if (!versionOk || typeof name !== "string") {
    return {
      answer: errorResponse(
        replyId,
        RpcErrorCode.invalidRequest,
        'Invalid request: "jsonrpc" must be "2.0" and "method" a string',
      ),
    };
  }
  const owed = (response: RpcResponse): Checked => ({ answer: hasId ? response : undefined });
  if (!Object.hasOwn(methods, name)) {
    if (!hasId && options.onNotification) {
      options.onNotification({ method: name, params, message: request });
      return HANDED_OVER;
    }
    return owed(errorResponse(replyId, RpcErrorCode.methodNotFound, `Method not found: "${name}"`));
  }
  if (params !== undefined && !isObject(params)) {
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
async function runCall(
  methods: RpcMethods,
  call: DecodedCall,
  describe: ErrorDescriber | undefined,
): Promise<RpcResponse | undefined> {
  let response: RpcResponse;
  try {
    const result = await methods[call.name].call(call.params, call.name);
    response = { jsonrpc: "2.0", id: call.id, result: result ?? null };
  } catch (error) {
    const { code, message, data } = toRpcError(error, describe);
    response = errorResponse(call.id, code, message, data);
  }
  return call.hasId ? response : undefined;
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

/**
 * Answers one incoming message text: a request, or a batch of at most
 * {@link FrameOptions.maxBatchCalls} (a larger one gets a single -32600 error
 * and runs nothing). Returns the JSON text to send back, or undefined when
 * nothing is owed (notifications and responses only). Calls of a batch run
 * {@link FrameOptions.batchConcurrency} at a time; the batch answer waits for
 * all. Responses and unserved notifications go to the hooks before any call
 * starts, in the order they came. The text's size is the caller's to check,
 * before this parses it.
 *
 * @example
 * ```ts
 * const answer = await handleFrame(methods, '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hi"}}');
 * // '{"jsonrpc":"2.0","id":1,"result":{"text":"hi"}}'
 * ```
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
    if (options.replyToParseErrors === false) return undefined;
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
  const maxBatch = options.maxBatchCalls ?? MAX_RPC_BATCH_CALLS;
  if (requests.length > maxBatch) {
    return JSON.stringify(
      errorResponse(
        null,
        RpcErrorCode.invalidRequest,
        `Invalid request: a batch may hold at most ${maxBatch} calls and this one ` +
          `holds ${requests.length}; none of them ran. Send smaller batches`,
        { code: "batch_too_large", limit: maxBatch },
      ),
    );
  }
  const checked = requests.map((request) => checkOne(methods, request, options));
  const calls = checked.flatMap((item) => "call" in item ? [item.call] : []);
  const budget = options.budget;
  const admitted = budget ? budget.tryTake(calls.length) : true;
  const concurrency = options.batchConcurrency ?? MAX_RPC_BATCH_CONCURRENCY;
  const answers = await mapLimited(checked, concurrency, async (item) => {
    if (!("call" in item)) return item.answer;
    if (!admitted) return tooManyCalls(item.call, budget!.limit);
    try {
      return await runCall(methods, item.call, options.describeError);
    } finally {
      budget?.release(1);
    }
  });
  const owed = answers.filter((answer) => answer !== undefined);
  if (!batch) return owed.length ? JSON.stringify(owed[0]) : undefined;
  return owed.length ? JSON.stringify(owed) : undefined;
}
