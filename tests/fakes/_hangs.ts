/**
 * The "hang" failure of the fake platforms (tests/fakes/line_api.ts,
 * tests/fakes/telegram_api.ts): a request held open without an answer until
 * the client gives up (aborts) or the fake closes.
 *
 * @module
 */

/** The requests a fake platform is holding open. */
export class HeldRequests {
  readonly #releases = new Set<() => void>();

  /** Resolves once the client aborts the request (`signal`) or {@link releaseAll} runs. */
  hold(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.#releases.delete(done);
        resolve();
      };
      this.#releases.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Lets every held request go, as the fake closes. */
  releaseAll(): void {
    for (const release of [...this.#releases]) release();
  }
}
