/**
 * A profile's MCP servers as tools of its agent: every enabled server is
 * connected when the runtime opens (all at once, each within
 * {@link MCP_CONNECT_TIMEOUT_MS}), and each of its tools becomes
 * `mcp_<server>_<tool>` in a stable order (core/mcp/tools.ts).
 *
 * A server that fails to start, or dies later, is reported once and never
 * takes the session down: its calls answer the model with the reason and
 * Herald starts it again on a later call, waiting longer after each failure
 * (1 s doubling to 60 s). A server's elicitation requests go to the
 * person through the surface's approval path: a URL to open is approved or
 * declined; a form is answered with its defaults when they fill every
 * required field and the person approves, and declined otherwise (nobody
 * can type into a form here). Where nobody can answer (unattended runs),
 * the approval is denied, so the request is declined.
 *
 * @module
 */

import { z } from "zod";
import {
  bindMcpTools,
  elicitationDefaults,
  mcpResultText,
  type McpServerConfig,
  type McpToolInfo,
  mcpToolOutput,
  toolParameters,
} from "../../core/mcp/mod.ts";
import { errorText } from "../../core/errors.ts";
import { type Tool, type ToolContext, ToolError } from "../../core/tools/types.ts";
import {
  connectMcpServer,
  McpCallError,
  type McpProcessOptions,
  type McpServerConnection,
} from "./client.ts";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types";

/** How long starting a server and listing its tools may take (ms). */
export const MCP_CONNECT_TIMEOUT_MS = 30_000;

/** The first wait before a failed server is started again (ms); it doubles up to the max. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/** Options of {@link openMcpToolset}. */
export interface McpToolsetOptions extends McpProcessOptions {
  /** Told once per failure of a server (it did not start, or its connection ended). */
  onWarning: (message: string) => void;
  /** The clock (ms). */
  now?: () => number;
  /** How long a server may take to start (default {@link MCP_CONNECT_TIMEOUT_MS}). */
  connectTimeoutMs?: number;
}

/** The servers' tools and how to end them. */
export interface McpToolset {
  /** The tools, in a stable order. */
  readonly tools: Tool[];
  /** Each enabled server's state: connected (with its tool count) or why not. */
  status(): { name: string; connected: boolean; tools: number; pid?: number; error?: string }[];
  /** Ends every connection (stdio servers are stopped). */
  close(): Promise<void>;
}

/** One server with its connection (or the reason it has none) and its retry clock. */
class ServerSlot {
  connection: McpServerConnection | undefined;
  error: string | undefined;
  failures = 0;
  retryAt = 0;
  #connecting: Promise<McpServerConnection | undefined> | undefined;
  #closed = false;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: McpToolsetOptions,
  ) {}

  #now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Connects (once at a time); undefined when it failed, the reason in `error`. */
  connect(): Promise<McpServerConnection | undefined> {
    this.#connecting ??= this.#connect().finally(() => this.#connecting = undefined);
    return this.#connecting;
  }

  async #connect(): Promise<McpServerConnection | undefined> {
    try {
      const connection = await connectMcpServer(this.name, this.config, {
        ...this.options,
        timeoutMs: this.options.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS,
        onClose: (reason) => this.#lost(reason),
      });
      if (this.#closed) {
        await connection.close();
        return undefined;
      }
      this.connection = connection;
      this.error = undefined;
      this.failures = 0;
      return connection;
    } catch (error) {
      this.#failed(errorText(error));
      return undefined;
    }
  }

  #failed(reason: string): void {
    this.connection = undefined;
    this.error = reason;
    this.failures++;
    this.retryAt = this.#now() +
      Math.min(RETRY_FIRST_MS * 2 ** (this.failures - 1), RETRY_MAX_MS);
    this.options.onWarning(reason);
  }

  #lost(reason: string): void {
    if (this.#closed) return;
    this.#failed(`${reason}; Herald starts it again on the next call to one of its tools`);
  }

  /** The live connection, starting the server again when its wait is over. */
  async live(): Promise<McpServerConnection> {
    if (this.connection && !this.connection.closed) return this.connection;
    const wait = this.retryAt - this.#now();
    if (wait > 0) {
      throw new ToolError(
        "mcp_server_down",
        `MCP server "${this.name}" is not running (${this.error ?? "it stopped"}); ` +
          `Herald tries again in ${Math.ceil(wait / 1000)} s`,
      );
    }
    const connection = await this.connect();
    if (!connection) {
      throw new ToolError(
        "mcp_server_down",
        `MCP server "${this.name}" could not be started: ${this.error}`,
      );
    }
    return connection;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#connecting?.catch(() => undefined);
    await this.connection?.close();
  }
}

/** Asks the person about an elicitation through the call's approval path. */
function elicitationHandler(server: string, context: ToolContext) {
  return async (params: ElicitRequest["params"]): Promise<ElicitResult> => {
    const tool = `mcp_${server}`;
    if (params.mode === "url") {
      const url = String(params.url);
      const approved = await context.approve({
        tool,
        command: `open ${url}`,
        reason: `MCP server "${server}" asks you to open a link: ${params.message}`,
        ruleKey: `mcp_elicitation:${server}`,
      });
      return { action: approved ? "accept" : "decline" };
    }
    const defaults = elicitationDefaults(params.requestedSchema as Record<string, unknown>);
    if (!defaults) return { action: "decline" };
    const approved = await context.approve({
      tool,
      command: `answer ${JSON.stringify(defaults)}`,
      reason: `MCP server "${server}" asks: ${params.message}`,
      ruleKey: `mcp_elicitation:${server}`,
    });
    return approved ? { action: "accept", content: defaults as ElicitResult["content"] } : {
      action: "decline",
    };
  };
}

/** Arguments of an MCP tool: an object, checked by the server against its own schema. */
const ANY_OBJECT = z.record(z.string(), z.unknown());

function toolOf(
  name: string,
  slot: ServerSlot,
  info: McpToolInfo,
): Tool<Record<string, unknown>> {
  return {
    name,
    description: info.description?.trim() ||
      info.title?.trim() ||
      `Tool "${info.name}" of MCP server ${slot.name}`,
    schema: ANY_OBJECT,
    parameters: toolParameters(info.inputSchema),
    async run(args, context) {
      const connection = await slot.live();
      let result;
      try {
        result = await connection.call(info.name, args, {
          timeoutMs: slot.config.timeout * 1000,
          signal: context.signal,
          onElicit: elicitationHandler(slot.name, context),
        });
      } catch (error) {
        if (error instanceof McpCallError) {
          throw new ToolError(`mcp_${error.kind}`, error.message);
        }
        throw error;
      }
      if (result.isError) {
        throw new ToolError(
          "mcp_tool_error",
          mcpResultText(result) || `${info.name} of MCP server ${slot.name} failed`,
        );
      }
      return mcpToolOutput(result);
    },
  };
}

/**
 * Connects the enabled servers of `servers` and makes their tools. A
 * server that does not start is reported through `onWarning` and left
 * without tools in this runtime (it is tried again on the next one).
 *
 * @example
 * ```ts
 * const mcp = await openMcpToolset(config.mcp_servers, { baseEnv: env, onWarning: console.warn });
 * const registry = new ToolRegistry([...builtins, ...mcp.tools]);
 * await mcp.close();
 * ```
 */
export async function openMcpToolset(
  servers: Readonly<Record<string, McpServerConfig>>,
  options: McpToolsetOptions,
): Promise<McpToolset> {
  const slots = Object.entries(servers)
    .filter(([, config]) => config.enabled)
    .map(([name, config]) => new ServerSlot(name, config, options));
  await Promise.all(slots.map((slot) => slot.connect()));
  const listed = new Map<string, readonly McpToolInfo[]>();
  for (const slot of slots) {
    if (slot.connection) listed.set(slot.name, slot.connection.tools);
  }
  const { bindings, clashes } = bindMcpTools(listed);
  if (clashes.length > 0) {
    options.onWarning(
      `MCP tools left out because their names clash with another's: ${clashes.join(", ")}`,
    );
  }
  const bySlot = new Map(slots.map((slot) => [slot.name, slot]));
  const tools = bindings.map((binding) =>
    toolOf(binding.name, bySlot.get(binding.server)!, binding.tool) as unknown as Tool
  );
  return {
    tools,
    status: () =>
      slots.map((slot) => ({
        name: slot.name,
        connected: slot.connection !== undefined && !slot.connection.closed,
        tools: listed.get(slot.name)?.length ?? 0,
        ...(slot.connection?.pid === undefined ? {} : { pid: slot.connection.pid }),
        ...(slot.error === undefined ? {} : { error: slot.error }),
      })),
    close: async () => {
      await Promise.all(slots.map((slot) => slot.close()));
    },
  };
}
