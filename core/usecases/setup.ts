/**
 * Guided setup and the online model check: the providers `herald setup`
 * offers, what is configured now (the defaults of a re-run), listing an
 * endpoint's models before anything is saved, saving the choice (the key to
 * `.env` through the model use case, under the file locks), one test call
 * through the saved config as a session would make it, and `herald
 * doctor`'s check that the endpoint answers and knows the model.
 *
 * The network is reached through the {@link ModelProbe} port
 * (adapters/models/probe.ts).
 *
 * @module
 */

import { closest } from "../_util/suggest.ts";
import { checkProvider, parseConfig, providerProblem, referenceName } from "../config/mod.ts";
import { HeraldError, ModelError } from "../errors.ts";
import { type ModelSettings, resolveModelSettings, usableKey } from "../models/settings.ts";
import {
  isOtherProviderKey,
  type ProviderInfo,
  providerInfo,
  providerKeyVariable,
  PROVIDERS,
  type WireFormat,
} from "../providers.ts";
import { loadExpandedConfig } from "./config.ts";
import { describeModel, type ModelSetResult, setModel } from "./model.ts";
import type { ProfileContext } from "./ports.ts";

/** An endpoint to ask for its models: the provider, its wire format, URL and key. */
export interface ModelEndpoint {
  provider: string;
  wire: WireFormat;
  baseUrl: string;
  /** Sent as the provider expects it; absent for keyless servers. */
  apiKey?: string;
  /** The config section whose `base_url` messages name (`model` unless given). */
  configSection?: string;
}

/** Why listing an endpoint's models did not work. */
export type ModelListFailure =
  /** The endpoint has no model list (404, 405, 501, or an answer without `data`). */
  | "unsupported"
  /** The key was refused (401, 403). */
  | "auth"
  /** No connection, or no answer in time. */
  | "unreachable"
  /** An HTML page or text that is not JSON. */
  | "bad_response"
  /** Any other HTTP error. */
  | "failed";

/** The outcome of `GET <base_url>/models`. */
export type ModelListOutcome =
  | { ok: true; url: string; models: string[] }
  | { ok: false; url: string; code: ModelListFailure; message: string };

/** The outcome of asking an endpoint whether the key is valid (`GET <base_url>/key`). */
export type KeyCheckOutcome =
  | { ok: true; url: string }
  | { ok: false; url: string; code: ModelListFailure; message: string };

/** The outcome of one tiny completion. */
export type TestCallOutcome =
  | { ok: true; text: string; finishReason: string }
  | { ok: false; code: string; message: string };

/** The network side of setup and doctor; adapters/models/probe.ts implements it. */
export interface ModelProbe {
  /** Lists the endpoint's models; never throws for what the endpoint did. */
  listModels(endpoint: ModelEndpoint): Promise<ModelListOutcome>;
  /**
   * Asks `<base_url><path>`, which answers only to a valid key (for a
   * provider whose model list is public); never throws for what the endpoint did.
   */
  checkKey(endpoint: ModelEndpoint, path: string): Promise<KeyCheckOutcome>;
  /** Sends one short message with `settings` (no retries); never throws for what the model did. */
  testCall(settings: ModelSettings): Promise<TestCallOutcome>;
}

/** A provider as `herald setup` offers it. */
export interface SetupProvider {
  id: string;
  label: string;
  /** The `.env` variable its key is stored in. */
  key_env: string;
  /** The endpoint used when none is set, or null (custom servers). */
  default_base_url: string | null;
  /** A local or custom server: the base URL is asked. */
  asks_base_url: boolean;
  /** The key is asked (hidden); `key_optional` when the server may need none. */
  asks_key: boolean;
  key_optional: boolean;
}

const CUSTOM = "custom";

function setupView(provider: ProviderInfo): SetupProvider {
  const custom = provider.id === CUSTOM || !PROVIDERS.includes(provider);
  return {
    id: provider.id,
    label: provider.id === CUSTOM ? "custom (OpenAI-compatible local server)" : provider.label,
    key_env: provider.keyEnv,
    default_base_url: provider.baseUrl ?? null,
    asks_base_url: provider.keyless || provider.baseUrl === undefined,
    asks_key: !provider.keyless || custom,
    key_optional: provider.keyless,
  };
}

/** Every known provider in list order, the custom OpenAI-compatible server last. */
export function setupProviders(): SetupProvider[] {
  return [
    ...PROVIDERS.filter((provider) => provider.id !== CUSTOM),
    ...PROVIDERS.filter((provider) => provider.id === CUSTOM),
  ].map(setupView);
}

/**
 * Provider `id` as setup offers it; a name of one's own for an
 * OpenAI-compatible server is set up like `custom`.
 *
 * @throws UnknownProviderError for a likely typo of a known id.
 */
export function setupProvider(id: string): SetupProvider {
  // A name of one's own passes as long as it has an endpoint, which setup asks for next.
  checkProvider(id, "asked next");
  return setupView(providerInfo(id.trim()));
}

/** What is configured now: the defaults a re-run of setup offers. Never a key. */
export interface SetupState {
  profile: string;
  file: string;
  provider: string | null;
  /** The endpoint in use (set, or the provider's default). */
  base_url: string | null;
  base_url_source: "config" | "provider_default" | null;
  model: string | null;
  /** Where the key is read from, and whether one is there. */
  key_env: string | null;
  key_present: boolean;
  /**
   * True when that key is another provider's variable (`OPENAI_API_KEY` for
   * `custom`, read as a fallback because older setups stored it there).
   */
  key_other_provider: boolean;
}

/** The profile's model settings as setup shows them. */
export async function readSetupState(profile: ProfileContext): Promise<SetupState> {
  const info = await describeModel(profile);
  return {
    profile: profile.name,
    file: profile.files.configPath,
    provider: info.provider,
    base_url: info.base_url,
    base_url_source: info.base_url_source,
    model: info.model,
    key_env: info.credential.env,
    key_present: info.credential.present,
    key_other_provider: info.credential.present && info.credential.env !== null &&
      info.provider !== null && isOtherProviderKey(info.credential.env, info.provider),
  };
}

/** An endpoint that cannot be asked: no base URL for a provider that has no default. */
export class EndpointMissingError extends HeraldError {
  /** Creates the error for `provider`. */
  constructor(readonly provider: string) {
    super(
      "base_url_missing",
      "usage",
      `${provider} needs a base URL (for example http://127.0.0.1:8080/v1)`,
      { details: { provider } },
    );
  }
}

/** What {@link listEndpointModels} asks: the endpoint being set up. */
export interface EndpointChoice {
  provider: string;
  /** The endpoint; the provider's default when absent. */
  base_url?: string;
  /**
   * A key just typed; when absent, the provider's own stored key is sent
   * (never another provider's, see {@link providerKeyPresent}).
   */
  api_key?: string;
}

/** A key and the variable it is read from (none for a key written in config.yaml itself). */
interface FoundKey {
  key: string | undefined;
  variable: string | undefined;
}

/** The key a session of this profile would send to `provider` (none when keyless and unset). */
async function sessionKey(profile: ProfileContext, provider: string): Promise<FoundKey> {
  const loaded = await loadExpandedConfig(profile);
  if (loaded.config.model.provider === provider) {
    const configured = usableKey(loaded.config.model.api_key);
    if (configured !== undefined) {
      const written = parseConfig(loaded.text, profile.files.configPath).config.model.api_key;
      return { key: configured, variable: referenceName(written?.trim()) };
    }
  }
  const variable = providerKeyVariable(providerInfo(provider), loaded.credentials.lookup);
  return { key: usableKey(loaded.credentials.lookup(variable)), variable };
}

/**
 * The key stored for `provider` itself: what a session would send, unless
 * it comes from another provider's variable (`OPENAI_API_KEY` for
 * `custom`), which setup never offers to keep nor sends to a new endpoint.
 */
async function ownKey(profile: ProfileContext, provider: string): Promise<string | undefined> {
  const found = await sessionKey(profile, provider);
  if (found.variable !== undefined && isOtherProviderKey(found.variable, provider)) {
    return undefined;
  }
  return found.key;
}

/**
 * True when a key of `provider`'s own is stored (see {@link ownKey}): what
 * setup offers to keep.
 */
export async function providerKeyPresent(
  profile: ProfileContext,
  provider: string,
): Promise<boolean> {
  return (await ownKey(profile, provider)) !== undefined;
}

/**
 * Lists the models of the endpoint being set up, before anything is saved,
 * with the key just typed or, without one, the provider's own stored key.
 *
 * @throws EndpointMissingError when there is no base URL to ask.
 * @throws UnknownProviderError for a provider that is not one.
 */
export async function listEndpointModels(
  profile: ProfileContext,
  probe: ModelProbe,
  choice: EndpointChoice,
): Promise<ModelListOutcome> {
  checkProvider(choice.provider, choice.base_url);
  const info = providerInfo(choice.provider);
  const baseUrl = choice.base_url?.trim() || info.baseUrl;
  if (!baseUrl) throw new EndpointMissingError(choice.provider);
  const apiKey = usableKey(choice.api_key) ?? await ownKey(profile, choice.provider);
  return probe.listModels({
    provider: choice.provider,
    wire: info.wire,
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
  });
}

/** A setup choice to save. */
export interface SetupChoice {
  provider: string;
  model: string;
  /** The endpoint; the provider's default is not written (the key is removed instead). */
  base_url?: string;
  /** A key just typed, stored in `.env` under the provider's variable; absent keeps the stored one. */
  api_key?: string;
}

/**
 * Saves a setup choice through {@link setModel} (one locked write: the key
 * to `.env` first, config.yaml with a `${NAME}` reference to it).
 *
 * @throws UnknownProviderError, ModelChoiceError, ConfigValueError: nothing is written.
 */
export function saveSetup(profile: ProfileContext, choice: SetupChoice): Promise<ModelSetResult> {
  checkProvider(choice.provider, choice.base_url);
  const info = providerInfo(choice.provider);
  const baseUrl = choice.base_url?.trim();
  const apiKey = usableKey(choice.api_key);
  return setModel(profile, {
    provider: choice.provider,
    model: choice.model,
    ...(baseUrl === undefined ? {} : { base_url: baseUrl === info.baseUrl ? "" : baseUrl }),
    ...(apiKey ? { api_key: apiKey } : {}),
  });
}

/** The outcome of {@link testModel}, with the endpoint it called. */
export type ModelTestView = TestCallOutcome & {
  provider: string | null;
  model: string | null;
  base_url: string | null;
};

/** Seconds the setup test call may take when `model.timeout` does not say. */
const TEST_CALL_TIMEOUT_SECONDS = 60;

/**
 * Settings for one tiny test call (setup's and doctor's): no retries, and a
 * timeout even when `model.timeout` sets none.
 */
function testCallSettings(settings: ModelSettings): ModelSettings {
  return {
    ...settings,
    maxRetries: 0,
    timeoutSeconds: settings.timeoutSeconds ?? TEST_CALL_TIMEOUT_SECONDS,
    timeoutSetting: settings.timeoutSetting ?? "model.timeout",
  };
}

/**
 * Sends one short message to the profile's model, resolved from the saved
 * config exactly as a session resolves it, without retries. A model that
 * is not configured is an outcome (`model_not_configured`), not an error.
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function testModel(
  profile: ProfileContext,
  probe: ModelProbe,
): Promise<ModelTestView> {
  const loaded = await loadExpandedConfig(profile);
  let settings: ModelSettings;
  try {
    settings = resolveModelSettings(loaded.config, loaded.credentials.lookup);
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    return {
      ok: false,
      code: error.code,
      message: error.message,
      provider: null,
      model: null,
      base_url: null,
    };
  }
  const outcome = await probe.testCall(testCallSettings(settings));
  return {
    ...outcome,
    provider: settings.provider,
    model: settings.model,
    base_url: settings.baseUrl ?? null,
  };
}

/** One line of `herald doctor`: the model endpoint, reached over the network. */
export interface EndpointCheck {
  name: "endpoint";
  status: "ok" | "warn" | "fail";
  detail: string;
}

/** The models listed that look most like `model`, for a "did you mean" hint. */
function nearestModel(model: string, models: readonly string[]): string | undefined {
  return closest(model, models) ??
    models.find((listed) => listed.toLowerCase().includes(model.toLowerCase()));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The listed id that is `model`, also under the other spellings providers
 * use: `name:latest` for `name` and back (Ollama), and a dated id for an
 * alias (`claude-sonnet-4-5` → `claude-sonnet-4-5-20250929`,
 * `claude-3-5-sonnet-latest` → `claude-3-5-sonnet-20241022`,
 * `gpt-4o` → `gpt-4o-2024-08-06`).
 *
 * @example
 * ```ts
 * listedModel("llama3.2", ["llama3.2:latest"]); // "llama3.2:latest"
 * listedModel("gpt-4", ["gpt-4o"]);             // undefined
 * ```
 */
export function listedModel(model: string, models: readonly string[]): string | undefined {
  if (models.includes(model)) return model;
  const bare = model.replace(/:latest$/, "");
  const tagged = models.find((listed) => listed === bare || listed === `${bare}:latest`);
  if (tagged !== undefined) return tagged;
  const alias = escapeRegExp(model.replace(/-latest$/, ""));
  const dated = new RegExp(`^${alias}-(\\d{8}|\\d{4}-\\d{2}-\\d{2})$`);
  return models.find((listed) => dated.test(listed));
}

/**
 * Contacts the profile's model endpoint: its key works and the configured
 * model is among those `GET /models` lists (under its own name or another
 * spelling, see {@link listedModel}). Where the list does not prove the key
 * (OpenRouter's is public), the provider's key check is asked too. A model
 * that is not listed, an endpoint with no model list, or a key check that
 * is not there gets one tiny completion before the check fails. Null when
 * no model is configured (the offline checks already say so).
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function checkModelEndpoint(
  profile: ProfileContext,
  probe: ModelProbe,
): Promise<EndpointCheck | null> {
  const loaded = await loadExpandedConfig(profile);
  const { provider, base_url: baseUrl } = loaded.config.model;
  // A name that is not a provider is used as an OpenAI-compatible server once it has an endpoint.
  if (provider && providerProblem(provider, baseUrl) && !baseUrl?.trim()) return null;
  let settings: ModelSettings;
  try {
    settings = resolveModelSettings(loaded.config, loaded.credentials.lookup);
  } catch (error) {
    if (error instanceof ModelError) return null;
    throw error;
  }
  const info = providerInfo(settings.provider);
  const endpoint: ModelEndpoint = {
    provider: settings.provider,
    wire: info.wire,
    baseUrl: settings.baseUrl ?? info.baseUrl ?? "",
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  };
  const model = settings.model;
  const ok = (detail: string): EndpointCheck => ({ name: "endpoint", status: "ok", detail });
  const fail = (detail: string): EndpointCheck => ({ name: "endpoint", status: "fail", detail });
  const testCall = () => probe.testCall(testCallSettings(settings));

  const listed = await probe.listModels(endpoint);
  if (!listed.ok) {
    if (listed.code !== "unsupported") return fail(listed.message);
    const test = await testCall();
    return test.ok
      ? ok(`${endpoint.baseUrl} answered a test message from "${model}" (it lists no models)`)
      : fail(test.message);
  }
  let keyProven = info.keyCheckPath === undefined;
  if (info.keyCheckPath !== undefined) {
    const key = await probe.checkKey(endpoint, info.keyCheckPath);
    if (!key.ok && key.code !== "unsupported") return fail(key.message);
    keyProven = key.ok;
  }
  const found = listedModel(model, listed.models);
  if (found !== undefined) {
    const available = `"${model}" is available${found === model ? "" : ` (listed as "${found}")`}`;
    if (keyProven) return ok(`${listed.url} answered; ${available}`);
    const test = await testCall();
    return test.ok
      ? ok(`${listed.url} answered; ${available}, and it answered a test message`)
      : fail(test.message);
  }
  const test = await testCall();
  if (test.ok) {
    return ok(
      `${listed.url} does not list "${model}", but it answered a test message from it`,
    );
  }
  const near = nearestModel(model, listed.models);
  return fail(
    `"${model}" is not among the ${listed.models.length} models ${listed.url} lists` +
      `${near ? ` (did you mean "${near}"?)` : ""}, and a test call failed (${test.message}); ` +
      "choose one with `herald model`",
  );
}

/** The profile's model and the models its endpoint lists (`herald model`). */
export interface ProfileModelsView {
  state: SetupState;
  /** Null when no endpoint is configured to ask. */
  listing: ModelListOutcome | null;
}

/**
 * What `herald model` shows: the configured provider and model, and the
 * models the endpoint lists (with the key a session would use).
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function listProfileModels(
  profile: ProfileContext,
  probe: ModelProbe,
): Promise<ProfileModelsView> {
  const state = await readSetupState(profile);
  if (!state.provider || !state.base_url || providerProblem(state.provider, state.base_url)) {
    return { state, listing: null };
  }
  // The configured endpoint is asked with the key a session sends it.
  const { key } = await sessionKey(profile, state.provider);
  const listing = await listEndpointModels(profile, probe, {
    provider: state.provider,
    base_url: state.base_url,
    ...(key ? { api_key: key } : {}),
  });
  return { state, listing };
}
