/**
 * The port between a Codex session and a running `codex app-server`: a
 * JSON-RPC connection whose server requests the session answers. The
 * adapter (adapters/codex/app_server.ts) starts the process and speaks
 * newline-delimited JSON-RPC through the project's peer; a server request
 * whose method is not one of {@link CODEX_SERVER_REQUESTS} is answered
 * -32601 there, without reaching the session.
 *
 * @module
 */

/** The server requests Herald answers; any other method gets JSON-RPC error -32601. */
export const CODEX_SERVER_REQUESTS = [
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "item/permissions/requestApproval",
  "mcpServer/elicitation/request",
] as const;

/** One of {@link CODEX_SERVER_REQUESTS}. */
export type CodexServerRequest = typeof CODEX_SERVER_REQUESTS[number];

/** Answers a server request; the result is sent back as the response. */
export type CodexRequestHandler = (
  method: CodexServerRequest,
  params: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/** A notification from the app-server. */
export interface CodexNotification {
  method: string;
  params: Record<string, unknown>;
}

/** Options of one request to the app-server. */
export interface CodexRequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A connection to one running app-server. */
export interface AppServerConnection {
  /**
   * Calls `method`; rejects with the app-server's error (an RpcError with
   * its code and message), on timeout, or when the process is gone.
   */
  request<T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown>,
    options?: CodexRequestOptions,
  ): Promise<T>;
  /** Sends a notification (`initialized`). */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Receives every notification, in order; returns the function that stops it. */
  onNotification(handler: (notification: CodexNotification) => void): () => void;
  /**
   * Settles when the process has ended, with why (exit code or signal and
   * the last lines it wrote to stderr).
   */
  readonly exited: Promise<string>;
  /** Stops the process (its whole group) and waits for it; idempotent. */
  close(): Promise<void>;
}

/** Starts an app-server whose server requests go to `handler`. */
export type AppServerLauncher = (handler: CodexRequestHandler) => Promise<AppServerConnection>;
