/**
 * Taking turns per key: two requests continuing the same session (the same
 * named conversation, or the same previous response) run one after the
 * other instead of racing on it.
 *
 * @module
 */

/** A lock per key; holders of different keys run at once. */
export class KeyedSerial {
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Waits until every earlier holder of `key` has released it, and returns
   * the release (call it once; later calls do nothing). Without a key it
   * returns at once.
   *
   * @example
   * ```ts
   * const release = await serial.acquire("conversation:support");
   * try { await work(); } finally { release(); }
   * ```
   */
  async acquire(key: string | undefined): Promise<() => void> {
    if (key === undefined) return () => {};
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    const tail = previous.then(() => held);
    this.#tails.set(key, tail);
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
  }
}
