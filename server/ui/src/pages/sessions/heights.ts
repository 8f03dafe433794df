/**
 * The geometry of a long list whose items have different heights, most of
 * them never rendered: measured heights where known, the average of those
 * elsewhere, and the offsets they add up to. The message list of a session
 * uses it to render only the messages near the viewport while the scroll
 * bar spans the whole session.
 */

/** Heights and offsets of `count` items. */
export class Heights {
  #sizes: Float64Array;
  #known: Uint8Array;
  #measuredSum = 0;
  #measuredCount = 0;
  #offsets: Float64Array;
  #dirty = true;

  /** A list of `count` items, each `guess` px tall until measured. */
  constructor(readonly count: number, private guess: number) {
    this.#sizes = new Float64Array(count);
    this.#known = new Uint8Array(count);
    this.#offsets = new Float64Array(count + 1);
  }

  /** The height assumed for an item not measured yet: the average of those that were. */
  get estimate(): number {
    return this.#measuredCount > 0 ? this.#measuredSum / this.#measuredCount : this.guess;
  }

  /** Records item `index`'s height; true when it changed what the list adds up to. */
  set(index: number, height: number): boolean {
    if (index < 0 || index >= this.count) return false;
    if (this.#known[index]) {
      if (Math.abs(this.#sizes[index] - height) < 0.5) return false;
      this.#measuredSum += height - this.#sizes[index];
    } else {
      this.#known[index] = 1;
      this.#measuredSum += height;
      this.#measuredCount++;
    }
    this.#sizes[index] = height;
    this.#dirty = true;
    return true;
  }

  /** Item `index`'s height, measured or estimated. */
  size(index: number): number {
    return this.#known[index] ? this.#sizes[index] : this.estimate;
  }

  #rebuild(): void {
    if (!this.#dirty) return;
    const estimate = this.estimate;
    let sum = 0;
    for (let i = 0; i < this.count; i++) {
      this.#offsets[i] = sum;
      sum += this.#known[i] ? this.#sizes[i] : estimate;
    }
    this.#offsets[this.count] = sum;
    this.#dirty = false;
  }

  /** Where item `index` starts (`count` gives the whole height). */
  offset(index: number): number {
    this.#rebuild();
    return this.#offsets[Math.max(0, Math.min(index, this.count))];
  }

  /** The whole height. */
  get total(): number {
    return this.offset(this.count);
  }

  /** The item at `y` px from the top (clamped to the list). */
  indexAt(y: number): number {
    this.#rebuild();
    if (this.count === 0) return 0;
    let low = 0;
    let high = this.count - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.#offsets[middle] <= y) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
