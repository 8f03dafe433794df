/**
 * The MCP SDK's client transport for a stdio server, over Herald's own
 * process handling: the server is spawned as adapters/process/stdio_server.ts does (its own
 * process group, the child allowlist). Messages are newline-delimited JSON
 * (adapters/rpc/ndjson.ts, lines capped); lines that are not JSON-RPC are
 * reported through `onerror` and skipped; what the server writes on
 * standard error is kept (the end of it) to explain a failure.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ProcessGroup } from "../process/mod.ts";
import { StderrTail } from "../process/stderr_tail.ts";
import { encodeNdjson, NdjsonDecoder } from "../rpc/mod.ts";
import { spawnStdioServer, type StdioServerSpec } from "../process/stdio_server.ts";

export type { StdioServerSpec } from "../process/stdio_server.ts";

/** How long a closing server gets between SIGTERM and SIGKILL (ms). */
const CLOSE_GRACE_MS = 1000;

/** An SDK {@link Transport} to a spawned stdio server. */
export class ProcessStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #spec: StdioServerSpec;
  #group: ProcessGroup | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  readonly #stderr = new StderrTail();
  #closed = false;

  /** A transport that starts `spec` when the client connects. */
  constructor(spec: StdioServerSpec) {
    this.#spec = spec;
  }

  /** The process id of the running server (its group's), if started. */
  get pid(): number | undefined {
    return this.#group?.pid;
  }

  /** The end of what the server wrote on standard error, trimmed. */
  get stderrTail(): string {
    return this.#stderr.text;
  }

  /**
   * Spawns the server.
   *
   * @throws Error naming the command when it cannot start (not on PATH, not executable).
   */
  start(): Promise<void> {
    let group: ProcessGroup;
    try {
      group = spawnStdioServer(this.#spec);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#group = group;
    this.#writer = group.child.stdin.getWriter();
    void this.#stderr.read(group.child.stderr);
    void this.#readStdout(group.child.stdout);
    return Promise.resolve();
  }

  async #readStdout(stdout: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new NdjsonDecoder();
    try {
      for await (const chunk of stdout) {
        for (const line of decoder.push(chunk)) this.#receive(line);
      }
      for (const line of decoder.end()) this.#receive(line);
    } catch (error) {
      if (!this.#closed) this.onerror?.(error as Error);
    } finally {
      void this.close();
    }
  }

  #receive(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.onerror?.(
        new Error(`The server wrote a line that is not JSON-RPC: ${line.slice(0, 200)}`),
      );
      return;
    }
    this.onmessage?.(message);
  }

  /** Writes one message as a line. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer || this.#closed) throw new Error("The MCP server is not running");
    await this.#writer.write(encodeNdjson(JSON.stringify(message)));
  }

  /** Closes the server's input, then stops its whole process group. Closing twice is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer?.close().catch(() => {});
    await this.#group?.terminate({ graceMs: CLOSE_GRACE_MS }).catch(() => {});
    this.onclose?.();
  }
}
