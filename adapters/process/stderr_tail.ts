/**
 * The end of what a child process writes to stderr, kept for the message
 * that says why it stopped (an MCP server, the Codex app-server).
 *
 * @module
 */

/** How much of the end of the stream is kept, in characters. */
export const STDERR_TAIL_CHARS = 4000;

/** Keeps the last {@link STDERR_TAIL_CHARS} characters a stream carries. */
export class StderrTail {
  #text = "";

  /** Reads `stream` to its end (or until it breaks), keeping its tail; never rejects. */
  async read(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const text of stream.pipeThrough(new TextDecoderStream())) {
        this.#text = (this.#text + text).slice(-STDERR_TAIL_CHARS);
      }
    } catch {
      // The process is gone: what was kept stays.
    }
  }

  /** The kept text, trimmed ("" when nothing was written). */
  get text(): string {
    return this.#text.trim();
  }

  /** The last `count` lines that are not blank, joined by ` | ` for a one-line message. */
  lastLines(count = 3): string {
    return tailLines(this.text, count);
  }
}

/** The last `count` non-blank lines of `text`, joined by ` | `. */
export function tailLines(text: string, count = 3): string {
  return text.split("\n").filter((line) => line.trim() !== "").slice(-count).join(" | ");
}
