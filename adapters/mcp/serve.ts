/**
 * `herald mcp serve`: Herald's own tools offered to another agent over MCP
 * (revision 2025-11-25), through the SDK's low-level `Server`. `tools/list`
 * gives each tool's name, description and JSON Schema in the registry's
 * order; `tools/call` runs it through the registry (validated, never
 * throwing for the tool's own failure) and answers its content as one text
 * block, `isError` when it failed. A `notifications/cancelled` for a call
 * aborts that call's signal.
 *
 * Nobody can answer an approval question here: a dangerous command passes
 * only when the profile's `approvals.allow` (or yolo mode) allows it, as in
 * a kanban worker; denials are logged (to standard error in the command).
 *
 * The exposed tools are the file tools, terminal, session_search, memory
 * and the skills tools; never todo, send_message, cronjob, the kanban
 * worker tools or other MCP servers' tools.
 *
 * @module
 */

// The package's `./*` export maps `x.js` to types at `x.js.d.ts`, which do not exist: the
// value imports name their types explicitly, type-only imports drop the `.js`.
import { Server } from "@modelcontextprotocol/sdk/server";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { profileApprovalPolicy } from "../../core/agent/approvals.ts";
import { loadSessionConfig } from "../../core/agent/session_config.ts";
import type { ProcessEnv } from "../../core/config/mod.ts";
import { createSessionSearchTool } from "../../core/sessions/search_tool.ts";
import { unattendedSurface } from "../../core/tools/approval_policy.ts";
import { ToolRegistry } from "../../core/tools/registry.ts";
import type {
  ApprovalHandler,
  ApprovalRequest,
  Tool,
  ToolContext,
} from "../../core/tools/types.ts";
import type { ProfileContext } from "../../core/usecases/ports.ts";
import { VERSION } from "../../core/version.ts";
import { encodeNdjson, NdjsonDecoder } from "../rpc/mod.ts";
import { createSkillTools } from "../skills/mod.ts";
import { openStateStore } from "../sqlite/mod.ts";
import { profileBuiltinTools } from "../tools/profile_tools.ts";

/** Built-in tools that are not served: a caller keeps its own plan. */
const NOT_SERVED = new Set(["todo"]);

/** Options of {@link serveTools}. */
export interface ServeToolsOptions {
  /** Working directory of the calls. */
  cwd: string;
  /** The profile home (memories and skills live under it). */
  home: string;
  /** Decides dangerous actions; nobody is asked, so this is a policy without `ask`. */
  approve: ApprovalHandler;
  /** The session id the calls see (default `mcp-serve-<uuid>`). */
  sessionId?: string;
  /** Receives transport and protocol errors (a line that is not JSON-RPC ...). */
  onError?(error: Error): void;
}

/** A running tool server. */
export interface McpToolServer {
  /** The session id every call runs under. */
  readonly sessionId: string;
  /** Settles once the connection closed and the calls still running have ended. */
  readonly closed: Promise<void>;
  /** Closes the connection, aborting the calls still running, and waits for them. */
  close(): Promise<void>;
}

/** The MCP definition of each tool in `registry`, in its order. */
export function toolDefinitions(registry: ToolRegistry): McpTool[] {
  return registry.specs().map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: { ...spec.parameters, type: "object" },
  }));
}

/** The approval callback of one call's {@link ToolContext}. */
function approver(approve: ApprovalHandler, signal: AbortSignal): ToolContext["approve"] {
  return async (request) => {
    const full: ApprovalRequest = { ...request, ruleKey: request.ruleKey ?? request.command };
    return (await approve(full, { signal })) !== "deny";
  };
}

/**
 * Serves the tools of `registry` over `transport` until the other side
 * closes it (or {@link McpToolServer.close}).
 *
 * @example
 * ```ts
 * const server = await serveTools(registry, stdioServerTransport(), { cwd, home, approve });
 * await server.closed;
 * ```
 */
export async function serveTools(
  registry: ToolRegistry,
  transport: Transport,
  options: ServeToolsOptions,
): Promise<McpToolServer> {
  const sessionId = options.sessionId ?? `mcp-serve-${crypto.randomUUID()}`;
  const server = new Server(
    { name: "herald", title: "Herald tools", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: "Herald's own tools: files, terminal, session search, memory and skills. " +
        "Dangerous commands run only when the profile's approvals.allow allows them.",
    },
  );
  const running = new Set<Promise<unknown>>();
  const tools = toolDefinitions(registry);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args } = request.params;
    const call = registry.execute(
      { id: String(extra.requestId), name, arguments: JSON.stringify(args ?? {}) },
      {
        sessionId,
        cwd: options.cwd,
        home: options.home,
        signal: extra.signal,
        approve: approver(options.approve, extra.signal),
      },
    );
    running.add(call);
    return call.then((outcome): CallToolResult => ({
      content: [{ type: "text", text: outcome.content }],
      isError: !outcome.ok,
    })).finally(() => running.delete(call));
  });

  const { promise: disconnected, resolve } = Promise.withResolvers<void>();
  server.onclose = () => resolve();
  server.onerror = (error) => options.onError?.(error);
  await server.connect(transport);

  const closed = disconnected.then(async () => {
    // The SDK aborts the calls' signals when the connection closes; wait until they stop.
    while (running.size > 0) await Promise.allSettled([...running]);
  });
  return {
    sessionId,
    closed,
    async close() {
      await server.close();
      await closed;
    },
  };
}

/**
 * An SDK server {@link Transport} over two byte streams (standard input and
 * output): newline-delimited JSON. The end of the input means no more
 * requests: the requests already read are still answered (unless the
 * client cancelled them), then the transport closes.
 */
export class StreamServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #readable: ReadableStream<Uint8Array>;
  readonly #writable: WritableStream<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  /** Ids of the requests read and not answered or cancelled yet. */
  readonly #unanswered = new Set<string | number>();
  #inputEnded = false;
  #closed = false;

  /** A transport reading messages from `readable` and writing them to `writable`. */
  constructor(readable: ReadableStream<Uint8Array>, writable: WritableStream<Uint8Array>) {
    this.#readable = readable;
    this.#writable = writable;
  }

  /** Starts reading; the SDK calls it on `connect`. */
  start(): Promise<void> {
    this.#reader = this.#readable.getReader();
    this.#writer = this.#writable.getWriter();
    void this.#read(this.#reader);
    return Promise.resolve();
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new NdjsonDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const line of decoder.push(value)) this.#receive(line);
      }
      for (const line of decoder.end()) this.#receive(line);
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error);
    } finally {
      this.#inputEnded = true;
      this.#closeWhenAnswered();
    }
  }

  #closeWhenAnswered(): void {
    if (this.#inputEnded && this.#unanswered.size === 0) void this.close();
  }

  #receive(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.onerror?.(new Error(`Skipped a line that is not JSON-RPC: ${line.slice(0, 200)}`));
      return;
    }
    if ("method" in message && "id" in message) this.#unanswered.add(message.id);
    if ("method" in message && message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (requestId !== undefined) this.#unanswered.delete(requestId);
    }
    this.onmessage?.(message);
    this.#closeWhenAnswered();
  }

  /** Writes one message as a line. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#closed) throw new Error("The MCP connection is closed");
    await this.#writer.write(encodeNdjson(JSON.stringify(message)));
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      this.#unanswered.delete(message.id);
      this.#closeWhenAnswered();
    }
  }

  /** Stops reading and releases the streams. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    this.#reader?.releaseLock();
    this.#writer?.releaseLock();
    this.onclose?.();
  }
}

/** The process's standard input and output as an MCP server transport. */
export function stdioServerTransport(): StreamServerTransport {
  return new StreamServerTransport(Deno.stdin.readable, Deno.stdout.writable);
}

/** Options of {@link openServedToolset}. */
export interface ServedToolsetOptions {
  /** The process environment: what commands inherit, and the credentials fallback. */
  env: ProcessEnv;
  /** Safe mode: config.yaml is not read (the defaults apply), nothing is saved. */
  safeMode: boolean;
  /** The profile's state database (`state.db`), for session_search. */
  stateDb: string;
  /** Receives warnings and approval denials, one line each. */
  log(line: string): void;
}

/** The tools a profile serves and the policy that approves their dangerous calls. */
export interface ServedToolset {
  registry: ToolRegistry;
  approve: ApprovalHandler;
  /** Closes the state store. */
  close(): void;
}

/**
 * Assembles the tools `herald mcp serve` offers for `profile`, with its
 * config (terminal.env_passthrough, approvals.deny and approvals.allow,
 * tools.write_safe_root) and its state database. No model is needed.
 *
 * @throws ConfigParseError when config.yaml is not valid YAML.
 */
export async function openServedToolset(
  profile: ProfileContext,
  options: ServedToolsetOptions,
): Promise<ServedToolset> {
  const { config, credentials, warnings } = await loadSessionConfig(profile, options);
  for (const warning of warnings) {
    options.log(`warning: ${profile.files.configPath}: ${warning.message}`);
  }
  const policy = profileApprovalPolicy(profile.files, {
    surface: unattendedSurface(options.log, "mcp serve", "over MCP"),
    safeMode: options.safeMode,
    allowed: config.approvals.allow,
    yolo: config.approvals.mode === "yolo",
    timeoutSeconds: config.approvals.timeout,
  });
  const builtins = profileBuiltinTools(config, { env: options.env, credentials })
    .filter((tool) => !NOT_SERVED.has(tool.name));
  const store = openStateStore(options.stateDb);
  const tools: Tool[] = [...builtins, createSessionSearchTool(store), ...createSkillTools()];
  return {
    registry: new ToolRegistry(tools),
    approve: policy.decide,
    close: () => store.close(),
  };
}
