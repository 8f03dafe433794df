/**
 * Server-Sent Events responses: a body that a handler writes events into
 * while the turn runs. Chat Completions sends `data:` lines only; the
 * Responses API names each event with an `event:` line equal to its type.
 * A comment line keeps the connection alive while a long tool runs.
 *
 * @module
 */

import type { ChannelClock } from "../../../core/channels/contract.ts";

/** How often a quiet stream sends a keep-alive comment, in milliseconds. */
export const SSE_KEEP_ALIVE_MS = 15_000;

/** Writes into an event stream; writes after the client left are dropped. */
export interface SseWriter {
  /** Sends `data: <json>`, under `event: <name>` when named. */
  send(data: unknown, name?: string): void;
  /** Sends `data: <text>` as it is (`[DONE]`). */
  sendRaw(text: string): void;
}

const encoder = new TextEncoder();

/**
 * A `text/event-stream` response whose events `write` produces. `signal`
 * given to `write` aborts when the client disconnects or `stop` aborts;
 * the stream ends when `write` settles. A handler turns its own failures
 * into events; a rejection that escapes it goes to `onError` and ends the stream.
 */
export function sseResponse(
  write: (writer: SseWriter, signal: AbortSignal) => Promise<void>,
  options: { stop: AbortSignal; clock: ChannelClock; onError(error: unknown): void },
): Response {
  const cancelled = new AbortController();
  const signal = AbortSignal.any([options.stop, cancelled.signal]);
  const { clock } = options;
  let timer: unknown;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const enqueue = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
        }
        rearm();
      };
      const rearm = () => {
        clock.clearTimeout(timer);
        if (open) timer = clock.setTimeout(() => enqueue(": keep-alive\n\n"), SSE_KEEP_ALIVE_MS);
      };
      const writer: SseWriter = {
        send(data, name) {
          enqueue(`${name ? `event: ${name}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
        },
        sendRaw(text) {
          enqueue(`data: ${text}\n\n`);
        },
      };
      rearm();
      write(writer, signal).catch(options.onError).finally(() => {
        clock.clearTimeout(timer);
        if (!open) return;
        open = false;
        try {
          controller.close();
        } catch {
          // The client already cancelled the stream.
        }
      });
    },
    cancel() {
      open = false;
      clock.clearTimeout(timer);
      cancelled.abort(new Error("The client closed the stream"));
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    },
  });
}
