/**
 * One live connection to an MCP server, through the official SDK's
 * `Client`: over stdio for a `command` (./stdio_transport.ts, a process
 * group) or Streamable HTTP for a `url`. It lists the server's tools (every
 * page), calls one with a timeout and the turn's abort signal, and answers
 * the server's elicitation requests through a handler the caller sets per
 * call (declined when no call is asking).
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpCallResult, McpServerConfig, McpToolInfo } from "../../core/mcp/mod.ts";
import { tailLines } from "../process/stderr_tail.ts";
import { ProcessStdioTransport, type StdioServerSpec } from "./stdio_transport.ts";

/** Answers one elicitation request of the server (form or URL). */
export type ElicitationHandler = (request: ElicitRequest["params"]) => Promise<ElicitResult>;

/** How to start a stdio server's process. */
export type McpProcessOptions = Omit<StdioServerSpec, "command" | "args" | "env">;

/** Options of {@link connectMcpServer}. */
export interface McpConnectOptions extends McpProcessOptions {
  /** How long starting and the initialize handshake may take (ms). */
  timeoutMs: number;
  /** Told once when the connection ends (the server exited, the HTTP session failed). */
  onClose?: (reason: string) => void;
}

/** Why a call failed, for the message the model reads. */
export type McpCallFailure = "timeout" | "closed" | "refused";

/** A call that did not produce a result. */
export class McpCallError extends Error {
  /** Creates the error; `kind` says whether it timed out, lost the server or was refused. */
  constructor(readonly kind: McpCallFailure, message: string) {
    super(message);
    this.name = "McpCallError";
  }
}

/** A connected server. */
export interface McpServerConnection {
  readonly name: string;
  readonly transport: "stdio" | "http";
  /** Its tools, as listed when it connected. */
  readonly tools: readonly McpToolInfo[];
  /** True once the connection ended. */
  readonly closed: boolean;
  /** A stdio server's process (group) id. */
  readonly pid: number | undefined;
  /**
   * Calls `tool` with `args`. `onElicit` answers what the server asks while
   * the call runs.
   *
   * @throws McpCallError when the call times out, the server goes away or refuses the request.
   */
  call(
    tool: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal?: AbortSignal; onElicit?: ElicitationHandler },
  ): Promise<McpCallResult>;
  /** Ends the connection (a stdio server's process group is stopped). */
  close(): Promise<void>;
}

/** What the SDK's HTTP transport reports once a broken stream cannot be resumed. */
const UNREACHABLE = /Failed to reconnect SSE stream|Maximum reconnection attempts/;

/** Herald's name toward servers. */
const CLIENT_INFO = { name: "herald", version: "0.1.0" };

function transportOf(
  server: McpServerConfig,
  options: McpConnectOptions,
): { transport: Transport; kind: "stdio" | "http"; stdio?: ProcessStdioTransport } {
  if (server.url) {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { ...(server.headers ?? {}) } },
    });
    return { transport, kind: "http" };
  }
  if (!server.command) throw new Error("The server has neither a command nor a url");
  const stdio = new ProcessStdioTransport({
    command: server.command,
    ...(server.args ? { args: server.args } : {}),
    ...(server.env ? { env: server.env } : {}),
    baseEnv: options.baseEnv,
    ...(options.envPassthrough ? { envPassthrough: options.envPassthrough } : {}),
    ...(options.envLookup ? { envLookup: options.envLookup } : {}),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  return { transport: stdio, kind: "stdio", stdio };
}

/** Rejects after `ms` with `message`, unless `work` settles first. */
async function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects to server `name` and lists its tools.
 *
 * @throws Error saying why (cannot start, no answer within `timeoutMs`, refused), with the
 * end of a stdio server's standard error.
 *
 * @example
 * ```ts
 * const everything = await connectMcpServer("everything", config.mcp_servers.everything, {
 *   timeoutMs: 20_000,
 *   baseEnv: Deno.env.toObject(),
 * });
 * const result = await everything.call("echo", { message: "hi" }, { timeoutMs: 300_000 });
 * ```
 */
export async function connectMcpServer(
  name: string,
  server: McpServerConfig,
  options: McpConnectOptions,
): Promise<McpServerConnection> {
  const { transport, kind, stdio } = transportOf(server, options);
  const client = new Client(CLIENT_INFO, {
    capabilities: { elicitation: { form: {}, url: {} } },
  });
  // The handler of the call in progress; the newest when several run.
  const asking: ElicitationHandler[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request: ElicitRequest) => {
    const handler = asking.at(-1);
    return handler ? handler(request.params) : Promise.resolve({ action: "decline" as const });
  });
  let closing = false;
  // Aborted once the connection ended: the calls in flight end with it.
  const lost = new AbortController();
  const ended = (reason: string) => {
    if (lost.signal.aborted) return;
    lost.abort();
    if (!closing) options.onClose?.(reason);
  };
  client.onclose = () => {
    const tail = stdio?.stderrTail ? `: ${tailLines(stdio.stderrTail)}` : "";
    ended(`the connection to MCP server "${name}" ended${tail}`);
  };
  // Over HTTP the SDK resumes a broken stream; once the server cannot be reached again, it is gone.
  client.onerror = (error: Error) => {
    if (kind === "http" && UNREACHABLE.test(error.message)) {
      ended(`MCP server "${name}" cannot be reached any more (${error.message})`);
      void client.close().catch(() => {});
    }
  };
  const explain = (error: unknown) => {
    const tail = stdio?.stderrTail ? ` (its standard error: ${stdio.stderrTail.slice(-500)})` : "";
    return new Error(
      `MCP server "${name}" did not start: ${(error as Error)?.message ?? error}${tail}`,
    );
  };
  let tools: McpToolInfo[];
  try {
    await within(
      client.connect(transport),
      options.timeoutMs,
      `no answer to initialize within ${options.timeoutMs / 1000} s`,
    );
    tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: options.timeoutMs,
      });
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          ...(tool.description === undefined ? {} : { description: tool.description }),
          ...(tool.title === undefined ? {} : { title: tool.title }),
          inputSchema: tool.inputSchema as Record<string, unknown>,
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
  } catch (error) {
    closing = true;
    const failure = explain(error);
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    throw failure;
  }

  return {
    name,
    transport: kind,
    tools,
    get closed() {
      return lost.signal.aborted;
    },
    pid: stdio?.pid,
    async call(tool, args, callOptions) {
      if (lost.signal.aborted) {
        throw new McpCallError("closed", `MCP server "${name}" is not connected`);
      }
      if (callOptions.onElicit) asking.push(callOptions.onElicit);
      try {
        const signal = callOptions.signal
          ? AbortSignal.any([callOptions.signal, lost.signal])
          : lost.signal;
        const result = await client.callTool({ name: tool, arguments: args }, undefined, {
          timeout: callOptions.timeoutMs,
          signal,
        });
        return result as McpCallResult;
      } catch (error) {
        // The turn was interrupted: the registry says so.
        if (callOptions.signal?.aborted) throw error;
        if (lost.signal.aborted) {
          throw new McpCallError(
            "closed",
            `MCP server "${name}" stopped during the call to ${tool}`,
          );
        }
        const code = error instanceof McpError ? error.code : undefined;
        if (code === ErrorCode.RequestTimeout) {
          throw new McpCallError(
            "timeout",
            `MCP server "${name}" did not answer ${tool} within ${
              callOptions.timeoutMs / 1000
            } s (its timeout)`,
          );
        }
        throw new McpCallError(
          "refused",
          `MCP server "${name}" refused ${tool}: ${(error as Error)?.message ?? error}`,
        );
      } finally {
        if (callOptions.onElicit) asking.splice(asking.lastIndexOf(callOptions.onElicit), 1);
      }
    },
    async close() {
      closing = true;
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
    },
  };
}
