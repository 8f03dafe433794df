/**
 * Starting `codex app-server` and speaking to it: the process runs at the
 * head of its own process group (stopping it stops what it started), its
 * stdio carries newline-delimited JSON-RPC through the project's peer
 * (without the `"jsonrpc"` member Codex leaves out), and its stderr is kept
 * to the last lines for the message when it dies. The four server requests
 * Herald answers go to the session's handler; any other method is answered
 * -32601 by the peer.
 *
 * @module
 */

import {
  type AppServerConnection,
  type AppServerLauncher,
  CODEX_SERVER_REQUESTS,
  type CodexNotification,
  type CodexRequestHandler,
  type CodexServerRequest,
} from "../../core/codex/app_server.ts";
import type { RpcMethods } from "../../core/rpc/protocol.ts";
import { spawnStdioServer, StderrTail, type StdioServerSpec } from "../process/mod.ts";
import { connectNdjson } from "../rpc/mod.ts";

/**
 * How to start the app-server: `command` is the codex program, `args`
 * come after `app-server` (`--enable`, `-c key=value`), and the
 * environment is built from `baseEnv`'s allowlist, the passthrough names
 * and `env` (CODEX_HOME).
 */
export interface AppServerSpec extends StdioServerSpec {
  /**
   * Receives every chunk of the protocol as text, each way (`in`: from
   * Codex), for a protocol log; absent: nothing is copied.
   */
  trace?: (direction: "in" | "out", text: string) => void;
}

/** A stream that passes its chunks on and copies them, decoded, to `trace`. */
function traced(
  direction: "in" | "out",
  trace: (direction: "in" | "out", text: string) => void,
): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  return new TransformStream({
    transform(chunk, controller) {
      trace(direction, decoder.decode(chunk, { stream: true }));
      controller.enqueue(chunk);
    },
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/**
 * A launcher of `spec`'s app-server for Codex sessions.
 *
 * @example
 * ```ts
 * const launch = appServerLauncher({ command: "codex", baseEnv: Deno.env.toObject(), cwd });
 * const connection = await launch(async (method, params) => ({ decision: "decline" }));
 * await connection.request("initialize", { clientInfo: { name: "herald", version: "1" } });
 * ```
 */
export function appServerLauncher(spec: AppServerSpec): AppServerLauncher {
  return (handler) => Promise.resolve(startAppServer(spec, handler));
}

/**
 * Starts the app-server of `spec`, its server requests answered by
 * `handler`.
 *
 * @throws Error naming the program when it cannot start (not on PATH), with the install hint.
 */
export function startAppServer(
  spec: AppServerSpec,
  handler: CodexRequestHandler,
): AppServerConnection {
  let group;
  try {
    group = spawnStdioServer({ ...spec, args: ["app-server", ...(spec.args ?? [])] });
  } catch (error) {
    throw new Error(
      `${(error as Error).message}; install Codex with \`npm install -g @openai/codex\``,
    );
  }
  const stderr = new StderrTail();
  const drained = stderr.read(group.child.stderr);
  const methods: RpcMethods = Object.fromEntries(
    CODEX_SERVER_REQUESTS.map((name) => [name, {
      call: (params: unknown) =>
        handler(name as CodexServerRequest, isObject(params) ? params : {}),
    }]),
  );
  let readable: ReadableStream<Uint8Array> = group.child.stdout;
  let writable: WritableStream<Uint8Array> = group.child.stdin;
  if (spec.trace) {
    readable = readable.pipeThrough(traced("in", spec.trace));
    const out = traced("out", spec.trace);
    out.readable.pipeTo(group.child.stdin).catch(() => {});
    writable = out.writable;
  }
  const connection = connectNdjson({ readable, writable }, { methods, requireVersion: false });
  const exited = group.status.then(async (status) => {
    await drained;
    const how = status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
    const last = stderr.lastLines();
    return `codex app-server ended with ${how}${last ? `: ${last}` : ""}`;
  });
  let closing: Promise<void> | undefined;
  return {
    request: (method, params, options = {}) => connection.peer.request(method, params, options),
    notify: (method, params) => connection.peer.notify(method, params),
    onNotification(listener: (notification: CodexNotification) => void) {
      return connection.peer.onNotification(({ method, params }) =>
        listener({ method, params: isObject(params) ? params : {} })
      );
    },
    exited,
    close() {
      closing ??= (async () => {
        await connection.close();
        await group.terminate({ graceMs: 2_000 });
        await group.status;
        await drained;
      })();
      return closing;
    },
  };
}
