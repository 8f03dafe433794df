/**
 * A JSON-RPC peer (core/rpc/peer.ts) over a pair of byte streams, such as a
 * child process's stdout and stdin, with a framing that cuts the incoming
 * bytes into message texts and frames the outgoing ones: newline-delimited
 * JSON (adapters/rpc/ndjson.ts) or `Content-Length` headers
 * (adapters/rpc/content_length.ts).
 *
 * Incoming messages are handed to the peer as they are cut, without waiting
 * for the calls they start, so a slow handler never holds up the answers to
 * this side's own requests. When the incoming stream ends, breaks the
 * framing or the connection is closed, the peer closes (pending requests
 * reject) and the outgoing stream is closed.
 *
 * @module
 */

import { RpcPeer, type RpcPeerOptions } from "../../core/rpc/mod.ts";

/** Cuts the bytes of a stream into message texts, whatever the chunking. */
export interface FrameDecoder {
  /**
   * Takes the next chunk; returns the messages it completed, in order.
   *
   * @throws RpcFramingError when the bytes break the framing.
   */
  push(chunk: Uint8Array): string[];
  /**
   * The stream ended; returns a last message, if one is complete.
   *
   * @throws RpcFramingError when a message was cut off.
   */
  end(): string[];
}

/** How messages are delimited on a byte stream. */
export interface Framing {
  /** A decoder for one incoming stream. */
  decoder(): FrameDecoder;
  /** The bytes of one outgoing message. */
  encode(text: string): Uint8Array;
}

/** The two streams of a connection, as a child process has them. */
export interface RpcStreams {
  /** Where the other side's messages come from (a child's stdout). */
  readable: ReadableStream<Uint8Array>;
  /** Where this side's messages go (a child's stdin). */
  writable: WritableStream<Uint8Array>;
}

/** Why a connection stopped receiving. */
export type RpcConnectionEnd =
  | { reason: "eof" }
  | { reason: "closed" }
  | { reason: "error"; error: unknown };

/** A peer connected over two byte streams. */
export interface RpcConnection extends AsyncDisposable {
  /** Serves this side's methods and calls the other side. */
  readonly peer: RpcPeer;
  /**
   * Resolves (never rejects) once no more messages come in: the other side
   * ended its output (`eof`), the bytes broke the framing (`error`, an
   * RpcFramingError) or {@link close} was called (`closed`).
   */
  readonly ended: Promise<RpcConnectionEnd>;
  /**
   * Closes the peer (pending requests reject), stops reading and closes the
   * outgoing stream (a child sees the end of its stdin). Resolves once
   * reading stopped; the other process is its owner's to stop.
   */
  close(): Promise<void>;
}

/** Reason the peer closes with when the other side ends its output. */
const EOF_REASON = "the other side ended its output";

/**
 * Connects a peer to `streams` with `framing`.
 *
 * @example
 * ```ts
 * const connection = connectStreams(
 *   { readable: child.stdout, writable: child.stdin },
 *   ndjsonFraming(),
 *   { methods },
 * );
 * const result = await connection.peer.request("initialize", params, { timeoutMs: 10_000 });
 * await connection.close();
 * ```
 */
export function connectStreams(
  streams: RpcStreams,
  framing: Framing,
  options: RpcPeerOptions = {},
): RpcConnection {
  const writer = streams.writable.getWriter();
  const reader = streams.readable.getReader();
  const peer = new RpcPeer({ send: (text) => writer.write(framing.encode(text)) }, options);
  let closing = false;

  const read = async (): Promise<RpcConnectionEnd> => {
    const decoder = framing.decoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const text of decoder.push(value)) void peer.receive(text);
      }
      if (closing) return { reason: "closed" };
      for (const text of decoder.end()) void peer.receive(text);
      return { reason: "eof" };
    } catch (error) {
      return closing ? { reason: "closed" } : { reason: "error", error };
    }
  };

  const ended = read().then((end) => {
    peer.close(end.reason === "error" ? end.error : new Error(EOF_REASON));
    writer.close().catch(() => {});
    reader.cancel().catch(() => {});
    return end;
  });

  const close = async () => {
    if (!closing) {
      closing = true;
      peer.close();
      await reader.cancel().catch(() => {});
    }
    await ended;
  };
  return { peer, ended, close, [Symbol.asyncDispose]: close };
}
