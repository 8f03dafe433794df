/**
 * What both model clients share: the retry loop with backoff, the call
 * timeout, abort handling, and turning SDK errors into {@link ModelError}s
 * whose messages say which provider failed and what to run.
 *
 * @module
 */

import { sleep } from "../../core/_util/sleep.ts";
import { secretEnvName } from "../../core/config/secrets.ts";
import { ModelError } from "../../core/errors.ts";
import { providerInfo } from "../../core/providers.ts";
import { retryAfterMs } from "../../core/models/failure.ts";
import type { ModelSettings } from "../../core/models/settings.ts";
import {
  emptyUsage,
  type ModelClient,
  type ModelNotice,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamHandlers,
  type ModelUsage,
} from "../../core/models/types.ts";
import { errorText, excerpt, retryAfterPhrase, seconds, statusCode } from "./http.ts";

/** Options every model client accepts. */
export interface ModelClientOptions {
  /** First retry delay in milliseconds (doubled per retry, with jitter); defaults to 1000. */
  retryBaseMs?: number;
  /** Fetch implementation handed to the SDK; defaults to the global one. */
  fetch?: typeof fetch;
}

/** What one try has produced so far. */
export interface Progress {
  /** Text already handed to `onText`; once non-empty the call is not retried. */
  text: string;
  usage: ModelUsage;
}

/** A failure sorted for the retry loop. */
export interface Classified {
  error: ModelError;
  retryable: boolean;
  /** A wait the provider asked for, in milliseconds. */
  waitMs?: number;
}

/** Placeholder key for SDKs that insist on one; the Authorization header is removed. */
export const NO_KEY = "no-key-required";

const DEFAULT_RETRY_BASE_MS = 1000;
const MAX_RETRY_DELAY_MS = 30_000;
/** The SDKs' own request timeout (10 minutes), kept as a backstop behind ours. */
const SDK_TIMEOUT_MS = 600_000;

/**
 * Settings with the endpoint filled in from the provider table, so an SDK
 * never falls back to its own environment variables for the base URL.
 */
export function withEndpoint(settings: ModelSettings): ModelSettings & { baseUrl: string } {
  const baseUrl = settings.baseUrl ?? providerInfo(settings.provider).baseUrl;
  if (baseUrl === undefined) {
    const section = settings.configSection ?? "model";
    throw new ModelError(
      "model_not_configured",
      `No endpoint for ${settings.provider}: run \`herald config set ${section}.base_url <url>\``,
      settings.provider,
    );
  }
  return { ...settings, baseUrl };
}

/** The SDK request timeout: never shorter than the call timeout, so ours fires first. */
export function sdkTimeoutMs(settings: ModelSettings): number {
  return Math.max(SDK_TIMEOUT_MS, Math.ceil((settings.timeoutSeconds ?? 0) * 1000) + 5000);
}

/**
 * A {@link ModelClient} over an SDK that is loaded on the first call, so
 * processes that never call a model (the dashboard at idle, most CLI
 * commands) do not pay for loading it. Every call goes through
 * {@link runWithRetries}.
 */
export function lazySdkClient<Sdk>(
  settings: ModelSettings,
  options: ModelClientOptions,
  load: () => Promise<Sdk>,
  attempt: (
    sdk: Sdk,
    request: ModelRequest,
    handlers: ModelStreamHandlers,
    signal: AbortSignal,
    progress: Progress,
  ) => Promise<ModelResponse>,
): ModelClient {
  let sdk: Promise<Sdk> | undefined;
  return {
    provider: settings.provider,
    model: settings.model,
    complete: (request, handlers = {}) =>
      runWithRetries(
        settings,
        options,
        request,
        async (signal, progress) =>
          attempt(await (sdk ??= load()), request, handlers, signal, progress),
        handlers.onNotice,
      ),
  };
}

/**
 * Runs `attempt` with the settings' retries, timeout and the request's
 * signal. An attempt streams into `progress` and resolves with the whole
 * answer; when the request's signal fires the call resolves with the text
 * that arrived and `finishReason: "aborted"`. Before each retry `onNotice`
 * hears a `model_retry` notice saying how long the wait is and which
 * attempt comes next.
 */
export async function runWithRetries(
  settings: ModelSettings,
  options: ModelClientOptions,
  request: ModelRequest,
  attempt: (signal: AbortSignal, progress: Progress) => Promise<ModelResponse>,
  onNotice?: ModelStreamHandlers["onNotice"],
): Promise<ModelResponse> {
  const caller = request.signal;
  if (caller?.aborted) return aborted({ text: "", usage: emptyUsage() });
  const deadline = new AbortController();
  const timeoutMs = settings.timeoutSeconds ? settings.timeoutSeconds * 1000 : undefined;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => deadline.abort(), timeoutMs);
  const signal = caller ? AbortSignal.any([caller, deadline.signal]) : deadline.signal;
  const baseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  try {
    for (let tries = 1;; tries++) {
      const progress: Progress = { text: "", usage: emptyUsage() };
      try {
        const response = await attempt(signal, progress);
        if (caller?.aborted) return aborted(progress);
        if (deadline.signal.aborted) throw timeoutError(settings);
        return response;
      } catch (error) {
        if (caller?.aborted) return aborted(progress);
        if (deadline.signal.aborted) throw timeoutError(settings, error);
        if (error instanceof HandlerError) throw error.cause;
        const classified = classifyError(error, settings);
        if (!classified) throw error;
        const { error: failure, retryable } = classified;
        if (!retryable) throw failure;
        if (progress.text !== "") throw notRetried(failure);
        if (tries > settings.maxRetries) throw tries > 1 ? gaveUp(failure, tries) : failure;
        const delayMs = retryDelayMs(tries - 1, baseMs, classified.waitMs);
        onNotice?.(retryNotice(failure, delayMs, tries + 1, settings.maxRetries + 1));
        await sleep(delayMs, signal);
        if (caller?.aborted) return aborted({ text: "", usage: emptyUsage() });
        if (deadline.signal.aborted) throw timeoutError(settings);
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Records a streamed text delta and hands it to the caller's handler; an
 * error the handler throws passes through the retry loop untouched.
 */
export function emitText(
  handler: ((delta: string) => void) | undefined,
  progress: Progress,
  delta: string,
): void {
  if (delta === "") return;
  progress.text += delta;
  try {
    handler?.(delta);
  } catch (error) {
    throw new HandlerError(error);
  }
}

/** Exponential backoff with jitter: `base * 2^retry`, between half and all of it, capped. */
export function retryDelayMs(retry: number, baseMs: number, waitMs?: number): number {
  if (waitMs !== undefined) return Math.min(waitMs, MAX_RETRY_DELAY_MS);
  const full = Math.min(baseMs * 2 ** retry, MAX_RETRY_DELAY_MS);
  return full / 2 + Math.random() * (full / 2);
}

/** The notice shown while a failed call waits for its next attempt. */
export function retryNotice(
  failure: ModelError,
  delayMs: number,
  attempt: number,
  attempts: number,
): ModelNotice {
  const seconds = delayMs < 1000 ? "under a second" : `${Math.round(delayMs / 1000)} s`;
  return {
    code: "model_retry",
    message: `${failure.message}; retrying in ${seconds}, attempt ${attempt} of ${attempts}`,
    retry: { reason: failure.message, delayMs, attempt, attempts },
  };
}

/** Parses stored raw tool arguments; empty text, invalid JSON or a non-object gives `{}`. */
export function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------
// Errors

/** An error thrown by a caller's stream handler, carried through unchanged. */
class HandlerError extends Error {
  constructor(override readonly cause: unknown) {
    super("stream handler failed");
  }
}

function aborted(progress: Progress): ModelResponse {
  return { text: progress.text, toolCalls: [], finishReason: "aborted", usage: progress.usage };
}

function timeoutError(settings: ModelSettings, cause?: unknown): ModelError {
  const limit = seconds((settings.timeoutSeconds ?? 0) * 1000);
  const setting = settings.timeoutSetting;
  return new ModelError(
    "model_unavailable",
    `${settings.provider} did not finish answering within the ${limit} ` +
      (setting
        ? `timeout set by ${setting}; raise it with \`herald config set ${setting} <seconds>\``
        : "call timeout"),
    settings.provider,
    undefined,
    { cause },
  );
}

function notRetried(failure: ModelError): ModelError {
  return new ModelError(
    "model_unavailable",
    `${failure.message} (part of the answer had arrived, so it was not retried)`,
    failure.provider,
    failure.status,
    { cause: failure },
  );
}

function gaveUp(failure: ModelError, tries: number): ModelError {
  return new ModelError(
    "model_unavailable",
    `${failure.message} (gave up after ${tries} attempts)`,
    failure.provider,
    failure.status,
    { cause: failure },
  );
}

/** A ModelError anywhere in the cause chain (the HTML check runs inside the SDK's fetch). */
function ownError(error: unknown): ModelError | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof ModelError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The provider's own message for an SDK status error. */
function providerMessage(error: Error): string {
  const body = (error as { error?: unknown }).error as
    | { message?: unknown; error?: { message?: unknown } }
    | undefined;
  const message = body?.message ?? body?.error?.message;
  if (typeof message === "string" && message !== "") return excerpt(message);
  return excerpt(error.message.replace(/^\d{3}\s+/, ""));
}

/** A connection to the endpoint that could not be opened: retryable, naming the URL. */
function unreachable(settings: ModelSettings, error: Error): Classified {
  const { provider } = settings;
  return {
    error: new ModelError(
      "model_unavailable",
      unreachableMessage(`${provider} at ${settings.baseUrl}`, error, settings.configSection),
      provider,
      undefined,
      { cause: error },
    ),
    retryable: true,
  };
}

/**
 * Sorts an error from either SDK (both share the same error shapes). Returns
 * undefined for errors that did not come from the call.
 */
export function classifyError(error: unknown, settings: ModelSettings): Classified | undefined {
  const own = ownError(error);
  if (own) return { error: own, retryable: false };
  if (!(error instanceof Error)) return undefined;
  const { provider } = settings;
  const status = (error as { status?: unknown }).status;
  const rawHeaders = (error as { headers?: unknown }).headers;
  const headers = rawHeaders instanceof Headers ? rawHeaders : undefined;
  if (typeof status === "number") {
    const failure = statusError(settings, status, providerMessage(error), headers, error);
    return {
      error: failure,
      retryable: failure.code === "model_unavailable" &&
        headers?.get("x-should-retry") !== "false",
      waitMs: retryAfterMs(headers),
    };
  }
  const name = error.constructor.name;
  if (name === "APIConnectionTimeoutError") {
    return {
      error: new ModelError(
        "model_unavailable",
        `${provider} did not answer at ${settings.baseUrl} before the SDK's request timeout`,
        provider,
        undefined,
        { cause: error },
      ),
      retryable: true,
    };
  }
  if (name === "APIConnectionError") return unreachable(settings, error);
  if (name === "APIError") {
    // An error event inside a stream (e.g. Anthropic's overloaded_error): no HTTP status.
    return {
      error: new ModelError(
        "model_unavailable",
        `${provider} failed while answering: ${providerMessage(error)}`,
        provider,
        undefined,
        { cause: error },
      ),
      retryable: true,
    };
  }
  if (error instanceof SyntaxError) {
    return {
      error: new ModelError(
        "model_bad_response",
        `${provider} sent a stream event that is not JSON (${excerpt(error.message)}); ` +
          `check that ${settings.baseUrl} is the provider's API`,
        provider,
        undefined,
        { cause: error },
      ),
      retryable: false,
    };
  }
  if (error instanceof TypeError) {
    // A connection that could not be opened, reported by fetch without the SDK's wrapper.
    if (connectionReason(error) !== undefined) return unreachable(settings, error);
    // Deno reports a connection that drops mid-body as a TypeError.
    return {
      error: new ModelError(
        "model_unavailable",
        `The connection to ${provider} at ${settings.baseUrl} failed: ${errorText(error)}`,
        provider,
        undefined,
        { cause: error },
      ),
      retryable: true,
    };
  }
  return undefined;
}

/** What resolvers say when a host name does not resolve. */
const HOST_NOT_FOUND =
  /dns error|failed to lookup|name or service not known|ENOTFOUND|nodename nor servname/i;

/** Deno's words for an error while a connection is being opened. */
const CONNECTING = /client error \(Connect\)/i;
/** Words of a TLS failure. */
const TLS_WORDS = /certificate|tls|ssl|handshake|corrupt message/i;
/** A TLS failure whatever the phase says. */
const TLS_HANDSHAKE = /invalid peer certificate|handshake failure/i;

/** The messages of an error and of its causes, outermost first. */
function causeTexts(error: unknown): string[] {
  const texts: string[] = [];
  for (let e = error, depth = 0; e && depth < 6; depth++) {
    texts.push(errorText(e));
    e = (e as { cause?: unknown }).cause;
  }
  return texts;
}

/**
 * Why a connection could not be opened, in a few words (`connection
 * refused`, `the host name was not found`, `the TLS handshake failed: …`),
 * read from the error and its causes; undefined when the error is not about
 * opening a connection.
 */
export function connectionReason(error: unknown): string | undefined {
  const texts = causeTexts(error);
  const all = texts.join(" | ");
  if (/connection refused|ECONNREFUSED/i.test(all)) return "connection refused";
  if (HOST_NOT_FOUND.test(all)) return "the host name was not found";
  // Only while connecting: a TLS stream that drops mid-answer is not a failed handshake.
  const tls = texts.find((text) => CONNECTING.test(text) && TLS_WORDS.test(text)) ??
    texts.find((text) => TLS_HANDSHAKE.test(text));
  if (tls) return `the TLS handshake failed: ${excerpt(withoutRequestPrefix(tls), 160)}`;
  if (/tcp connect error|client error \(Connect\)|requests to port \d+ are blocked/i.test(all)) {
    return excerpt(withoutRequestPrefix(texts.at(-1) ?? all), 160);
  }
  return undefined;
}

/** Deno's `error sending request for url (...): client error (Connect): ` prefix dropped. */
function withoutRequestPrefix(text: string): string {
  return text.replace(/^.*client error \(Connect\):\s*/i, "");
}

/**
 * The message for an endpoint that cannot be reached: `target` (the provider
 * and URL, or the URL), why, and what to check, naming the config section's
 * `base_url` (`model` unless given).
 *
 * @example
 * ```ts
 * unreachableMessage("custom at http://127.0.0.1:8080/v1", error);
 * // "Cannot reach custom at http://127.0.0.1:8080/v1: connection refused; is the server
 * //  running? check model.base_url (herald config get model.base_url)"
 * ```
 */
export function unreachableMessage(target: string, error: unknown, section = "model"): string {
  const reason = connectionReason(error) ?? excerpt(causeTexts(error).at(-1) ?? "", 160);
  const setting = `${section}.base_url`;
  return `Cannot reach ${target}: ${reason}; is the server running? check ${setting} ` +
    `(herald config get ${setting})`;
}

function statusError(
  settings: ModelSettings,
  status: number,
  detail: string,
  headers: Headers | undefined,
  cause: unknown,
): ModelError {
  const { provider } = settings;
  const code = statusCode(status);
  const section = settings.configSection ?? "model";
  let message: string;
  if (code === "model_auth") {
    const setting = `${section}.api_key`;
    const fix = `run \`herald config set ${setting} <key>\` (stored in .env as ${
      secretEnvName(setting, provider)
    })`;
    message = status === 401
      ? `${provider} rejected the API key (HTTP 401): ${fix}; the provider said: ${detail}`
      : `${provider} refused the request (HTTP 403): check the key's permissions or ${fix}; ` +
        `the provider said: ${detail}`;
  } else if (code === "model_rate_limited") {
    message = `${provider} is rate limiting requests (HTTP 429)${retryAfterPhrase(headers)}: ` +
      `${detail}; wait a minute and try again, or check the plan and credits of the account`;
  } else if (code === "model_unavailable") {
    message = `${provider} is unavailable (HTTP ${status}): ${detail}`;
  } else {
    message = `${provider} rejected the request (HTTP ${status}): ${detail}`;
    if (status === 404) {
      message += `; check the model name "${settings.model}" and the endpoint ${settings.baseUrl}`;
    }
  }
  return new ModelError(code, message, provider, status, { cause });
}
