/**
 * Waiting in the fake servers: a pause that ends early (without an error)
 * when the server stops or the client goes away.
 *
 * @module
 */

/** Resolves after `ms` (forever when `Infinity`) or as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (Number.isFinite(ms)) {
      timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
    }
  });
}
