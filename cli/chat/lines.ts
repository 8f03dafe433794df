/**
 * Reading standard input one line at a time, shared by the chat loop and
 * approval prompts (which read the answer from the same stream).
 *
 * @module
 */

/** Reads lines from a byte stream. */
export class LineReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  #done = false;

  /** Wraps `stream`; bytes are decoded as UTF-8. */
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next line without its line ending, or null at the end of input. */
  async next(): Promise<string | null> {
    while (true) {
      const newline = this.#buffer.indexOf("\n");
      if (newline !== -1) {
        const line = this.#buffer.slice(0, newline).replace(/\r$/, "");
        this.#buffer = this.#buffer.slice(newline + 1);
        return line;
      }
      if (this.#done) {
        if (this.#buffer === "") return null;
        const rest = this.#buffer;
        this.#buffer = "";
        return rest;
      }
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#buffer += value;
    }
  }

  /** Stops reading and releases the stream. */
  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}
