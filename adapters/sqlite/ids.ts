/**
 * Session ids: `ses_` followed by 12 hex digits of the creation time in
 * epoch milliseconds and 8 random hex digits, so ids sort by creation time
 * and two ids made in the same millisecond still differ.
 *
 * @module
 */

/**
 * Makes a new, time-sortable session id.
 *
 * @example
 * ```ts
 * newSessionId(Date.UTC(2026, 0, 1)); // "ses_019b76daa800" followed by 8 random hex digits
 * ```
 */
export function newSessionId(now: number = Date.now()): string {
  if (!Number.isSafeInteger(now) || now < 0) {
    throw new RangeError(`Session id time must be epoch milliseconds, got ${now}`);
  }
  const random = crypto.getRandomValues(new Uint8Array(4));
  const suffix = Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `ses_${now.toString(16).padStart(12, "0")}${suffix}`;
}
