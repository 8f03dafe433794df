/**
 * Default limits of a JSON-RPC peer, and the budget of calls one connection
 * may have running. A surface may pass other figures; the dashboard's
 * WebSocket gateway uses these (server/ws/limits.ts quotes them).
 *
 * @module
 */

/** Most calls in one JSON-RPC batch. A larger batch gets one -32600 error and none of it runs. */
export const MAX_RPC_BATCH_CALLS = 100;

/** Calls of one batch that run at the same time; the others start as those finish. */
export const MAX_RPC_BATCH_CONCURRENCY = 8;

/**
 * Calls one connection may have running or waiting at once (a batch counts
 * each call). A call past this gets a -32000 error with `data.code`
 * `too_many_calls` and does not run.
 */
export const MAX_RPC_CALLS_IN_FLIGHT = 128;

/**
 * How many calls one connection has running or waiting; a frame's calls
 * are admitted together or refused together.
 *
 * @example
 * ```ts
 * const budget = new CallBudget(2);
 * budget.tryTake(2); // true
 * budget.tryTake(1); // false, until budget.release(1)
 * ```
 */
export class CallBudget {
  #inFlight = 0;

  /** Creates a budget of `limit` calls (default {@link MAX_RPC_CALLS_IN_FLIGHT}). */
  constructor(readonly limit: number = MAX_RPC_CALLS_IN_FLIGHT) {}

  /** Calls admitted and not yet answered. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Admits `count` calls when they all fit; false (and nothing taken) when not. */
  tryTake(count: number): boolean {
    if (this.#inFlight + count > this.limit) return false;
    this.#inFlight += count;
    return true;
  }

  /** Gives back `count` finished calls. */
  release(count = 1): void {
    this.#inFlight = Math.max(0, this.#inFlight - count);
  }
}
