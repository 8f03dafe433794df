/**
 * Newline-delimited JSON: one JSON-RPC message per line, UTF-8, `\n`
 * terminated (a `\r` before it is dropped, blank lines are skipped). The
 * framing of the Codex app-server and of MCP's stdio transport.
 *
 * A line may hold at most {@link MAX_NDJSON_LINE_BYTES} bytes (or the
 * figure given): past it the connection ends with an RpcFramingError
 * (`line_too_long`) instead of buffering without bound.
 *
 * @module
 */

import { RpcFramingError, type RpcPeerOptions } from "../../core/rpc/mod.ts";
import {
  connectStreams,
  type FrameDecoder,
  type Framing,
  type RpcConnection,
  type RpcStreams,
} from "./connection.ts";
import { ByteQueue } from "./_byte_queue.ts";

/** Longest line accepted by default, in bytes without the newline (16 MiB). */
export const MAX_NDJSON_LINE_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const encoder = new TextEncoder();

/** Options of the newline-delimited framing. */
export interface NdjsonOptions {
  /** Longest line accepted, in bytes (default {@link MAX_NDJSON_LINE_BYTES}). */
  maxLineBytes?: number;
}

/**
 * Cuts a byte stream into lines.
 *
 * @example
 * ```ts
 * const decoder = new NdjsonDecoder();
 * decoder.push(new TextEncoder().encode('{"a":1}\n{"b"')); // ['{"a":1}']
 * decoder.push(new TextEncoder().encode(':2}\n')); // ['{"b":2}']
 * ```
 */
export class NdjsonDecoder implements FrameDecoder {
  readonly #maxLineBytes: number;
  readonly #decoder = new TextDecoder();
  /** The start of a line whose newline has not come yet. */
  readonly #pending = new ByteQueue();

  /** Creates a decoder refusing lines over `maxLineBytes`. */
  constructor(maxLineBytes: number = MAX_NDJSON_LINE_BYTES) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Takes the next chunk; returns the lines it completed (without their newline). */
  push(chunk: Uint8Array): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline < 0 ? chunk.length : newline;
      this.#checkLength(this.#pending.size + end - start);
      if (newline < 0) {
        this.#pending.push(chunk.subarray(start));
        return lines;
      }
      this.#keep(lines, this.#line(chunk.subarray(start, newline)));
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): string[] {
    const lines: string[] = [];
    if (this.#pending.size > 0) this.#keep(lines, this.#line(new Uint8Array()));
    return lines;
  }

  #checkLength(bytes: number): void {
    if (bytes <= this.#maxLineBytes) return;
    throw new RpcFramingError(
      "line_too_long",
      `A line from the other side is over the ${this.#maxLineBytes}-byte limit ` +
        `(${bytes} bytes and no newline yet); the connection ends`,
    );
  }

  /** The line made of the pending bytes and `last`, decoded; the queue is emptied. */
  #line(last: Uint8Array): string {
    if (this.#pending.size === 0) return this.#decoder.decode(last);
    this.#pending.push(last);
    return this.#decoder.decode(this.#pending.take(this.#pending.size));
  }

  #keep(lines: string[], line: string): void {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim() !== "") lines.push(text);
  }
}

/** The bytes of one message: its JSON text and a newline. */
export function encodeNdjson(text: string): Uint8Array {
  if (text.includes("\n")) {
    throw new RangeError("A newline-delimited message cannot contain a newline");
  }
  return encoder.encode(text + "\n");
}

/** The newline-delimited framing. */
export function ndjsonFraming(options: NdjsonOptions = {}): Framing {
  return {
    decoder: () => new NdjsonDecoder(options.maxLineBytes),
    encode: encodeNdjson,
  };
}

/**
 * A peer speaking newline-delimited JSON-RPC over `streams` (a child's
 * stdout and stdin).
 *
 * @example
 * ```ts
 * const child = new Deno.Command("codex", { args: ["app-server"], stdin: "piped", stdout: "piped" }).spawn();
 * await using connection = connectNdjson(
 *   { readable: child.stdout, writable: child.stdin },
 *   { requireVersion: false },
 * );
 * await connection.peer.request("initialize", { clientInfo: { name: "herald", version: "1" } });
 * ```
 */
export function connectNdjson(
  streams: RpcStreams,
  options: RpcPeerOptions & NdjsonOptions = {},
): RpcConnection {
  return connectStreams(streams, ndjsonFraming(options), options);
}
