import { sleep } from "./_sleep.ts";
/**
 * A scripted OpenAI Responses-API model for driving the real `codex
 * app-server` offline. It listens on 127.0.0.1 with an OS-assigned port,
 * answers `POST /v1/responses` with an SSE stream (`event: <type>\ndata:
 * <json>\n\n`) and records every request. Point codex at it with
 * tests/codex_cli.ts `codexHome({ baseUrl: model.baseUrl })`.
 *
 * What it answers is picked from the request (see {@link directiveReply}):
 * after a tool result (the last input item is a `function_call_output`) it
 * says `Done: <output excerpt>`; otherwise the last user text decides:
 *
 * | user text | reply |
 * | --- | --- |
 * | `RUN <command>` | `exec_command` with `sandbox_permissions: "require_escalated"` |
 * | `RUN_PLAIN <command>` | `exec_command` without escalation |
 * | `PATCH <file> <content>` | an `apply_patch` heredoc through `exec_command` (a fileChange item) |
 * | `PERMS <path>` | `request_permissions` for writing `<path>` (codex `--enable request_permissions_tool`) |
 * | `MCP <namespace> <tool> <json-args>` | a namespaced call (`mcp__` is prefixed when missing) |
 * | `SLOW` | text, one delta every 250 ms for a minute; stops when codex closes the stream |
 * | `FAIL401` | HTTP 401 with the OpenAI error body |
 * | `HANG` | accepts and never sends anything (until the server closes) |
 * | anything else | `Echo: <text>` streamed in a few deltas |
 *
 * A test can override any request with the `script` option.
 *
 * Facts verified (codex-cli 0.169.0, this fake, tests/fakes/responses_model_test.ts
 * and manual probes):
 *
 * - MCP tool-call confirmation: codex sends `mcpServer/elicitation/request` with `mode: "form"`,
 *   `requestedSchema: {type: "object", properties: {}}`, `message: 'Allow the <server> MCP server
 *   to run tool "<tool>"?'` and `_meta: {codex_approval_kind: "mcp_tool_call", tool_name (the MCP
 *   name, e.g. "gzip-file-as-resource"), tool_params, tool_params_display[], tool_description,
 *   tool_title?, tool_annotations? (absent when the server gives none), persist?}`. `persist` is
 *   `["session","always"]` for annotation-driven prompts, absent with `approval_mode = "prompt"`.
 * - When it is asked: approval policy `untrusted` or `on-request`, for a tool that is not
 *   `readOnlyHint: true` and has `destructiveHint` or `openWorldHint` true or unset. Herald's own
 *   `mcp serve` tools carry no annotations, so EVERY call to them is confirmed (write_file,
 *   terminal seen). A read-only tool is asked only with
 *   `[mcp_servers.<name>.tools.<tool>] approval_mode = "prompt"` in config.toml. With policy
 *   `never` codex asks nothing and the call fails: "MCP tool call requires approval, but approval
 *   policy is never" (read-only sandbox; same with danger-full-access: not asked).
 * - Accepted answers: `{action: "accept", content: null, _meta: null}` and `content: {}` both run
 *   the tool. `_meta: {persist: "session"}` = accept for the session (a second call in the same
 *   thread was not asked again). Avoid `persist: "always"`: codex then writes
 *   `approval_mode = "approve"` into config.toml. `decline` -> mcpToolCall item `status: "failed"`,
 *   `error.message: "user rejected MCP tool call"`; `cancel` -> "user cancelled MCP tool call";
 *   in both the model gets that text as the function_call_output and the turn goes on
 *   (`completed`). After accept the model gets `[{type:"input_text",text:"Wall time: ...\nOutput:"},
 *   {type:"input_text",text:<tool text>}]`.
 * - A form elicitation (server-everything `trigger-elicitation-request`) arrives on the same
 *   method with `_meta: null`, `mode: "form"`, `message: "Please provide inputs for the following
 *   fields:"` and a real `requestedSchema` (name, check, email, integer ...); answering
 *   `{action: "accept", content: {name, check}, _meta: null}` reaches the MCP server as is.
 * - `thread/resume {threadId}` works across an app-server restart with the same CODEX_HOME for a
 *   non-ephemeral thread (rollout file under CODEX_HOME/sessions/): the result carries the old
 *   turns (userMessage, agentMessage), and the next model request contains the first turn's user
 *   and assistant messages; headers `thread-id` and `session-id` equal the thread id.
 * - `item/permissions/requestApproval` answered `{permissions: {}, scope: "turn"}` is a decline:
 *   the model gets `{"permissions":{"network":null,"file_system":null},"scope":"turn"}` and the
 *   turn completes. The response type has no decision field; a JSON-RPC error answer gives the
 *   model exactly the same output (codex logs an ERROR), so the empty grant is the clean deny.
 *   No ThreadItem is emitted for the request_permissions call itself.
 *
 * @module
 */

/** A request as the fake received it. */
export interface ResponsesRequest {
  /** HTTP method, e.g. `POST`. */
  method: string;
  /** URL path without the query, e.g. `/v1/responses`. */
  path: string;
  /** Request headers with lowercased names. */
  headers: Record<string, string>;
  /** Parsed JSON body, or `undefined` when empty or not JSON. */
  body: unknown;
  /** The body exactly as received. */
  rawBody: string;
}

/** A function call the scripted model makes. */
export interface ResponsesCall {
  /** Tool name, e.g. `exec_command`, or the MCP tool name inside a namespace. */
  name: string;
  /** Arguments as an object, or raw JSON text sent as is. */
  arguments: Record<string, unknown> | string;
  /** Namespace tool holding `name`, e.g. `mcp__everything`. */
  namespace?: string;
}

/** One scripted reply. */
export type ResponsesReply =
  /** Streamed assistant text: `deltas` are sent one by one, `delayMs` apart. */
  | { kind: "text"; deltas: string[]; delayMs?: number }
  /** A function call (the turn continues with a `function_call_output`). */
  | { kind: "call"; call: ResponsesCall }
  /** An HTTP error; `body` defaults to the OpenAI error shape. */
  | { kind: "error"; status: number; message?: string; body?: unknown }
  /** Never answers (no status, no headers) until the server closes. */
  | { kind: "hang" };

/** Options for {@link startResponsesModel}. */
export interface ResponsesModelOptions {
  /**
   * Picks the reply for a `POST /v1/responses`; `undefined` falls back to
   * {@link directiveReply}.
   */
  script?: (request: ResponsesRequest) => ResponsesReply | undefined;
}

/** A running fake Responses-API model. */
export interface ResponsesModel extends AsyncDisposable {
  /** Base URL without a path, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** {@link url} + `/v1`: the provider's `base_url` in codex's config.toml. */
  readonly baseUrl: string;
  /** Every request received so far, oldest first. */
  readonly requests: ResponsesRequest[];
  /** Ends streams and hung replies in progress and stops the server. */
  close(): Promise<void>;
}

/** Delay between deltas of the `SLOW` directive, in milliseconds. */
export const SLOW_DELAY_MS = 250;
const SLOW_DELTAS = 240;
const CHUNK = 6;
const EXCERPT = 200;

/**
 * Starts the fake model on 127.0.0.1 with an OS-assigned port.
 *
 * @example
 * ```ts
 * await using model = await startResponsesModel();
 * await using home = await codexHome({ baseUrl: model.baseUrl });
 * ```
 */
export async function startResponsesModel(
  options: ResponsesModelOptions = {},
): Promise<ResponsesModel> {
  const requests: ResponsesRequest[] = [];
  const closing = new AbortController();
  let counter = 0;

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const rawBody = await request.text();
    const recorded: ResponsesRequest = {
      method: request.method,
      path: url.pathname,
      headers: Object.fromEntries(request.headers),
      body: parseJson(rawBody),
      rawBody,
    };
    requests.push(recorded);
    const n = ++counter;
    if (`${request.method} ${url.pathname}` !== "POST /v1/responses") {
      return errorResponse(404, `Unknown route "${request.method} ${url.pathname}" on the fake.`);
    }
    const reply = options.script?.(recorded) ?? directiveReply(recorded);
    switch (reply.kind) {
      case "error":
        return reply.body === undefined
          ? errorResponse(reply.status, reply.message ?? `Scripted error ${reply.status}.`)
          : Response.json(reply.body, { status: reply.status });
      case "hang":
        // request.signal is left alone (touching it makes Deno warn); close() ends the wait.
        await sleep(Infinity, closing.signal);
        return errorResponse(503, "The fake model closed while this reply was hanging.");
      case "text":
        return sse(textEvents(n, reply.deltas), reply.delayMs ?? 0, closing.signal);
      case "call":
        return sse(callEvents(n, reply.call), 0, closing.signal);
    }
  };

  const { promise: listening, resolve: onListen } = Promise.withResolvers<void>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: closing.signal,
    onListen: () => onListen(),
    onError: (error) => errorResponse(500, `Fake Responses model failed: ${error}`),
  }, handle);
  await listening;

  const url = `http://127.0.0.1:${server.addr.port}`;
  let closed: Promise<void> | undefined;
  const close = () => {
    if (!closed) {
      closing.abort();
      closed = server.finished;
    }
    return closed;
  };
  return { url, baseUrl: `${url}/v1`, requests, close, [Symbol.asyncDispose]: close };
}

// ---------------------------------------------------------------------------
// Reading a Responses request

/** The `input` items of a Responses request body (empty when absent). */
export function inputItems(body: unknown): Record<string, unknown>[] {
  const input = (body as { input?: unknown } | undefined)?.input;
  return Array.isArray(input) ? input.filter((item) => typeof item === "object" && item) : [];
}

/** Text of the last `role: "user"` message in a request body, or `""`. */
export function lastUserText(body: unknown): string {
  const items = inputItems(body);
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.type === "message" && item.role === "user") return messageText(item);
  }
  return "";
}

/** Concatenated text parts of a Responses message item. */
export function messageText(item: Record<string, unknown>): string {
  const content = item.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => typeof part?.text === "string" ? part.text : "").join("");
}

/** The output of the last input item when it is a `function_call_output`, else undefined. */
export function lastToolOutput(body: unknown): string | undefined {
  const last = inputItems(body).at(-1);
  if (last?.type !== "function_call_output") return undefined;
  return typeof last.output === "string" ? last.output : JSON.stringify(last.output);
}

/** Splits text into deltas of a few code points. */
export function deltas(text: string, size = CHUNK): string[] {
  const points = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

/** The reply the directives in the module comment pick for `request`. */
export function directiveReply(request: ResponsesRequest): ResponsesReply {
  const output = lastToolOutput(request.body);
  if (output !== undefined) {
    return { kind: "text", deltas: deltas(`Done: ${output.slice(0, EXCERPT)}`) };
  }
  const text = lastUserText(request.body).trim();
  const [directive] = text.split(/\s/, 1);
  const rest = text.slice(directive.length).trim();
  switch (directive) {
    case "RUN":
      return exec({
        cmd: rest,
        sandbox_permissions: "require_escalated",
        justification: "the test asked for this command",
      });
    case "RUN_PLAIN":
      return exec({ cmd: rest });
    case "PATCH": {
      const [file, ...content] = rest.split(" ");
      const patch = `*** Begin Patch\n*** Add File: ${file}\n+${
        content.join(" ")
      }\n*** End Patch\n`;
      return exec({ cmd: `apply_patch <<'EOF'\n${patch}EOF\n` });
    }
    case "PERMS":
      return {
        kind: "call",
        call: {
          name: "request_permissions",
          arguments: {
            permissions: { file_system: { write: [rest] } },
            reason: "the test asked for write access",
          },
        },
      };
    case "MCP": {
      const match = /^(\S+)\s+(\S+)\s*([\s\S]*)$/.exec(rest);
      if (!match) return say("MCP needs: MCP <namespace> <tool> <json-args>");
      const [, space, name, args] = match;
      return {
        kind: "call",
        call: {
          namespace: space.startsWith("mcp__") ? space : `mcp__${space}`,
          name,
          arguments: args.trim() || "{}",
        },
      };
    }
    case "SLOW":
      return {
        kind: "text",
        deltas: Array.from({ length: SLOW_DELTAS }, (_, i) => `tick${i} `),
        delayMs: SLOW_DELAY_MS,
      };
    case "FAIL401":
      return { kind: "error", status: 401, message: "Incorrect API key provided" };
    case "HANG":
      return { kind: "hang" };
    default:
      return { kind: "text", deltas: deltas(`Echo: ${text}`) };
  }
}

function exec(args: Record<string, unknown>): ResponsesReply {
  return { kind: "call", call: { name: "exec_command", arguments: args } };
}

function say(value: string): ResponsesReply {
  return { kind: "text", deltas: deltas(value) };
}

// ---------------------------------------------------------------------------
// Writing a Responses stream

type Event = { type: string; [field: string]: unknown };

const USAGE = {
  input_tokens: 42,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 7,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 49,
};

function created(n: number): Event {
  return { type: "response.created", response: { id: `resp_fake${n}`, status: "in_progress" } };
}

function completed(n: number, item: unknown): Event {
  return {
    type: "response.completed",
    response: { id: `resp_fake${n}`, status: "completed", output: [item], usage: USAGE },
  };
}

/** Events of a text answer; the deltas are the events between the first and the last three. */
function textEvents(n: number, parts: string[]): Event[] {
  const id = `msg_fake${n}`;
  const whole = parts.join("");
  const done = {
    type: "message",
    id,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: whole, annotations: [] }],
  };
  const at = { item_id: id, output_index: 0, content_index: 0 };
  return [
    created(n),
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { type: "message", id, role: "assistant", status: "in_progress", content: [] },
    },
    {
      type: "response.content_part.added",
      ...at,
      part: { type: "output_text", text: "", annotations: [] },
    },
    ...parts.map((delta) => ({ type: "response.output_text.delta", ...at, delta })),
    { type: "response.output_text.done", ...at, text: whole },
    { type: "response.output_item.done", output_index: 0, item: done },
    completed(n, done),
  ];
}

function callEvents(n: number, call: ResponsesCall): Event[] {
  const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
  const item = {
    type: "function_call",
    id: `fc_fake${n}`,
    call_id: `call_fake${n}`,
    ...(call.namespace ? { namespace: call.namespace } : {}),
    name: call.name,
    arguments: args,
    status: "completed",
  };
  const at = { item_id: item.id, output_index: 0 };
  return [
    created(n),
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, arguments: "", status: "in_progress" },
    },
    { type: "response.function_call_arguments.delta", ...at, delta: args },
    { type: "response.function_call_arguments.done", ...at, arguments: args },
    { type: "response.output_item.done", output_index: 0, item },
    completed(n, item),
  ];
}

/**
 * An SSE response sending `events` `delayMs` apart. It stops when codex
 * closes the stream (the body is cancelled) and errors when the server
 * closes, which drops the connection like an outage.
 */
function sse(events: Event[], delayMs: number, closing: AbortSignal): Response {
  const encoder = new TextEncoder();
  const cancelled = new AbortController();
  const stop = AbortSignal.any([closing, cancelled.signal]);
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next > 0 && delayMs > 0) await sleep(delayMs, stop);
      if (cancelled.signal.aborted) return;
      if (closing.aborted) {
        controller.error(new Error("The fake model closed during the response."));
        return;
      }
      const event = events[next++];
      controller.enqueue(
        encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
      );
      if (next === events.length) controller.close();
    },
    cancel() {
      cancelled.abort();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}

function errorResponse(status: number, message: string): Response {
  const code = status === 401 ? "invalid_api_key" : null;
  return Response.json(
    { error: { message, type: "invalid_request_error", param: null, code } },
    { status },
  );
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
