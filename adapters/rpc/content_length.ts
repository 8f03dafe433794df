/**
 * The Language Server Protocol's base framing: a header section of ASCII
 * lines, each ending in `\r\n`, closed by an empty line, then a body of
 * exactly `Content-Length` bytes of UTF-8 JSON:
 *
 * ```
 * Content-Length: 90\r\n
 * Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n   (optional)
 * \r\n
 * {"jsonrpc":"2.0",...}
 * ```
 *
 * The header section may take at most {@link MAX_HEADER_BYTES} (8 KiB,
 * the empty line included) and a body at most {@link MAX_BODY_BYTES} (or
 * the figure given). A header section past its cap, a line that is not
 * `Name: value`, a missing or malformed `Content-Length`, a charset other
 * than UTF-8 or a stream cut off mid-message ends the connection with an
 * RpcFramingError naming the problem, as soon as the bytes show it (a
 * stray log line on stdout fails at its newline, not after 8 KiB).
 *
 * @module
 */

import { RpcFramingError, type RpcPeerOptions } from "../../core/rpc/mod.ts";
import { ByteQueue } from "./_byte_queue.ts";
import {
  connectStreams,
  type FrameDecoder,
  type Framing,
  type RpcConnection,
  type RpcStreams,
} from "./connection.ts";

/** Largest header section, in bytes, its closing empty line included (8 KiB). */
export const MAX_HEADER_BYTES = 8 * 1024;

/** Largest body accepted by default, in bytes (16 MiB). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Options of the `Content-Length` framing. */
export interface ContentLengthOptions {
  /** Largest body accepted, in bytes (default {@link MAX_BODY_BYTES}). */
  maxBodyBytes?: number;
}

const CR = 0x0d;
const LF = 0x0a;
const TAB = 0x09;
const HEADER_END = [CR, LF, CR, LF];
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;
const encoder = new TextEncoder();
const ascii = new TextDecoder("latin1");

/** The offending text, shortened to fit in a message. */
function quote(text: string): string {
  const shown = text.length > 60 ? `${text.slice(0, 60)}...` : text;
  return JSON.stringify(shown);
}

/** Index of the `\r\n\r\n` that ends the header section in `head`, or -1. */
function headerEnd(head: Uint8Array): number {
  for (let i = 0; i + HEADER_END.length <= head.length; i++) {
    if (HEADER_END.every((byte, k) => head[i + k] === byte)) return i;
  }
  return -1;
}

/**
 * Checks the complete header lines in `head` (the header section or the
 * part of it received so far) and returns them.
 *
 * @throws RpcFramingError for a byte that is not ASCII, a bare `\n` or `\r`,
 * or a line that is not `Name: value`.
 */
function headerLines(head: Uint8Array, complete: boolean): string[] {
  for (let i = 0; i < head.length; i++) {
    const byte = head[i];
    const bare = (byte === LF && head[i - 1] !== CR) ||
      (byte === CR && i + 1 < head.length && head[i + 1] !== LF);
    const control = byte > 0x7e || (byte < 0x20 && byte !== CR && byte !== LF && byte !== TAB);
    if (control || bare) {
      throw new RpcFramingError(
        "header_malformed",
        `The header section holds a byte that is not allowed there (0x${
          byte.toString(16).padStart(2, "0")
        } at offset ${i}); expected "Content-Length: N" lines ending in CR LF`,
      );
    }
  }
  const lines = ascii.decode(head).split("\r\n");
  if (!complete) lines.pop(); // the line still arriving
  for (const line of lines) {
    if (!HEADER_LINE.test(line)) {
      throw new RpcFramingError(
        "header_malformed",
        `Malformed header line ${
          quote(line)
        }; expected "Name: value" (such as "Content-Length: 42")`,
      );
    }
  }
  return lines;
}

/** The body length a complete header section announces. */
function contentLength(lines: string[], maxBodyBytes: number): number {
  let length: number | undefined;
  for (const line of lines) {
    const [, name, value] = HEADER_LINE.exec(line)!;
    const key = name.toLowerCase();
    if (key === "content-length") {
      if (!/^\d{1,16}$/.test(value)) {
        throw new RpcFramingError(
          "content_length_invalid",
          `Content-Length ${quote(value)} is not a number of bytes`,
        );
      }
      const parsed = Number(value);
      if (length !== undefined && length !== parsed) {
        throw new RpcFramingError(
          "content_length_invalid",
          `Two different Content-Length headers (${length} and ${parsed})`,
        );
      }
      length = parsed;
    } else if (key === "content-type") {
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(value)?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
        throw new RpcFramingError(
          "charset_unsupported",
          `Content-Type ${quote(value)} names a charset other than UTF-8`,
        );
      }
    }
  }
  if (length === undefined) {
    throw new RpcFramingError(
      "content_length_missing",
      `A header section has no Content-Length (headers: ${
        quote(lines.join("; "))
      }); every message needs one`,
    );
  }
  if (length > maxBodyBytes) {
    throw new RpcFramingError(
      "body_too_large",
      `A message announces ${length} bytes, over the ${maxBodyBytes}-byte limit; the connection ends`,
    );
  }
  return length;
}

/**
 * Cuts a byte stream into `Content-Length`-framed messages.
 *
 * @example
 * ```ts
 * const decoder = new ContentLengthDecoder();
 * decoder.push(new TextEncoder().encode('Content-Length: 2\r\n\r\n{}')); // ["{}"]
 * ```
 */
export class ContentLengthDecoder implements FrameDecoder {
  readonly #maxBodyBytes: number;
  readonly #queue = new ByteQueue();
  readonly #decoder = new TextDecoder();
  /** The body length once the current message's header section is read. */
  #length: number | undefined;

  /** Creates a decoder refusing bodies over `maxBodyBytes`. */
  constructor(maxBodyBytes: number = MAX_BODY_BYTES) {
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** Takes the next chunk; returns the message bodies it completed. */
  push(chunk: Uint8Array): string[] {
    this.#queue.push(chunk);
    const bodies: string[] = [];
    for (;;) {
      if (this.#length === undefined && !this.#readHeader()) return bodies;
      const length = this.#length!;
      if (this.#queue.size < length) return bodies;
      bodies.push(this.#decoder.decode(this.#queue.take(length)));
      this.#length = undefined;
    }
  }

  /** The stream ended: anything left is a message cut off. */
  end(): string[] {
    if (this.#queue.size === 0 && this.#length === undefined) return [];
    const missing = this.#length === undefined
      ? "in its header section"
      : `after ${this.#queue.size} of ${this.#length} body bytes`;
    throw new RpcFramingError(
      "truncated",
      `The stream ended in the middle of a message, ${missing}`,
    );
  }

  /** Reads a header section when it is complete; false while it is still arriving. */
  #readHeader(): boolean {
    const head = this.#queue.peek(MAX_HEADER_BYTES);
    const end = headerEnd(head);
    if (end < 0) {
      headerLines(head, false);
      if (head.length >= MAX_HEADER_BYTES) {
        throw new RpcFramingError(
          "header_too_large",
          `A header section is over the ${MAX_HEADER_BYTES}-byte limit without its closing ` +
            "empty line; the connection ends",
        );
      }
      return false;
    }
    const lines = headerLines(head.subarray(0, end), true);
    this.#length = contentLength(lines, this.#maxBodyBytes);
    this.#queue.drop(end + HEADER_END.length);
    return true;
  }
}

/** The bytes of one message: its header section and its UTF-8 body. */
export function encodeContentLength(text: string): Uint8Array {
  const body = encoder.encode(text);
  const header = encoder.encode(`Content-Length: ${body.length}\r\n\r\n`);
  const out = new Uint8Array(header.length + body.length);
  out.set(header);
  out.set(body, header.length);
  return out;
}

/** The `Content-Length` framing. */
export function contentLengthFraming(options: ContentLengthOptions = {}): Framing {
  return {
    decoder: () => new ContentLengthDecoder(options.maxBodyBytes),
    encode: encodeContentLength,
  };
}

/**
 * A peer speaking `Content-Length`-framed JSON-RPC over `streams` (a
 * language server's stdout and stdin).
 *
 * @example
 * ```ts
 * const child = new Deno.Command("pyright-langserver", { args: ["--stdio"], stdin: "piped", stdout: "piped" }).spawn();
 * await using connection = connectContentLength({ readable: child.stdout, writable: child.stdin });
 * const { capabilities } = await connection.peer.request("initialize", params);
 * ```
 */
export function connectContentLength(
  streams: RpcStreams,
  options: RpcPeerOptions & ContentLengthOptions = {},
): RpcConnection {
  return connectStreams(streams, contentLengthFraming(options), options);
}
