/**
 * The {@link ModelProbe} port: asking an endpoint for its models
 * (`GET <base_url>/models`, or `/v1/models` for Anthropic), asking whether
 * a key is valid where the model list is public (OpenRouter's `GET
 * /api/v1/key`), and sending one tiny completion through the real model
 * client. Redirects are not followed, so a key goes only to the URL set. Every outcome is a value
 * whose message names the URL and says what to do; nothing here throws for
 * what the endpoint did.
 *
 * @module
 */

import { ModelError } from "../../core/errors.ts";
import type { ModelSettings } from "../../core/models/settings.ts";
import type {
  KeyCheckOutcome,
  ModelEndpoint,
  ModelListFailure,
  ModelListOutcome,
  ModelProbe,
  TestCallOutcome,
} from "../../core/usecases/setup.ts";
import { unreachableMessage } from "./_call.ts";
import { createModelClient } from "./client.ts";
import { excerpt, isHtml, jsonMessage, seconds } from "./http.ts";

/** Options of {@link createModelProbe}. */
export interface ModelProbeOptions {
  /** Milliseconds `GET /models` (or the key check) may take; defaults to 10 s. */
  listTimeoutMs?: number;
  /** Fetch implementation; defaults to the global one. */
  fetch?: typeof fetch;
}

const DEFAULT_LIST_TIMEOUT_MS = 10_000;
/** The Messages API version header Anthropic requires. */
const ANTHROPIC_VERSION = "2023-06-01";
/** The message of the test call, and the most tokens its answer may take. */
const TEST_MESSAGE = "Reply with the single word OK.";
const TEST_MAX_TOKENS = 32;

/** Where an endpoint lists its models. */
export function modelsUrl(endpoint: Pick<ModelEndpoint, "wire" | "baseUrl">): string {
  const base = endpoint.baseUrl.replace(/\/+$/, "");
  return endpoint.wire === "anthropic" && !/\/v1$/.test(base)
    ? `${base}/v1/models`
    : `${base}/models`;
}

function headersFor(endpoint: ModelEndpoint): Headers {
  const headers = new Headers({ accept: "application/json" });
  if (endpoint.wire === "anthropic") {
    headers.set("anthropic-version", ANTHROPIC_VERSION);
    if (endpoint.apiKey) headers.set("x-api-key", endpoint.apiKey);
  } else if (endpoint.apiKey) {
    headers.set("authorization", `Bearer ${endpoint.apiKey}`);
  }
  return headers;
}

function modelIds(body: unknown): string[] | undefined {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  return data
    .map((entry) => (entry as { id?: unknown } | null)?.id)
    .filter((id): id is string => typeof id === "string" && id !== "");
}

function keyHint(endpoint: ModelEndpoint): string {
  return endpoint.apiKey
    ? `store the right key with \`herald login ${endpoint.provider}\``
    : `this server needs a key: store it with \`herald login ${endpoint.provider}\``;
}

/** A failed GET: why, and the message naming the URL. */
type GetFailure = Exclude<ModelListOutcome, { ok: true }>;

/**
 * GETs `url` with the endpoint's key and parses the JSON answer; every
 * failure is an outcome naming the URL (`absent` says what a 404 means).
 * A redirect is not followed: the key would go wherever it points.
 */
async function getJson(
  url: string,
  endpoint: ModelEndpoint,
  options: ModelProbeOptions,
  absent: string,
): Promise<{ ok: true; body: unknown } | GetFailure> {
  const timeoutMs = options.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
  const section = endpoint.configSection ?? "model";
  const fail = (code: ModelListFailure, message: string): GetFailure => ({
    ok: false,
    url,
    code,
    message,
  });
  let response: Response;
  let text: string;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    response = await (options.fetch ?? fetch)(url, {
      headers: headersFor(endpoint),
      redirect: "manual",
      signal: deadline.signal,
    });
    text = await response.text();
  } catch (error) {
    if (deadline.signal.aborted) {
      return fail(
        "unreachable",
        `${url} did not answer within ${seconds(timeoutMs)}; is the server running? ` +
          `check ${section}.base_url (herald config get ${section}.base_url)`,
      );
    }
    return fail("unreachable", unreachableMessage(url, error, section));
  } finally {
    clearTimeout(timer);
  }
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get("location");
    return fail(
      "failed",
      `${url} redirected (HTTP ${response.status})${location ? ` to ${location}` : ""}; ` +
        "Herald does not follow redirects with your key: set " +
        `${section}.base_url to the address the server really answers at ` +
        `(herald config set ${section}.base_url <url>)`,
    );
  }
  const detail = excerpt(jsonMessage(text) ?? text);
  if (response.status === 401 || response.status === 403) {
    return fail(
      "auth",
      `${url} rejected the key (HTTP ${response.status}): ${detail}; ${keyHint(endpoint)}`,
    );
  }
  if ([404, 405, 501].includes(response.status)) {
    return fail("unsupported", `${url} ${absent} (HTTP ${response.status})`);
  }
  if (!response.ok) return fail("failed", `${url} answered HTTP ${response.status}: ${detail}`);
  if (isHtml(response.headers.get("content-type"), text)) {
    return fail(
      "bad_response",
      `${url} answered with an HTML page, not an API response: check that ${section}.base_url ` +
        "points at the API (OpenAI-compatible servers usually end in /v1)",
    );
  }
  try {
    return { ok: true, body: JSON.parse(text) };
  } catch {
    return fail("bad_response", `${url} answered with text that is not JSON: ${detail}`);
  }
}

/** Lists the models of `endpoint`; every failure is an outcome naming the URL. */
async function listModels(
  endpoint: ModelEndpoint,
  options: ModelProbeOptions,
): Promise<ModelListOutcome> {
  const url = modelsUrl(endpoint);
  const got = await getJson(url, endpoint, options, "has no model list");
  if (!got.ok) return got;
  const models = modelIds(got.body);
  if (!models) {
    return {
      ok: false,
      url,
      code: "unsupported",
      message: `${url} answered without a list of models`,
    };
  }
  return { ok: true, url, models };
}

/** Asks `<base_url><path>`, which answers only to a valid key; every failure is an outcome. */
async function checkKey(
  endpoint: ModelEndpoint,
  path: string,
  options: ModelProbeOptions,
): Promise<KeyCheckOutcome> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  const got = await getJson(url, endpoint, options, "has no key check");
  return got.ok ? { ok: true, url } : got;
}

/** Sends one short message with `settings`; a model error is an outcome. */
async function testCall(settings: ModelSettings, fetcher?: typeof fetch): Promise<TestCallOutcome> {
  try {
    const client = createModelClient(settings, fetcher ? { fetch: fetcher } : {});
    const answer = await client.complete({
      system: "",
      messages: [{ role: "user", content: TEST_MESSAGE }],
      tools: [],
      maxTokens: TEST_MAX_TOKENS,
    });
    return { ok: true, text: answer.text.trim(), finishReason: answer.finishReason };
  } catch (error) {
    if (error instanceof ModelError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}

/**
 * The probe over HTTP.
 *
 * @example
 * ```ts
 * const probe = createModelProbe();
 * const listed = await probe.listModels({ provider: "ollama", wire: "openai",
 *   baseUrl: "http://127.0.0.1:11434/v1" });
 * if (listed.ok) console.log(listed.models);
 * ```
 */
export function createModelProbe(options: ModelProbeOptions = {}): ModelProbe {
  return {
    listModels: (endpoint) => listModels(endpoint, options),
    checkKey: (endpoint, path) => checkKey(endpoint, path, options),
    testCall: (settings) => testCall(settings, options.fetch),
  };
}
