/**
 * Bytes received and not yet framed, kept as the chunks they came in so a
 * large message is copied once, when it is complete.
 *
 * @module
 */

/** A queue of bytes read from the front. */
export class ByteQueue {
  #chunks: Uint8Array[] = [];
  #size = 0;

  /** Bytes in the queue. */
  get size(): number {
    return this.#size;
  }

  /** Appends `chunk` (copied: a stream may reuse its buffers). */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk.slice());
    this.#size += chunk.length;
  }

  /** A copy of the first `count` bytes (fewer when the queue is shorter), left in the queue. */
  peek(count: number): Uint8Array {
    const out = new Uint8Array(Math.min(count, this.#size));
    let offset = 0;
    for (const chunk of this.#chunks) {
      if (offset === out.length) break;
      const part = chunk.subarray(0, out.length - offset);
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }

  /** Removes and returns the first `count` bytes (fewer when the queue is shorter). */
  take(count: number): Uint8Array {
    const out = this.peek(count);
    this.drop(out.length);
    return out;
  }

  /** Removes the first `count` bytes. */
  drop(count: number): void {
    let left = Math.min(count, this.#size);
    this.#size -= left;
    while (left > 0) {
      const first = this.#chunks[0];
      if (first.length <= left) {
        this.#chunks.shift();
        left -= first.length;
      } else {
        this.#chunks[0] = first.subarray(left);
        left = 0;
      }
    }
  }
}
