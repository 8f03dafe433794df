/**
 * Checking that an MCP server answers: the real `initialize` handshake
 * (JSON-RPC 2.0, revision 2025-11-25), over stdio for a command (spawned,
 * then ended) or over Streamable HTTP for a URL, within a timeout, and the
 * tools it lists when it offers tools. The answer is a closed union that
 * callers branch on.
 *
 * Both transports go through core's JSON-RPC peer: newline-delimited
 * framing on the child's stdio (adapters/rpc/ndjson.ts), one POST per
 * message over HTTP (./http_port.ts). While it waits, the probe answers the
 * server's `ping` and refuses its other requests with -32601; lines that are
 * not JSON are skipped.
 *
 * A spawned server starts from the child allowlist
 * (adapters/process/child_env.ts), the profile's `terminal.env_passthrough`
 * names and its own `env` from config, never the dashboard's whole
 * environment.
 *
 * @module
 */

import { isRecord } from "../../core/_util/json.ts";
import { z } from "zod";
import {
  method,
  RpcClosedError,
  RpcError,
  RpcFramingError,
  type RpcMethods,
  RpcPeer,
  RpcTimeoutError,
} from "../../core/rpc/mod.ts";
import type { ProcessGroup } from "../process/mod.ts";
import { connectNdjson } from "../rpc/mod.ts";
import { McpHttpError, McpHttpPort } from "./http_port.ts";
import { spawnStdioServer } from "../process/stdio_server.ts";

/** What to check: a command (stdio) or a URL (Streamable HTTP). */
export interface McpProbeTarget {
  command?: string;
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  url?: string;
  headers?: Readonly<Record<string, string>>;
}

/** Options of {@link probeMcpServer}. */
export interface McpProbeOptions {
  /** How long the handshake may take, in milliseconds. */
  timeoutMs: number;
  /** Environment the child starts from (only the allowlisted variables are passed on). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** Names passed on besides the allowlist: the profile's `terminal.env_passthrough`. */
  envPassthrough?: readonly string[];
  /** Where passthrough names are looked up (default `baseEnv`): the profile's `.env`, then the environment. */
  envLookup?: (name: string) => string | undefined;
  cwd?: string;
}

/** The server's self-description from the initialize result. */
export interface McpServerInfo {
  name: string;
  version?: string;
  title?: string;
}

/** Why a check failed. */
export type McpProbeFailure =
  | "spawn_failed"
  | "timeout"
  | "exited"
  | "unreachable"
  | "http_error"
  | "rpc_error"
  | "protocol_error";

/** The outcome of a check. */
export type McpProbeResult =
  | {
    ok: true;
    transport: "stdio" | "http";
    protocolVersion: string;
    serverInfo: McpServerInfo;
    capabilities: Record<string, unknown>;
    elapsedMs: number;
    /** The tools the server lists (when it offers tools and listing worked). */
    tools?: McpListedTool[];
    /** Why the tools could not be listed (the handshake itself worked). */
    toolsError?: string;
  }
  | {
    ok: false;
    transport: "stdio" | "http";
    code: McpProbeFailure;
    message: string;
    /** The end of what a stdio server wrote on standard error. */
    stderrTail?: string;
  };

/** The revision Herald asks for first. */
export const MCP_PROTOCOL_VERSION = "2025-11-25";
/** Revisions Herald can talk. */
export const MCP_SUPPORTED_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** A tool as a check lists it. */
export interface McpListedTool {
  name: string;
  description?: string;
}

/** The most `tools/list` pages a check reads. */
const MAX_TOOL_PAGES = 10;

/** The longest a check waits for the tool list after the handshake (ms). */
const TOOLS_TIMEOUT_MS = 5000;

/**
 * The server's tools, page by page (at most {@link MAX_TOOL_PAGES}), or why
 * they could not be listed. Asked only of a server that offers tools.
 */
async function listTools(
  peer: RpcPeer,
  capabilities: Record<string, unknown>,
  timeoutMs: number,
): Promise<{ tools?: McpListedTool[]; toolsError?: string }> {
  if (!isRecord(capabilities.tools)) return {};
  const tools: McpListedTool[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const answer = await peer.request("tools/list", cursor === undefined ? {} : { cursor }, {
        timeoutMs,
      });
      const listed = isRecord(answer) && Array.isArray(answer.tools) ? answer.tools : [];
      for (const tool of listed) {
        if (!isRecord(tool) || typeof tool.name !== "string") continue;
        tools.push({
          name: tool.name,
          ...(typeof tool.description === "string" ? { description: tool.description } : {}),
        });
      }
      cursor = isRecord(answer) && typeof answer.nextCursor === "string"
        ? answer.nextCursor
        : undefined;
      if (cursor === undefined) break;
    }
  } catch (error) {
    return {
      toolsError: `the server did not list its tools: ${(error as Error)?.message ?? error}`,
    };
  }
  return { tools };
}

const STDERR_TAIL = 2000;
const KILL_GRACE_MS = 1000;
/** How long ending an HTTP session may take (each request). */
const HTTP_CLOSE_TIMEOUT_MS = 2000;

function initializeParams(): Record<string, unknown> {
  return {
    protocolVersion: MCP_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "herald", version: "dashboard-check" },
  };
}

/** What the probe serves while it waits: the server may ping before initialize is answered. */
const PROBE_METHODS: RpcMethods = {
  ping: method(z.object({}), () => ({})),
};

type Transport = "stdio" | "http";

/** Turns an initialize result into the outcome, checking its shape. */
function interpret(transport: Transport, answer: unknown, startedAt: number): McpProbeResult {
  const result = isRecord(answer) ? answer : undefined;
  const info = isRecord(result?.serverInfo) ? result.serverInfo : undefined;
  if (!result || !info || typeof info.name !== "string") {
    return {
      ok: false,
      transport,
      code: "protocol_error",
      message: "The initialize result has no serverInfo.name; this is not an MCP server",
    };
  }
  const version = String(result.protocolVersion ?? "");
  if (!MCP_SUPPORTED_VERSIONS.includes(version)) {
    return {
      ok: false,
      transport,
      code: "protocol_error",
      message: `The server answered with protocol version "${version}", which Herald does not ` +
        `support (supported: ${MCP_SUPPORTED_VERSIONS.join(", ")})`,
    };
  }
  return {
    ok: true,
    transport,
    protocolVersion: version,
    serverInfo: {
      name: info.name,
      ...(typeof info.version === "string" ? { version: info.version } : {}),
      ...(typeof info.title === "string" ? { title: info.title } : {}),
    },
    capabilities: (result.capabilities as Record<string, unknown>) ?? {},
    elapsedMs: Date.now() - startedAt,
  };
}

/** A successful outcome with the listed tools, timed by the handshake alone. */
function withTools(
  result: McpProbeResult,
  listed: { tools?: McpListedTool[]; toolsError?: string },
  handshakeMs: number,
): McpProbeResult {
  return result.ok ? { ...result, ...listed, elapsedMs: handshakeMs } : result;
}

/** The outcome for an error answer to initialize. */
function refused(transport: Transport, error: RpcError): McpProbeResult {
  return {
    ok: false,
    transport,
    code: "rpc_error",
    message: `The server refused initialize: ${error.message} (code ${error.code})`,
  };
}

/**
 * Runs the initialize handshake against `target` and ends the connection
 * (a spawned server is stopped, its whole process group included).
 *
 * @example
 * ```ts
 * const result = await probeMcpServer({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }, {
 *   timeoutMs: 20_000,
 *   baseEnv: Deno.env.toObject(),
 * });
 * if (result.ok) console.log(result.serverInfo.name);
 * ```
 */
export function probeMcpServer(
  target: McpProbeTarget,
  options: McpProbeOptions,
): Promise<McpProbeResult> {
  if (target.url) return probeHttp(target.url, target.headers ?? {}, options);
  if (target.command) return probeStdio(target, options);
  return Promise.resolve({
    ok: false,
    transport: "stdio",
    code: "spawn_failed",
    message: "The server has neither a command nor a url",
  });
}

async function probeStdio(
  target: McpProbeTarget,
  options: McpProbeOptions,
): Promise<McpProbeResult> {
  const startedAt = Date.now();
  let group: ProcessGroup;
  try {
    group = spawnStdioServer({
      command: target.command!,
      ...(target.args ? { args: target.args } : {}),
      ...(target.env ? { env: target.env } : {}),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      baseEnv: options.baseEnv,
      ...(options.envPassthrough ? { envPassthrough: options.envPassthrough } : {}),
      ...(options.envLookup ? { envLookup: options.envLookup } : {}),
    });
  } catch (error) {
    return {
      ok: false,
      transport: "stdio",
      code: "spawn_failed",
      message: (error as Error).message,
    };
  }

  const { child } = group;
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    }
  })().catch(() => {});
  const connection = connectNdjson({ readable: child.stdout, writable: child.stdin }, {
    methods: PROBE_METHODS,
    replyToParseErrors: false,
  });
  let answer: { result: unknown } | { error: unknown };
  let listed: Awaited<ReturnType<typeof listTools>> = {};
  let handshakeMs = 0;
  try {
    answer = {
      result: await connection.peer.request("initialize", initializeParams(), {
        timeoutMs: options.timeoutMs,
      }),
    };
    handshakeMs = Date.now() - startedAt;
    await connection.peer.notify("notifications/initialized").catch(() => {});
    const capabilities = isRecord(answer.result) && isRecord(answer.result.capabilities)
      ? answer.result.capabilities
      : {};
    listed = await listTools(
      connection.peer,
      capabilities,
      Math.min(TOOLS_TIMEOUT_MS, options.timeoutMs),
    );
  } catch (error) {
    answer = { error };
  }
  await connection.close();
  const status = await stop(group);
  await Promise.race([stderrDone, new Promise((resolve) => setTimeout(resolve, 200))]);
  const stderrTail = stderr.trim() === "" ? undefined : stderr.trim();

  if ("result" in answer) {
    return withTools(interpret("stdio", answer.result, startedAt), listed, handshakeMs);
  }
  const { error } = answer;
  if (error instanceof RpcError) return refused("stdio", error);
  const tail = stderrTail ? { stderrTail } : {};
  if (error instanceof RpcTimeoutError) {
    return {
      ok: false,
      transport: "stdio",
      code: "timeout",
      message: `"${target.command}" did not answer initialize within ${
        options.timeoutMs / 1000
      } s (the MCP test timeout)`,
      ...tail,
    };
  }
  if (error instanceof RpcClosedError && error.cause instanceof RpcFramingError) {
    return {
      ok: false,
      transport: "stdio",
      code: "protocol_error",
      message: `"${target.command}" broke the stdio framing: ${error.cause.message}`,
      ...tail,
    };
  }
  // Its output closed (or its input did) before the answer: it exited or is exiting.
  return {
    ok: false,
    transport: "stdio",
    code: "exited",
    message: `"${target.command}" closed its output before answering initialize` +
      (status.code !== 0 ? ` (exit code ${status.code})` : ""),
    ...tail,
  };
}

/**
 * Ends a spawned server once it had a moment to exit on its own: SIGTERM to
 * its process tree, SIGKILL after a grace period for whatever still runs (a
 * launcher such as npx and what it started included).
 */
async function stop(group: ProcessGroup): Promise<Deno.CommandStatus> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([group.status, new Promise((resolve) => timer = setTimeout(resolve, 50))]);
  clearTimeout(timer);
  await group.terminate({ graceMs: KILL_GRACE_MS });
  return await group.status;
}

async function probeHttp(
  url: string,
  headers: Readonly<Record<string, string>>,
  options: McpProbeOptions,
): Promise<McpProbeResult> {
  const startedAt = Date.now();
  const port = new McpHttpPort(url, { headers, timeoutMs: options.timeoutMs });
  const peer = new RpcPeer(port, { methods: PROBE_METHODS, replyToParseErrors: false });
  port.attach((text) => void peer.receive(text));
  let answer: unknown;
  try {
    answer = await peer.request("initialize", initializeParams());
  } catch (error) {
    peer.close();
    return httpFailure(url, error, options);
  }
  const handshakeMs = Date.now() - startedAt;
  let result = interpret("http", answer, startedAt);
  if (result.ok) {
    // Best effort: the check already succeeded.
    port.protocolVersion = result.protocolVersion;
    await peer.notify("notifications/initialized").catch(() => {});
    const listed = await listTools(
      peer,
      result.capabilities,
      Math.min(TOOLS_TIMEOUT_MS, options.timeoutMs),
    );
    result = withTools(result, listed, handshakeMs);
    await port.terminate(HTTP_CLOSE_TIMEOUT_MS);
  }
  peer.close();
  return result;
}

function httpFailure(url: string, error: unknown, options: McpProbeOptions): McpProbeResult {
  if (error instanceof RpcError) return refused("http", error);
  if (error instanceof McpHttpError) {
    return {
      ok: false,
      transport: "http",
      code: error.problem === "status" ? "http_error" : "protocol_error",
      // The port's message names the request: "<url> answered initialize with HTTP 401; ...".
      message: error.message,
    };
  }
  const name = (error as Error)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return {
      ok: false,
      transport: "http",
      code: "timeout",
      message: `${url} did not answer initialize within ${
        options.timeoutMs / 1000
      } s (the MCP test timeout)`,
    };
  }
  return {
    ok: false,
    transport: "http",
    code: "unreachable",
    message: `Cannot reach ${url}: ${(error as Error)?.message ?? String(error)}`,
  };
}
