/**
 * JSON over HTTP with the checks every provider call needs: a timeout that
 * says which one expired, 429 failing fast, HTML pages where JSON was
 * expected (a base URL pointing at a website), and errors that quote the
 * status and a short excerpt of the body.
 *
 * @module
 */

import { errorText, ModelError, type ModelErrorCode } from "../../core/errors.ts";
import { retryAfterMs } from "../../core/models/failure.ts";

/** Options of {@link fetchJson}: a `RequestInit` plus a timeout and labels for messages. */
export interface FetchJsonInit extends RequestInit {
  /** Milliseconds before the whole request (body included) gives up. */
  timeoutMs?: number;
  /** What the timeout is called in the error, e.g. `auxiliary.vision.timeout`; defaults to `request timeout`. */
  timeoutName?: string;
  /** Provider id recorded on the error. */
  provider?: string;
  /** Fetch implementation; defaults to the global one. */
  fetch?: typeof fetch;
}

/**
 * Fetches `url` and parses its JSON answer.
 *
 * Rejects with {@link ModelError}: `model_rate_limited` on 429 (at once, no
 * retry), `model_auth` on 401/403, `model_unavailable` on 5xx, connection
 * failures and timeouts, `model_bad_request` on other 4xx (each quoting the
 * status and a body excerpt), and `model_bad_response` when the body is HTML
 * or not JSON. A caller's `signal` rejects with the signal's reason.
 *
 * @example
 * ```ts
 * const models = await fetchJson<{ data: { id: string }[] }>("http://127.0.0.1:8080/v1/models", {
 *   timeoutMs: 10_000,
 * });
 * ```
 */
export async function fetchJson<T = unknown>(
  url: string | URL,
  init: FetchJsonInit = {},
): Promise<T> {
  const { timeoutMs, timeoutName, provider, fetch: base = fetch, signal, ...request } = init;
  const target = String(url);
  const timer = new AbortController();
  const timeout = timeoutMs === undefined
    ? undefined
    : setTimeout(() => timer.abort(), Math.max(0, timeoutMs));
  const combined = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
  const headers = new Headers(request.headers);
  if (!headers.has("accept")) headers.set("accept", "application/json");
  try {
    const response = await base(target, { ...request, headers, signal: combined });
    const text = await response.text();
    if (!response.ok) throw statusError(target, response.status, text, response.headers, provider);
    if (isHtml(response.headers.get("content-type"), text)) throw htmlPageError(target, provider);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ModelError(
        "model_bad_response",
        `${target} answered with text that is not JSON: ${excerpt(text)}`,
        provider,
        response.status,
      );
    }
  } catch (error) {
    if (error instanceof ModelError) throw error;
    if (signal?.aborted) throw signal.reason;
    if (timer.signal.aborted) {
      throw new ModelError(
        "model_unavailable",
        `${target} did not answer within the ${seconds(timeoutMs ?? 0)} ${
          timeoutName ?? "request timeout"
        }`,
        provider,
        undefined,
        { cause: error },
      );
    }
    throw new ModelError(
      "model_unavailable",
      `Cannot reach ${target}: ${errorText(error)}`,
      provider,
      undefined,
      { cause: error },
    );
  } finally {
    clearTimeout(timeout);
  }
}

/**
 * Wraps a fetch so that a successful answer which is an HTML page is
 * rejected with {@link htmlPageError} instead of reaching a JSON or SSE
 * parser. Model clients hand this to the provider SDKs.
 */
export function rejectingHtml(base: typeof fetch = fetch, provider?: string): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.ok && isHtml(response.headers.get("content-type"))) {
      await response.body?.cancel().catch(() => {});
      throw htmlPageError(requestUrl(input), provider);
    }
    return response;
  };
}

/** The error for an HTML page where an API answer was expected, naming the URL. */
export function htmlPageError(url: string, provider?: string): ModelError {
  return new ModelError(
    "model_bad_response",
    `${url} answered with an HTML page, not an API response: check that the base URL ` +
      "points at the API (OpenAI-compatible servers usually end in /v1)",
    provider,
    200,
  );
}

/** The error code for an HTTP error status. */
export function statusCode(status: number): ModelErrorCode {
  if (status === 401 || status === 403) return "model_auth";
  if (status === 429) return "model_rate_limited";
  if (status >= 500 || status === 408) return "model_unavailable";
  return "model_bad_request";
}

/** A phrase like ` (retry after 20 s)` for a rate-limit message, or `""`. */
export function retryAfterPhrase(headers: Headers | undefined): string {
  const wait = retryAfterMs(headers);
  return wait === undefined ? "" : ` (retry after ${seconds(wait)})`;
}

/** Whether a content type (or, without one, a body) is an HTML page. */
export function isHtml(contentType: string | null, body?: string): boolean {
  if (contentType && /\b(text\/html|application\/xhtml)/i.test(contentType)) return true;
  if (body === undefined || (contentType && /json/i.test(contentType))) return false;
  return /^\s*<(!doctype|html|head|body)\b/i.test(body);
}

/** One line of at most `max` characters from a body (HTML tags dropped), without a final period. */
export function excerpt(text: string, max = 200): string {
  const plain = /<\/[a-z][a-z0-9]*\s*>|<!doctype/i.test(text)
    ? text.replace(/<[^>]*>/g, " ")
    : text;
  const line = plain.replace(/\s+/g, " ").trim().replace(/\.+$/, "");
  if (line === "") return "(empty body)";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Milliseconds written for people: `500 ms`, `30 s`. */
export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}

// The message of an error, or its text: core's, re-exported for the model adapters.
export { errorText };

function statusError(
  url: string,
  status: number,
  body: string,
  headers: Headers,
  provider?: string,
): ModelError {
  const code = statusCode(status);
  const detail = excerpt(jsonMessage(body) ?? body);
  const message = code === "model_rate_limited"
    ? `${url} is rate limiting requests (HTTP 429)${
      retryAfterPhrase(headers)
    }: ${detail}; wait a moment and try again`
    : code === "model_auth"
    ? `${url} rejected the credentials (HTTP ${status}): ${detail}`
    : `${url} answered HTTP ${status}: ${detail}`;
  return new ModelError(code, message, provider, status);
}

/** The `error.message` (or `message`) of a JSON error body, if it has one. */
export function jsonMessage(body: string): string | undefined {
  try {
    const value = JSON.parse(body) as { error?: unknown; message?: unknown };
    const inner = value?.error as { message?: unknown } | string | undefined;
    if (typeof inner === "string") return inner;
    if (typeof inner?.message === "string") return inner.message;
    if (typeof value?.message === "string") return value.message;
  } catch {
    // Not JSON: the caller quotes the raw text.
  }
  return undefined;
}

function requestUrl(input: RequestInfo | URL): string {
  if (typeof input === "string") return input;
  return input instanceof URL ? input.href : input.url;
}
