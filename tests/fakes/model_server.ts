import { sleep } from "./_sleep.ts";
/**
 * A scripted model server for tests. It listens on 127.0.0.1 with an
 * OS-assigned port and answers the OpenAI Chat Completions and Anthropic
 * Messages wire protocols (JSON and SSE streaming) from a queue of
 * provider-neutral replies, so product code and the official SDKs talk to it
 * exactly as to the real service. Every request is recorded for assertions.
 *
 * Replies are shared by both protocols and used in order: each
 * `POST /v1/chat/completions` or `POST /v1/messages` that passes the key check
 * and the basic body checks takes the next one. An empty queue answers 500
 * with `x-should-retry: false`, so a missing script fails visibly at once.
 *
 * @example
 * ```ts
 * await using server = await startModelServer({ replies: [{ text: "Hello" }] });
 * const client = new OpenAI({ apiKey: "sk-test", baseURL: server.openaiBaseUrl });
 * const answer = await client.chat.completions.create({ model: "gpt-test", messages: [] });
 * ```
 *
 * @module
 */

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Call id; defaults to `call_fake<n>` (OpenAI) or `toolu_fake<n>` (Anthropic). */
  id?: string;
  /** Name of the tool being called. */
  name: string;
  /**
   * Arguments as an object, or as raw JSON text. Raw text is sent as is, so a
   * streamed reply can carry deliberately malformed JSON.
   */
  arguments: Record<string, unknown> | string;
}

/** Token counts a scripted answer reports. */
export interface ScriptedUsage {
  /** Prompt tokens (`prompt_tokens` / `input_tokens`). */
  input: number;
  /** Generated tokens (`completion_tokens` / `output_tokens`). */
  output: number;
}

/**
 * Why a scripted answer stopped, in provider-neutral words. Sent as OpenAI
 * `finish_reason` as is, and as Anthropic `stop_reason` `end_turn`,
 * `max_tokens`, `tool_use` or `refusal`.
 */
export type ScriptedFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

/**
 * Where a scripted answer stalls: `before-response` sends nothing at all;
 * `mid-stream` sends the status, the headers and all content (every text and
 * tool-call chunk when streaming, half of the JSON otherwise) but never the end
 * of the response. The client may abort at any time; the server ends the
 * stall when the client drops a started body or when the server closes.
 */
export type ScriptedHang = "before-response" | "mid-stream";

/** A successful scripted answer, rendered in whichever protocol was asked. */
export interface ScriptedAnswer {
  /** Assistant text. */
  text?: string;
  /** Tool calls, sent after the text. */
  toolCalls?: ScriptedToolCall[];
  /** Token counts; defaults to `{ input: 10, output: 5 }`. */
  usage?: ScriptedUsage;
  /** Stop reason; defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: ScriptedFinishReason;
  /** Characters per streamed text delta and per tool-argument fragment; defaults to 4. */
  chunkSize?: number;
  /** Pause between streamed events, in milliseconds; defaults to 0. */
  chunkDelayMs?: number;
  /** Wait this long before answering, in milliseconds. */
  delayMs?: number;
  /** Stall the answer (see {@link ScriptedHang}). */
  hang?: ScriptedHang;
  /** Hold the answer until this settles: a turn that is running for as long as a test needs. */
  waitFor?: Promise<unknown>;
  /** Never set on an answer; `status` marks a {@link ScriptedError}. */
  status?: undefined;
}

/** A scripted HTTP error, with a body in the asking provider's error shape. */
export interface ScriptedError {
  /** HTTP status, 400 or above. */
  status: number;
  /** Message placed in the default error body. */
  message?: string;
  /** Exact JSON body to send instead of the provider-shaped default. */
  body?: unknown;
  /** Extra response headers, e.g. `retry-after-ms` or `x-should-retry`. */
  headers?: Record<string, string>;
  /** Wait this long before answering, in milliseconds. */
  delayMs?: number;
}

/** One scripted reply: an answer, or an HTTP error when `status` is set. */
export type ScriptedReply = ScriptedAnswer | ScriptedError;

/** Which wire protocol a request was answered in. */
export type ModelProtocol = "openai" | "anthropic";

/** A request as the server received it. */
export interface RecordedRequest {
  /** HTTP method, e.g. `POST`. */
  method: string;
  /** URL path without the query, e.g. `/v1/messages`. */
  path: string;
  /** Query string including the `?`, or `""`. */
  query: string;
  /** Request headers with lowercased names. */
  headers: Record<string, string>;
  /** Parsed JSON body, or `undefined` when the body is empty or not JSON. */
  body: unknown;
  /** The body exactly as received. */
  rawBody: string;
  /** Protocol the request was answered in. */
  protocol: ModelProtocol;
}

/** Options for {@link startModelServer}. */
export interface ModelServerOptions {
  /** Replies to queue before the first request. */
  replies?: ScriptedReply[];
  /**
   * When set, requests must carry this key, as `Authorization: Bearer <key>`
   * (both protocols) or `x-api-key: <key>` (Anthropic); others get a 401 in
   * the provider's error shape and take no reply.
   */
  requireKey?: string;
  /** Model ids listed by `GET /v1/models`; defaults to `["gpt-test", "claude-test"]`. */
  models?: string[];
  /**
   * Answers a request from what it asks (several clients at once, in any
   * order); undefined falls back to the queue.
   */
  respond?: (request: RecordedRequest) => ScriptedReply | undefined;
}

/** A running scripted model server. */
export interface ModelServer extends AsyncDisposable {
  /** Base URL without a path, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Base URL for the OpenAI SDK (`baseURL`), i.e. {@link url} + `/v1`. */
  readonly openaiBaseUrl: string;
  /** Base URL for the Anthropic SDK (`baseURL`), which adds `/v1` itself. */
  readonly anthropicBaseUrl: string;
  /** Port the OS assigned. */
  readonly port: number;
  /** Every request received so far, oldest first. */
  readonly requests: RecordedRequest[];
  /** How many scripted replies are still queued. */
  readonly pendingReplies: number;
  /** Queues more replies after those already queued. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Ends streams and stalled replies in progress and stops the server. */
  close(): Promise<void>;
}

const DEFAULT_USAGE: ScriptedUsage = { input: 10, output: 5 };
const DEFAULT_CHUNK_SIZE = 4;
const DEFAULT_MODELS = ["gpt-test", "claude-test"];
const MODEL_CREATED = 1767225600;

/**
 * Starts a scripted model server on 127.0.0.1 with an OS-assigned port.
 *
 * @example
 * ```ts
 * await using server = await startModelServer({
 *   replies: [{ toolCalls: [{ name: "get_weather", arguments: { city: "Tokyo" } }] }],
 * });
 * const client = new Anthropic({ apiKey: "k", baseURL: server.anthropicBaseUrl });
 * ```
 */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const closing = new AbortController();
  const models = options.models ?? DEFAULT_MODELS;
  let counter = 0;
  const nextId = () => ++counter;

  const enqueue = (...replies: ScriptedReply[]) => {
    for (const reply of replies) queue.push(checkReply(reply));
  };
  enqueue(...(options.replies ?? []));

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const rawBody = await request.text();
    const headers = Object.fromEntries(request.headers);
    const protocol = protocolFor(url.pathname, headers);
    const body = parseJson(rawBody);
    requests.push({
      method: request.method,
      path: url.pathname,
      query: url.search,
      headers,
      body,
      rawBody,
      protocol,
    });
    const reply = new Replier(protocol, `req_fake${nextId()}`);
    const route = `${request.method} ${url.pathname}`;

    if (options.requireKey !== undefined && !hasKey(protocol, headers, options.requireKey)) {
      const where = protocol === "openai"
        ? `"Authorization: Bearer <key>"`
        : `"x-api-key: <key>" or "Authorization: Bearer <key>"`;
      return reply.error(401, `Missing or wrong API key; send it as ${where}.`);
    }
    if (route === "GET /v1/models") return reply.json(modelList(protocol, models));
    if (route !== "POST /v1/chat/completions" && route !== "POST /v1/messages") {
      return reply.error(404, `Unknown route "${route}" on the fake model server.`);
    }
    const problem = bodyProblem(protocol, body);
    if (problem) return reply.error(400, problem);

    const routed = options.respond?.(requests[requests.length - 1]);
    const scripted = routed === undefined ? queue.shift() : checkReply(routed);
    if (!scripted) {
      return reply.error(
        500,
        `No scripted reply left for "${route}" (request #${requests.length}); ` +
          `queue one with startModelServer({ replies }) or server.enqueue(...).`,
        { "x-should-retry": "false" },
        "no_scripted_reply",
      );
    }
    // request.signal is left alone: touching it makes Deno print a warning. A client that goes
    // away mid-body cancels the body stream; a wait before the response ends at close().
    const signal = closing.signal;
    if (scripted.delayMs) await sleep(scripted.delayMs, signal);
    if (scripted.status !== undefined) {
      if (signal.aborted) return reply.stalled();
      return reply.scriptedError(scripted);
    }
    if (scripted.hang === "before-response") await sleep(Infinity, signal);
    if (scripted.waitFor) {
      await Promise.race([scripted.waitFor, sleep(Infinity, signal)]).catch(() => {});
    }
    if (signal.aborted) return reply.stalled();

    const fields = body as { model?: unknown; stream?: unknown; stream_options?: unknown };
    const context: AnswerContext = {
      answer: scripted,
      model: typeof fields.model === "string" ? fields.model : "fake-model",
      responseId: protocol === "openai" ? `chatcmpl-fake${nextId()}` : `msg_fake${nextId()}`,
      toolIds: (scripted.toolCalls ?? []).map((call) =>
        call.id ?? (protocol === "openai" ? `call_fake${nextId()}` : `toolu_fake${nextId()}`)
      ),
      created: Math.floor(Date.now() / 1000),
    };
    const streaming = fields.stream === true;
    try {
      if (protocol === "openai") {
        const includeUsage = (fields.stream_options as { include_usage?: unknown } | undefined)
          ?.include_usage === true;
        return streaming
          ? reply.stream(openaiEvents(context, includeUsage), scripted, signal)
          : reply.body(JSON.stringify(openaiCompletion(context)), scripted, signal);
      }
      return streaming
        ? reply.stream(anthropicEvents(context), scripted, signal)
        : reply.body(JSON.stringify(anthropicMessage(context)), scripted, signal);
    } catch (error) {
      if (!(error instanceof ScriptError)) throw error;
      return reply.error(500, error.message, { "x-should-retry": "false" }, "bad_scripted_reply");
    }
  };

  const { promise: listening, resolve: onListen } = Promise.withResolvers<void>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: closing.signal,
    onListen: () => onListen(),
    onError: (error) =>
      new Response(JSON.stringify({ error: { message: `Fake model server failed: ${error}` } }), {
        status: 500,
        headers: { "content-type": "application/json", "x-should-retry": "false" },
      }),
  }, handle);
  await listening;

  const port = server.addr.port;
  const url = `http://127.0.0.1:${port}`;
  let closed: Promise<void> | undefined;
  const close = () => {
    if (!closed) {
      closing.abort();
      closed = server.finished;
    }
    return closed;
  };

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    port,
    requests,
    get pendingReplies() {
      return queue.length;
    },
    enqueue,
    close,
    [Symbol.asyncDispose]: close,
  };
}

// ---------------------------------------------------------------------------
// Requests

function protocolFor(path: string, headers: Record<string, string>): ModelProtocol {
  if (path === "/v1/messages" || path.startsWith("/v1/messages/")) return "anthropic";
  if (path === "/v1/chat/completions") return "openai";
  return "anthropic-version" in headers ? "anthropic" : "openai";
}

function hasKey(protocol: ModelProtocol, headers: Record<string, string>, key: string): boolean {
  if (headers["authorization"] === `Bearer ${key}`) return true;
  return protocol === "anthropic" && headers["x-api-key"] === key;
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Mirrors the checks the real services make first, so malformed requests fail as they would. */
function bodyProblem(protocol: ModelProtocol, body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return "The request body must be a JSON object.";
  }
  const fields = body as Record<string, unknown>;
  if (typeof fields.model !== "string") return `"model" is required and must be a string.`;
  if (!Array.isArray(fields.messages)) return `"messages" is required and must be an array.`;
  if (protocol === "anthropic" && typeof fields.max_tokens !== "number") {
    return `"max_tokens" is required and must be a number.`;
  }
  return undefined;
}

function checkReply(reply: ScriptedReply): ScriptedReply {
  if (typeof reply !== "object" || reply === null) {
    throw new TypeError(`A scripted reply must be an object, got ${JSON.stringify(reply)}`);
  }
  if (reply.status !== undefined && !(Number.isInteger(reply.status) && reply.status >= 400)) {
    throw new RangeError(`A scripted error status must be 400 or above, got ${reply.status}`);
  }
  if (reply.status === undefined) {
    const size = reply.chunkSize;
    if (size !== undefined && !(Number.isInteger(size) && size > 0)) {
      throw new RangeError(`A scripted chunkSize must be a positive integer, got ${size}`);
    }
    for (const call of reply.toolCalls ?? []) {
      if (typeof call.name !== "string" || call.name === "") {
        throw new TypeError(`A scripted tool call needs a name, got ${JSON.stringify(call)}`);
      }
    }
  }
  return reply;
}

// ---------------------------------------------------------------------------
// Responses

/** A scripted reply that cannot be rendered in the asked protocol. */
class ScriptError extends Error {}

/** Builds responses in one protocol, with that provider's request-id header and error shape. */
class Replier {
  constructor(readonly protocol: ModelProtocol, readonly requestId: string) {}

  #headers(contentType: string, extra: Record<string, string> = {}): Headers {
    const idHeader = this.protocol === "openai" ? "x-request-id" : "request-id";
    return new Headers({ "content-type": contentType, [idHeader]: this.requestId, ...extra });
  }

  json(value: unknown, status = 200, extra?: Record<string, string>): Response {
    return new Response(JSON.stringify(value), {
      status,
      headers: this.#headers("application/json", extra),
    });
  }

  error(status: number, message: string, extra?: Record<string, string>, code?: string): Response {
    return this.json(
      errorBody(this.protocol, status, message, this.requestId, code),
      status,
      extra,
    );
  }

  scriptedError(scripted: ScriptedError): Response {
    const message = scripted.message ?? `Scripted error ${scripted.status}.`;
    const body = scripted.body !== undefined
      ? scripted.body
      : errorBody(this.protocol, scripted.status, message, this.requestId);
    return this.json(body, scripted.status, scripted.headers);
  }

  /** Answer for a request that was still waiting when the server began to close. */
  stalled(): Response {
    return this.error(
      503,
      "The fake model server closed while this reply was waiting.",
      { "x-should-retry": "false" },
    );
  }

  body(text: string, answer: ScriptedAnswer, signal: AbortSignal): Response {
    if (answer.hang !== "mid-stream") {
      return new Response(text, { headers: this.#headers("application/json") });
    }
    const half = Math.floor(text.length / 2);
    const frames = [text.slice(0, half), text.slice(half)];
    return new Response(frameStream(frames, 1, 0, signal), {
      headers: this.#headers("application/json"),
    });
  }

  stream(events: Events, answer: ScriptedAnswer, signal: AbortSignal): Response {
    const hangAt = answer.hang === "mid-stream" ? events.finishAt : undefined;
    return new Response(
      frameStream(events.frames, hangAt, answer.chunkDelayMs ?? 0, signal),
      {
        headers: this.#headers("text/event-stream; charset=utf-8", {
          "cache-control": "no-cache",
        }),
      },
    );
  }
}

function errorBody(
  protocol: ModelProtocol,
  status: number,
  message: string,
  requestId: string,
  code?: string,
): unknown {
  if (protocol === "openai") {
    const [type, defaultCode] = status === 401
      ? ["invalid_request_error", "invalid_api_key"]
      : status === 429
      ? ["requests", "rate_limit_exceeded"]
      : status >= 500
      ? ["server_error", null]
      : ["invalid_request_error", null];
    return { error: { message, type, param: null, code: code ?? defaultCode } };
  }
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
  };
  const type = types[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message }, request_id: requestId };
}

/**
 * A body that sends `frames` one by one, optionally pausing between them and
 * stalling before index `hangAt` until `signal` aborts. When the server closes
 * mid-way the stream errors, which drops the connection like a real outage.
 */
function frameStream(
  frames: string[],
  hangAt: number | undefined,
  delayMs: number,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const cancelled = new AbortController();
  const stop = AbortSignal.any([signal, cancelled.signal]);
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next === hangAt) await sleep(Infinity, stop);
      else if (next > 0 && delayMs > 0) await sleep(delayMs, stop);
      if (cancelled.signal.aborted) return;
      if (stop.aborted) {
        controller.error(new Error("The fake model server closed during the response."));
        return;
      }
      controller.enqueue(encoder.encode(frames[next++]));
      if (next === frames.length) controller.close();
    },
    cancel() {
      cancelled.abort();
    },
  });
}

function modelList(protocol: ModelProtocol, models: string[]): unknown {
  if (protocol === "openai") {
    return {
      object: "list",
      data: models.map((id) => ({ id, object: "model", created: MODEL_CREATED, owned_by: "fake" })),
    };
  }
  return {
    data: models.map((id) => ({
      type: "model",
      id,
      display_name: id,
      created_at: new Date(MODEL_CREATED * 1000).toISOString(),
    })),
    has_more: false,
    first_id: models[0] ?? null,
    last_id: models.at(-1) ?? null,
  };
}

// ---------------------------------------------------------------------------
// Rendering an answer

interface AnswerContext {
  answer: ScriptedAnswer;
  model: string;
  responseId: string;
  toolIds: string[];
  created: number;
}

/** SSE frames of one streamed answer; frames from `finishAt` on end the response. */
interface Events {
  frames: string[];
  finishAt: number;
}

function finishReason(answer: ScriptedAnswer): ScriptedFinishReason {
  return answer.finishReason ?? (answer.toolCalls?.length ? "tool_calls" : "stop");
}

function argumentsText(call: ScriptedToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

/** Splits text into pieces of `size` code points, so no surrogate pair is cut. */
function pieces(text: string, size: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += size) pieces.push(points.slice(i, i + size).join(""));
  return pieces;
}

function openaiUsage(usage: ScriptedUsage): unknown {
  return {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function openaiCompletion(context: AnswerContext): unknown {
  const { answer } = context;
  const message: Record<string, unknown> = {
    role: "assistant",
    content: answer.text ?? null,
    refusal: null,
    annotations: [],
  };
  if (answer.toolCalls?.length) {
    message.tool_calls = answer.toolCalls.map((call, i) => ({
      id: context.toolIds[i],
      type: "function",
      function: { name: call.name, arguments: argumentsText(call) },
    }));
  }
  return {
    id: context.responseId,
    object: "chat.completion",
    created: context.created,
    model: context.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(answer) }],
    usage: openaiUsage(answer.usage ?? DEFAULT_USAGE),
    service_tier: "default",
    system_fingerprint: "fp_fake",
  };
}

/**
 * Chat Completions chunks: role first, text deltas, then per tool call a
 * header chunk (index, id, name, empty arguments) and argument fragments; then
 * the finish chunk, the usage chunk when asked for, and `[DONE]`.
 */
function openaiEvents(context: AnswerContext, includeUsage: boolean): Events {
  const { answer } = context;
  const size = answer.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const frames: string[] = [];
  const send = (value: unknown) => frames.push(`data: ${JSON.stringify(value)}\n\n`);
  const chunk = (choices: unknown[], usage?: unknown) => ({
    id: context.responseId,
    object: "chat.completion.chunk",
    created: context.created,
    model: context.model,
    service_tier: "default",
    system_fingerprint: "fp_fake",
    choices,
    ...(includeUsage ? { usage: usage ?? null } : {}),
  });
  const delta = (value: unknown, finish: string | null = null) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finish }]);

  send(delta({ role: "assistant", content: answer.text ? "" : null, refusal: null }));
  for (const piece of pieces(answer.text ?? "", size)) send(delta({ content: piece }));
  (answer.toolCalls ?? []).forEach((call, index) => {
    const id = context.toolIds[index];
    send(delta({
      tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }],
    }));
    for (const piece of pieces(argumentsText(call), size)) {
      send(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  const finishAt = frames.length;
  send(delta({}, finishReason(answer)));
  if (includeUsage) send(chunk([], openaiUsage(answer.usage ?? DEFAULT_USAGE)));
  frames.push("data: [DONE]\n\n");
  return { frames, finishAt };
}

function anthropicStopReason(answer: ScriptedAnswer): string {
  const reasons: Record<ScriptedFinishReason, string> = {
    stop: "end_turn",
    length: "max_tokens",
    tool_calls: "tool_use",
    content_filter: "refusal",
  };
  return reasons[finishReason(answer)];
}

function anthropicInput(call: ScriptedToolCall): unknown {
  if (typeof call.arguments !== "string") return call.arguments;
  try {
    return JSON.parse(call.arguments);
  } catch {
    throw new ScriptError(
      `Scripted tool call "${call.name}" has arguments that are not valid JSON; ` +
        `a non-streaming Anthropic reply needs an object.`,
    );
  }
}

function anthropicUsage(input: number, output: number): Record<string, number> {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

function anthropicMessage(context: AnswerContext): unknown {
  const { answer } = context;
  const usage = answer.usage ?? DEFAULT_USAGE;
  const content: unknown[] = [];
  if (answer.text) content.push({ type: "text", text: answer.text });
  (answer.toolCalls ?? []).forEach((call, i) => {
    content.push({
      type: "tool_use",
      id: context.toolIds[i],
      name: call.name,
      input: anthropicInput(call),
    });
  });
  return {
    id: context.responseId,
    type: "message",
    role: "assistant",
    model: context.model,
    content,
    stop_reason: anthropicStopReason(answer),
    stop_sequence: null,
    usage: anthropicUsage(usage.input, usage.output),
  };
}

/**
 * Messages events: message_start, a text block of text_delta events, one
 * tool_use block per call with input_json_delta fragments (the first empty), a
 * ping after the first block starts, then message_delta and message_stop.
 */
function anthropicEvents(context: AnswerContext): Events {
  const { answer } = context;
  const size = answer.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const usage = answer.usage ?? DEFAULT_USAGE;
  const frames: string[] = [];
  const send = (value: { type: string; [field: string]: unknown }) =>
    frames.push(`event: ${value.type}\ndata: ${JSON.stringify(value)}\n\n`);
  let index = 0;
  const startBlock = (block: unknown) => {
    send({ type: "content_block_start", index, content_block: block });
    if (index === 0) send({ type: "ping" });
  };

  send({
    type: "message_start",
    message: {
      id: context.responseId,
      type: "message",
      role: "assistant",
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: anthropicUsage(usage.input, Math.min(1, usage.output)),
    },
  });
  if (answer.text) {
    startBlock({ type: "text", text: "" });
    for (const text of pieces(answer.text, size)) {
      send({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    }
    send({ type: "content_block_stop", index });
    index++;
  }
  (answer.toolCalls ?? []).forEach((call, i) => {
    startBlock({ type: "tool_use", id: context.toolIds[i], name: call.name, input: {} });
    for (const partial_json of ["", ...pieces(argumentsText(call), size)]) {
      send({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json },
      });
    }
    send({ type: "content_block_stop", index });
    index++;
  });
  if (index === 0) send({ type: "ping" });
  const finishAt = frames.length;
  send({
    type: "message_delta",
    delta: { stop_reason: anthropicStopReason(answer), stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  send({ type: "message_stop" });
  return { frames, finishAt };
}
