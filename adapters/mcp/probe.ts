/**
 * Checking that an MCP server answers: the real `initialize` handshake
 * (JSON-RPC 2.0, revision 2025-11-25), over stdio for a command (spawned,
 * then ended) or over Streamable HTTP for a URL, within a timeout. The
 * answer is a closed union that callers branch on.
 *
 * A spawned server starts from the child allowlist
 * (adapters/process/child_env.ts), the profile's `terminal.env_passthrough`
 * names and its own `env` from config, never the dashboard's whole
 * environment.
 *
 * @module
 */

import { childEnvironment, type ProcessGroup, spawnProcessGroup } from "../process/mod.ts";

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

const STDERR_TAIL = 2000;
const KILL_GRACE_MS = 1000;

function initializeRequest(id: number): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "herald", version: "dashboard-check" },
    },
  });
}

const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

type Transport = "stdio" | "http";

/** Turns an initialize response into the result, checking its shape. */
function interpret(
  transport: Transport,
  message: Record<string, unknown>,
  startedAt: number,
): McpProbeResult {
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  if (error) {
    return {
      ok: false,
      transport,
      code: "rpc_error",
      message: `The server refused initialize: ${String(error.message ?? "no message")} (code ${
        String(error.code ?? "?")
      })`,
    };
  }
  const result = message.result as Record<string, unknown> | undefined;
  const info = result?.serverInfo as Record<string, unknown> | undefined;
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

function parseJson(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
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
  const env = childEnvironment(options.baseEnv, {
    passthrough: options.envPassthrough,
    lookup: options.envLookup,
    extra: target.env,
  });
  let group: ProcessGroup;
  try {
    group = spawnProcessGroup(target.command!, {
      args: [...(target.args ?? [])],
      env,
      clearEnv: true,
      cwd: options.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound
      ? "no such program on PATH"
      : (error as Error).message;
    return {
      ok: false,
      transport: "stdio",
      code: "spawn_failed",
      message: `Cannot start "${target.command}": ${reason}`,
    };
  }

  const { child } = group;
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    }
  })().catch(() => {});
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const send = (line: string) => writer.write(encoder.encode(line + "\n")).catch(() => {});

  const answer = (async (): Promise<Record<string, unknown> | undefined> => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        const message = line === "" ? undefined : parseJson(line);
        if (!message) continue;
        if (message.id === 0 && ("result" in message || "error" in message)) return message;
        if (typeof message.method === "string" && "id" in message) {
          // A request from the server before initialization (ping): answer it.
          const reply = message.method === "ping"
            ? { jsonrpc: "2.0", id: message.id, result: {} }
            : {
              jsonrpc: "2.0",
              id: message.id,
              error: { code: -32601, message: "Method not found" },
            };
          await send(JSON.stringify(reply));
        }
      }
    }
    return undefined;
  })();

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), options.timeoutMs);
  });
  await send(initializeRequest(0));
  let outcome: Record<string, unknown> | undefined | "timeout";
  try {
    outcome = await Promise.race([answer.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
  if (outcome !== "timeout" && outcome !== undefined) await send(INITIALIZED);
  await writer.close().catch(() => {});
  const status = await stop(group);
  await Promise.race([stderrDone, new Promise((resolve) => setTimeout(resolve, 200))]);
  const stderrTail = stderr.trim() === "" ? undefined : stderr.trim();

  if (outcome === "timeout") {
    return {
      ok: false,
      transport: "stdio",
      code: "timeout",
      message: `"${target.command}" did not answer initialize within ${
        options.timeoutMs / 1000
      } s (the MCP test timeout)`,
      ...(stderrTail ? { stderrTail } : {}),
    };
  }
  if (outcome === undefined) {
    return {
      ok: false,
      transport: "stdio",
      code: "exited",
      message: `"${target.command}" closed its output before answering initialize` +
        (status.code !== 0 ? ` (exit code ${status.code})` : ""),
      ...(stderrTail ? { stderrTail } : {}),
    };
  }
  return interpret("stdio", outcome, startedAt);
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

/** Reads a Streamable HTTP answer: one JSON object, or an SSE stream carrying it. */
async function readHttpAnswer(response: Response): Promise<Record<string, unknown> | undefined> {
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/event-stream") && response.body) {
    let buffer = "";
    for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
      buffer += chunk.replace(/\r\n/g, "\n");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split("\n").filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart()).join("\n");
        const message = data === "" ? undefined : parseJson(data);
        if (message && message.id === 0) {
          await response.body.cancel().catch(() => {});
          return message;
        }
      }
    }
    return undefined;
  }
  return parseJson(await response.text());
}

async function probeHttp(
  url: string,
  headers: Readonly<Record<string, string>>,
  options: McpProbeOptions,
): Promise<McpProbeResult> {
  const startedAt = Date.now();
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: initializeRequest(0),
      signal,
    });
  } catch (error) {
    return httpFailure(url, error, options);
  }
  if (!response.ok) {
    await response.body?.cancel();
    return {
      ok: false,
      transport: "http",
      code: "http_error",
      message: `${url} answered initialize with HTTP ${response.status}` +
        (response.status === 401 || response.status === 403
          ? "; check the server's headers (credentials)"
          : ""),
    };
  }
  if ((response.headers.get("content-type") ?? "").includes("text/html")) {
    await response.body?.cancel();
    return {
      ok: false,
      transport: "http",
      code: "protocol_error",
      message: `${url} answered with an HTML page, not an MCP response; check the URL`,
    };
  }
  let message: Record<string, unknown> | undefined;
  try {
    message = await readHttpAnswer(response);
  } catch (error) {
    return httpFailure(url, error, options);
  }
  if (!message) {
    return {
      ok: false,
      transport: "http",
      code: "protocol_error",
      message: `${url} did not answer initialize with a JSON-RPC response`,
    };
  }
  const result = interpret("http", message, startedAt);
  const session = response.headers.get("mcp-session-id");
  if (result.ok) await closeHttpSession(url, headers, session, result.protocolVersion);
  return result;
}

async function closeHttpSession(
  url: string,
  headers: Readonly<Record<string, string>>,
  session: string | null,
  version: string,
): Promise<void> {
  const common: Record<string, string> = {
    ...headers,
    "mcp-protocol-version": version,
    ...(session ? { "mcp-session-id": session } : {}),
  };
  const signal = AbortSignal.timeout(2000);
  try {
    const notified = await fetch(url, {
      method: "POST",
      headers: {
        ...common,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: INITIALIZED,
      signal,
    });
    await notified.body?.cancel();
    if (session) {
      const ended = await fetch(url, { method: "DELETE", headers: common, signal });
      await ended.body?.cancel();
    }
  } catch {
    // Best effort: the check already succeeded.
  }
}

function httpFailure(url: string, error: unknown, options: McpProbeOptions): McpProbeResult {
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
