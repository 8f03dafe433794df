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
  /** The read in flight; kept when a caller stops waiting, so no input is lost. */
  #reading: Promise<void> | undefined;

  /** Wraps `stream`; bytes are decoded as UTF-8. */
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  }

  /**
   * The next line without its line ending, or null at the end of input.
   * With `signal`, stops waiting when it is aborted (rejecting with its
   * reason); a line that arrives later is kept for the next call.
   */
  async next(signal?: AbortSignal): Promise<string | null> {
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
      signal?.throwIfAborted();
      await (signal ? untilAborted(this.#fill(), signal) : this.#fill());
    }
  }

  #fill(): Promise<void> {
    this.#reading ??= this.#reader.read().then(({ value, done }) => {
      if (done) this.#done = true;
      else this.#buffer += value;
    }).finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  /** Stops reading and releases the stream. */
  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** `work`, or a rejection with the signal's reason once `signal` is aborted. */
function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
