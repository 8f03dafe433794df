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
import { checkProvider, providerProblem } from "../config/mod.ts";
import { HeraldError, ModelError } from "../errors.ts";
import { type ModelSettings, resolveModelSettings, usableKey } from "../models/settings.ts";
import { type ProviderInfo, providerInfo, PROVIDERS, type WireFormat } from "../providers.ts";
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

/** The outcome of one tiny completion. */
export type TestCallOutcome =
  | { ok: true; text: string; finishReason: string }
  | { ok: false; code: string; message: string };

/** The network side of setup and doctor; adapters/models/probe.ts implements it. */
export interface ModelProbe {
  /** Lists the endpoint's models; never throws for what the endpoint did. */
  listModels(endpoint: ModelEndpoint): Promise<ModelListOutcome>;
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
  /** A key just typed; when absent, the key a session would use is sent. */
  api_key?: string;
}

/** The key a session of this profile would send to `provider` (none when keyless and unset). */
async function sessionKey(profile: ProfileContext, provider: string): Promise<string | undefined> {
  const loaded = await loadExpandedConfig(profile);
  const configured = loaded.config.model.provider === provider
    ? usableKey(loaded.config.model.api_key)
    : undefined;
  return configured ?? usableKey(loaded.credentials.lookup(providerInfo(provider).keyEnv));
}

/** True when a session of this profile would have a key to send to `provider`. */
export async function providerKeyPresent(
  profile: ProfileContext,
  provider: string,
): Promise<boolean> {
  return (await sessionKey(profile, provider)) !== undefined;
}

/**
 * Lists the models of the endpoint being set up, before anything is saved,
 * with the key just typed or, without one, the key already stored.
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
  const apiKey = usableKey(choice.api_key) ?? await sessionKey(profile, choice.provider);
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
  const outcome = await probe.testCall({
    ...settings,
    maxRetries: 0,
    timeoutSeconds: settings.timeoutSeconds ?? TEST_CALL_TIMEOUT_SECONDS,
    timeoutSetting: settings.timeoutSetting ?? "model.timeout",
  });
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

/**
 * Contacts the profile's model endpoint: its key works and the configured
 * model is among those `GET /models` lists; when the endpoint has no model
 * list, one tiny completion instead. Null when no model is configured (the
 * offline checks already say so) or the provider is unknown.
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function checkModelEndpoint(
  profile: ProfileContext,
  probe: ModelProbe,
): Promise<EndpointCheck | null> {
  const loaded = await loadExpandedConfig(profile);
  const { provider, base_url: baseUrl } = loaded.config.model;
  if (provider && providerProblem(provider, baseUrl)) return null;
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
  const listed = await probe.listModels(endpoint);
  if (listed.ok) {
    if (listed.models.includes(settings.model)) {
      return {
        name: "endpoint",
        status: "ok",
        detail: `${listed.url} answered; "${settings.model}" is available`,
      };
    }
    const near = nearestModel(settings.model, listed.models);
    return {
      name: "endpoint",
      status: "fail",
      detail: `"${settings.model}" is not among the ${listed.models.length} models ${listed.url} ` +
        `lists${near ? ` (did you mean "${near}"?)` : ""}; choose one with \`herald model\``,
    };
  }
  if (listed.code !== "unsupported") {
    return { name: "endpoint", status: "fail", detail: listed.message };
  }
  const test = await probe.testCall({ ...settings, maxRetries: 0 });
  return test.ok
    ? {
      name: "endpoint",
      status: "ok",
      detail: `${endpoint.baseUrl} answered a test message from "${settings.model}" ` +
        "(it lists no models)",
    }
    : { name: "endpoint", status: "fail", detail: test.message };
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
  const listing = await listEndpointModels(profile, probe, {
    provider: state.provider,
    base_url: state.base_url,
  });
  return { state, listing };
}
