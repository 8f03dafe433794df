/**
 * Sorting a failed model call into what the key pool and the fallback chain
 * do about it: a rejected key, a payment problem, a rate limit, an
 * unavailable provider (5xx after retries, a timeout, a lost connection), or
 * anything else, which no other key or provider would fix.
 *
 * @module
 */

import { ModelError } from "../errors.ts";

/** Every {@link ModelFailure}, for schemas that store one. */
export const MODEL_FAILURES = ["auth", "payment", "rate_limit", "unavailable", "fatal"] as const;

/**
 * What kind of failure a model call ended with:
 *
 * - `auth`: the key was rejected (HTTP 401/403);
 * - `payment`: the account cannot pay (HTTP 402, or a 429 whose code says the quota is spent);
 * - `rate_limit`: HTTP 429;
 * - `unavailable`: 5xx after the retries, a timeout, a connection that failed;
 * - `fatal`: anything else (a bad request, an unknown model, an answer that is
 *   not the API's); trying elsewhere would not help, so it is reported as is.
 */
export type ModelFailure = typeof MODEL_FAILURES[number];

/** Provider error codes of a 429 that mean the account's quota is spent, not a burst limit. */
const QUOTA_CODES = new Set(["insufficient_quota", "billing_hard_limit_reached"]);

/**
 * Sorts a failure of `ModelClient.complete`.
 *
 * @example
 * ```ts
 * classifyModelFailure(new ModelError("model_auth", "rejected", "openai", 401)); // "auth"
 * ```
 */
export function classifyModelFailure(error: unknown): ModelFailure {
  if (!(error instanceof ModelError)) return "fatal";
  if (error.status === 402) return "payment";
  switch (error.code) {
    case "model_auth":
      return "auth";
    case "model_rate_limited":
      return QUOTA_CODES.has(providerCode(error) ?? "") ? "payment" : "rate_limit";
    case "model_unavailable":
      return "unavailable";
    default:
      return "fatal";
  }
}

/** The provider's own error code (`insufficient_quota`, ...) carried by the SDK error, if any. */
function providerCode(error: ModelError): string | undefined {
  const cause = error.cause as { code?: unknown; error?: { code?: unknown } } | undefined;
  const code = cause?.code ?? cause?.error?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * How long a `retry-after-ms` or `retry-after` header asks to wait, in
 * milliseconds (a number of seconds or an HTTP date, measured from `now`).
 *
 * @example
 * ```ts
 * retryAfterMs(new Headers({ "retry-after": "20" })); // 20000
 * ```
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait a failed call's provider asked for (its `retry-after` headers), if it said. */
export function retryAfterOf(error: unknown, now = Date.now()): number | undefined {
  const headers = ((error as { cause?: { headers?: unknown } } | undefined)?.cause)?.headers;
  return headers instanceof Headers ? retryAfterMs(headers, now) : undefined;
}

/** A few words for a notice: why a call failed, never the provider's whole message. */
export function failureReason(error: unknown): string {
  const status = error instanceof ModelError ? error.status : undefined;
  const http = status === undefined ? "" : ` (HTTP ${status})`;
  switch (classifyModelFailure(error)) {
    case "auth":
      return `rejected the key${http}`;
    case "payment":
      return `refused payment${http}`;
    case "rate_limit":
      return `is rate limiting${http}`;
    case "unavailable":
      return status === undefined ? "did not answer" : `is unavailable${http}`;
    case "fatal":
      return `failed${http}`;
  }
}
