/**
 * A bounded least-recently-used set of ids, for dropping webhook events
 * LINE delivers more than once (each event carries a unique
 * `webhookEventId`; a redelivery repeats it). At most `capacity` ids are
 * kept; past it the one seen longest ago is forgotten, so memory stays
 * bounded however long the gateway runs.
 *
 * @example
 * ```ts
 * const seen = new RecentIds(10_000);
 * seen.check("01H810YECXQQZ37VAXPF6H9E6T"); // false: first time, now remembered
 * seen.check("01H810YECXQQZ37VAXPF6H9E6T"); // true: a redelivery
 * ```
 *
 * @module
 */

/** How many webhook event ids the LINE channel remembers. */
export const DEFAULT_RECENT_IDS = 10_000;

/** A bounded LRU set of ids. */
export class RecentIds {
  readonly capacity: number;
  /** Insertion order is recency order: the first key is the least recently seen. */
  readonly #ids = new Map<string, true>();

  /**
   * Creates an empty set holding at most `capacity` ids.
   *
   * @throws RangeError when `capacity` is not a positive whole number.
   */
  constructor(capacity: number = DEFAULT_RECENT_IDS) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive whole number, got ${capacity}`);
    }
    this.capacity = capacity;
  }

  /** How many ids are remembered. */
  get size(): number {
    return this.#ids.size;
  }

  /** Whether `id` is remembered (without making it recent). */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /**
   * True when `id` was seen before (it becomes the most recent again);
   * false the first time, when it is remembered, forgetting the least
   * recently seen id if the set is full.
   */
  check(id: string): boolean {
    if (this.#ids.has(id)) {
      this.#ids.delete(id);
      this.#ids.set(id, true);
      return true;
    }
    this.#ids.set(id, true);
    if (this.#ids.size > this.capacity) {
      const oldest = this.#ids.keys().next().value;
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
    return false;
  }
}
