/**
 * Waiting that an abort cuts short.
 *
 * @module
 */

/**
 * Resolves after `ms`, or as soon as `signal` aborts (at once when it
 * already has); never rejects.
 *
 * @example
 * ```ts
 * await sleep(1000, request.signal);
 * if (request.signal?.aborted) return;
 * ```
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
