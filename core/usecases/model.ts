/**
 * The model use cases: the main model and the auxiliary slots as a session
 * would resolve them (whether a key is present, never the key), the
 * provider table, the providers with OAuth sign-in, and choosing the model.
 * Choosing the subscription provider also routes the managed tools through
 * its gateway, except tools the user runs with a key of their own.
 *
 * @module
 */

import type { ConfigEdit, LoadedConfig } from "../config/mod.ts";
import { parseConfig, planConfigEdits, referenceName } from "../config/mod.ts";
import { HeraldError, ModelError } from "../errors.ts";
import { resolveAuxiliarySettings } from "../models/auxiliary.ts";
import { OAUTH_PROVIDERS, type OAuthFlow, oauthProvider } from "../models/oauth.ts";
import { mainProvider, type ModelSettings, resolveModelSettings } from "../models/settings.ts";
import {
  gatewayConfigKey,
  type GatewayDefaults,
  subscriptionGatewayDefaults,
} from "../models/tool_gateway.ts";
import { PROFILE_DESCRIBER_TASK } from "../profiles/mod.ts";
import {
  providerInfo,
  providerKeyVariable,
  PROVIDERS,
  SUBSCRIPTION_PROVIDER,
  type WireFormat,
} from "../providers.ts";
import { loadExpandedConfig } from "./config.ts";
import type { Credentials, CredentialSource, ProfileContext } from "./ports.ts";
import { isHttpUrl } from "../_util/url.ts";

/** Auxiliary tasks listed even when config.yaml has no slot for them. */
export const KNOWN_AUXILIARY_TASKS: readonly string[] = [
  "kanban_decomposer",
  PROFILE_DESCRIBER_TASK,
];

const PROVIDER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** A model choice that cannot be applied (a `usage` error: HTTP 400, exit 2). */
export class ModelChoiceError extends HeraldError {
  /** Creates the error with its `code` (`provider_unknown`, `base_url_invalid`, ...). */
  constructor(code: string, message: string, details?: Record<string, string>) {
    super(code, "usage", message, { details });
  }
}

/** The config as written (`${NAME}` kept) and as a session sees it (expanded). */
interface ModelState {
  credentials: Credentials;
  written: LoadedConfig;
  expanded: LoadedConfig;
}

/**
 * Reads config.yaml once. The written view is what every view shows, so a
 * value that came from `.env` through a `${NAME}` reference is never shown.
 */
async function modelState(profile: ProfileContext): Promise<ModelState> {
  const expanded = await loadExpandedConfig(profile);
  return {
    credentials: expanded.credentials,
    written: parseConfig(expanded.text, profile.files.configPath),
    expanded,
  };
}

function filled(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function problemOf(error: unknown): string {
  if (error instanceof ModelError) return error.message;
  throw error;
}

/** The main model's settings as a session would resolve them, or what is missing. */
function resolveMain(
  state: ModelState,
): { settings: ModelSettings; problem: null } | { settings: undefined; problem: string } {
  try {
    return {
      settings: resolveModelSettings(state.expanded.config, state.credentials.lookup),
      problem: null,
    };
  } catch (error) {
    return { settings: undefined, problem: problemOf(error) };
  }
}

/** Where the key for an endpoint comes from; never the key itself. */
export interface CredentialView {
  /** The variable the key is read from, when there is one. */
  env: string | null;
  present: boolean;
  source: "config" | CredentialSource | null;
  required: boolean;
}

function credentialOf(
  credentials: Credentials,
  provider: string | undefined,
  writtenKey: string | undefined,
): CredentialView {
  const info = provider ? providerInfo(provider) : undefined;
  const configured = filled(writtenKey);
  const reference = referenceName(configured);
  let env = info ? providerKeyVariable(info, credentials.lookup) : null;
  let source: CredentialView["source"];
  if (configured && !reference) {
    source = "config";
  } else {
    if (reference) env = reference;
    source = env ? credentials.source(env) : null;
  }
  return { env, present: source !== null, source, required: info ? !info.keyless : true };
}

/** The main model as a session would resolve it (`GET /api/model/info`). */
export interface ModelInfoView {
  profile: string;
  provider: string | null;
  provider_label: string | null;
  provider_source: "config" | "detected" | null;
  wire: WireFormat | null;
  model: string | null;
  base_url: string | null;
  base_url_source: "config" | "provider_default" | null;
  context_length: number | null;
  max_tokens: number | null;
  credential: CredentialView;
  /** True when a session could start with these settings. */
  ready: boolean;
  /** What is missing when not ready. */
  problem: string | null;
}

/** The main model: provider, endpoint, limits and whether its key is present. */
export async function describeModel(profile: ProfileContext): Promise<ModelInfoView> {
  const state = await modelState(profile);
  const config = state.written.config;
  const provider = mainProvider(state.expanded.config, state.credentials.lookup);
  const info = provider ? providerInfo(provider) : undefined;
  const { problem } = resolveMain(state);
  return {
    profile: profile.name,
    provider: provider ?? null,
    provider_label: info?.label ?? null,
    provider_source: filled(config.model.provider) && config.model.provider !== "auto"
      ? "config"
      : provider
      ? "detected"
      : null,
    wire: info?.wire ?? null,
    model: config.model.default ?? null,
    base_url: filled(config.model.base_url) ?? info?.baseUrl ?? null,
    base_url_source: filled(config.model.base_url)
      ? "config"
      : info?.baseUrl
      ? "provider_default"
      : null,
    context_length: config.model.context_length ?? null,
    max_tokens: config.model.max_tokens ?? null,
    credential: credentialOf(state.credentials, provider, config.model.api_key),
    ready: problem === null,
    problem,
  };
}

/** Whether a profile's model is ready (`setup.runtime_check`). */
export type ModelRuntimeCheck =
  | { ready: true; provider: string; model: string }
  | { ready: false; provider: string | null; model: string | null; reason: string };

/**
 * Ready only when the profile's model resolves with a usable credential,
 * through the same code as a session and as {@link describeModel} (keyless
 * local providers need a set or known endpoint). Nothing is sent to the
 * provider; a config.yaml or `.env` that cannot be read is a reason, not an error.
 */
export async function checkModelRuntime(profile: ProfileContext): Promise<ModelRuntimeCheck> {
  let state: ModelState;
  try {
    state = await modelState(profile);
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    return { ready: false, provider: null, model: null, reason: error.message };
  }
  const main = resolveMain(state);
  if (main.settings) {
    return { ready: true, provider: main.settings.provider, model: main.settings.model };
  }
  const { config } = state.expanded;
  return {
    ready: false,
    provider: mainProvider(config, state.credentials.lookup) ?? null,
    model: config.model.default?.trim() || null,
    reason: main.problem,
  };
}

/** One provider a profile can choose. */
export interface ProviderOptionView {
  id: string;
  label: string;
  wire: WireFormat;
  base_url: string | null;
  needs_base_url: boolean;
  key_env: string;
  keyless: boolean;
  key_present: boolean;
  oauth: OAuthFlow | null;
  current: boolean;
}

/** The providers to choose from (`GET /api/model/options`). */
export interface ModelOptionsView {
  profile: string;
  current: { provider: string | null; model: string | null };
  providers: ProviderOptionView[];
}

/** Every provider, with whether its key is present; a current unknown provider is listed too. */
export async function listModelOptions(profile: ProfileContext): Promise<ModelOptionsView> {
  const state = await modelState(profile);
  const current = mainProvider(state.expanded.config, state.credentials.lookup) ?? null;
  const listed = PROVIDERS.some((provider) => provider.id === current) || current === null
    ? PROVIDERS
    : [...PROVIDERS, providerInfo(current)];
  return {
    profile: profile.name,
    current: { provider: current, model: state.written.config.model.default ?? null },
    providers: listed.map((provider) => ({
      id: provider.id,
      label: provider.label,
      wire: provider.wire,
      base_url: provider.baseUrl ?? null,
      needs_base_url: provider.baseUrl === undefined,
      key_env: provider.keyEnv,
      keyless: provider.keyless,
      key_present:
        state.credentials.source(providerKeyVariable(provider, state.credentials.lookup)) !== null,
      oauth: oauthProvider(provider.id)?.flow ?? null,
      current: provider.id === current,
    })),
  };
}

/** One auxiliary slot: what config.yaml says and what a call would use. */
export interface AuxiliaryView {
  task: string;
  configured: {
    provider: string | null;
    model: string | null;
    base_url: string | null;
    timeout: number | null;
    api_key_set: boolean;
  };
  resolved: {
    provider: string;
    model: string;
    base_url: string | null;
    timeout_seconds: number | null;
    credential_present: boolean;
  } | null;
  /** True when the main model is used instead of the slot's own endpoint. */
  fallback: boolean;
  ready: boolean;
  note: string | null;
}

function auxiliaryView(state: ModelState, task: string): AuxiliaryView {
  const slot = state.written.config.auxiliary[task] ?? {};
  const section = `auxiliary.${task}`;
  const ownProvider = filled(slot.provider);
  const namesEndpoint = (ownProvider !== undefined && ownProvider !== "auto" &&
    ownProvider !== "main") ||
    filled(slot.model) !== undefined ||
    filled(slot.base_url) !== undefined || filled(slot.api_key) !== undefined;
  const configured = {
    provider: slot.provider ?? null,
    model: slot.model ?? null,
    base_url: slot.base_url ?? null,
    timeout: slot.timeout ?? null,
    api_key_set: filled(slot.api_key) !== undefined,
  };
  try {
    const settings = resolveAuxiliarySettings(
      state.expanded.config,
      state.credentials.lookup,
      task,
    );
    const fallback = settings.configSection !== section;
    return {
      task,
      configured,
      resolved: {
        provider: settings.provider,
        model: settings.model,
        base_url: settings.baseUrl ?? null,
        timeout_seconds: settings.timeoutSeconds ?? null,
        credential_present: settings.apiKey !== undefined,
      },
      fallback,
      ready: true,
      note: fallback && namesEndpoint
        ? `${section} names an endpoint that cannot be used; the main model is used instead`
        : null,
    };
  } catch (error) {
    return {
      task,
      configured,
      resolved: null,
      fallback: true,
      ready: false,
      note: problemOf(error),
    };
  }
}

/** The auxiliary slots (`GET /api/model/auxiliary`). */
export interface AuxiliaryModelsView {
  profile: string;
  tasks: AuxiliaryView[];
}

/** Every known auxiliary task and every configured slot, each resolved. */
export async function describeAuxiliaryModels(
  profile: ProfileContext,
): Promise<AuxiliaryModelsView> {
  const state = await modelState(profile);
  const configured = Object.keys(state.written.config.auxiliary).sort();
  const tasks = [...new Set([...KNOWN_AUXILIARY_TASKS, ...configured])];
  return { profile: profile.name, tasks: tasks.map((task) => auxiliaryView(state, task)) };
}

/** A provider with OAuth sign-in, and whether the profile's `.env` holds its key. */
export interface OAuthProviderView {
  provider: string;
  label: string;
  flow: OAuthFlow;
  description: string;
  key_env: string;
  key_present: boolean;
}

/** The providers with OAuth sign-in, each with whether its key is stored in `.env`. */
export async function listOAuthProviders(profile: ProfileContext): Promise<OAuthProviderView[]> {
  const dotenv = (await profile.files.readEnv()).values;
  return OAUTH_PROVIDERS.map((provider) => ({
    provider: provider.provider,
    label: provider.label,
    flow: provider.flow,
    description: provider.description,
    key_env: provider.keyEnv,
    key_present: (dotenv.get(provider.keyEnv) ?? "").trim() !== "",
  }));
}

/** A model choice; every field is optional, at least one is needed. Strings are trimmed. */
export interface ModelChoice {
  provider?: string;
  model?: string;
  /** An http(s) endpoint; "" removes `model.base_url`. */
  base_url?: string;
  /** Stored in `.env`; config.yaml gets a `${NAME}` reference. */
  api_key?: string;
  context_length?: number;
}

/** What choosing the model did. */
export interface ModelSetResult {
  profile: string;
  provider: string | null;
  model: string | null;
  base_url: string | null;
  changed: string[];
  /** Keys removed (the previous provider's endpoint and key). */
  cleared: string[];
  /** `.env` variables stored (never their values). */
  secrets: string[];
  /** The managed-tool defaults, when the subscription provider was chosen. */
  tool_gateway?: GatewayDefaults;
}

function trimmed(choice: ModelChoice): ModelChoice {
  return {
    provider: choice.provider?.trim(),
    model: choice.model?.trim(),
    base_url: choice.base_url?.trim(),
    api_key: choice.api_key?.trim(),
    context_length: choice.context_length,
  };
}

/** The edits a choice amounts to against the model section as it is (`before`). */
function modelEdits(choice: ModelChoice, before: LoadedConfig["config"]["model"]): ConfigEdit[] {
  const { provider, model, base_url: baseUrl, api_key: apiKey } = choice;
  const edits: ConfigEdit[] = [];
  if (provider !== undefined) {
    if (!PROVIDER_ID.test(provider)) {
      throw new ModelChoiceError("provider_invalid", `"${provider}" is not a provider id`, {
        provider,
      });
    }
    const known = PROVIDERS.some((entry) => entry.id === provider);
    if (!known && !baseUrl && !(before.provider === provider && before.base_url)) {
      throw new ModelChoiceError(
        "provider_unknown",
        `Unknown provider "${provider}" (known: ${PROVIDERS.map((p) => p.id).join(", ")}); ` +
          "for another OpenAI-compatible endpoint also send base_url",
        { provider },
      );
    }
    edits.push({ key: "model.provider", value: provider });
    if (provider !== before.provider) {
      // The endpoint and key of the previous provider do not carry over.
      if (baseUrl === undefined && before.base_url !== undefined) {
        edits.push({ key: "model.base_url", value: null });
      }
      if (apiKey === undefined && before.api_key !== undefined) {
        edits.push({ key: "model.api_key", value: null });
      }
    }
  }
  if (model !== undefined) {
    if (model === "") throw new ModelChoiceError("bad_request", '"model" must not be empty');
    edits.push({ key: "model.default", value: model });
  }
  if (baseUrl !== undefined) {
    if (baseUrl === "") {
      edits.push({ key: "model.base_url", value: null });
    } else if (!isHttpUrl(baseUrl)) {
      throw new ModelChoiceError(
        "base_url_invalid",
        `"${baseUrl}" is not an http:// or https:// address`,
        { base_url: baseUrl },
      );
    } else {
      edits.push({ key: "model.base_url", value: baseUrl });
    }
  }
  if (apiKey !== undefined) {
    if (apiKey === "") throw new ModelChoiceError("bad_request", '"api_key" must not be empty');
    edits.push({ key: "model.api_key", value: apiKey });
  }
  if (choice.context_length !== undefined) {
    edits.push({ key: "model.context_length", value: choice.context_length });
  }
  return edits;
}

/**
 * Chooses the main model: provider, model name, endpoint, key (to `.env`)
 * and context length, planned from config.yaml as it is inside the lock. A
 * new provider drops the previous provider's endpoint and key unless new
 * ones are given. The subscription provider also turns on the tool gateway
 * for every managed tool whose own key the profile's `.env` does not hold.
 *
 * @throws ModelChoiceError for an empty choice, a bad provider id, an
 *   unknown provider without an endpoint, or an endpoint that is not http(s).
 * @throws ConfigValueError, ValueTooLargeError, ConfigParseError: nothing is written.
 *
 * @example
 * ```ts
 * await setModel(profile, { provider: "openrouter", model: "anthropic/claude-x", api_key: "sk-or-..." });
 * ```
 */
export async function setModel(
  profile: ProfileContext,
  input: ModelChoice,
): Promise<ModelSetResult> {
  const choice = trimmed(input);
  if (Object.values(choice).every((value) => value === undefined)) {
    throw new ModelChoiceError(
      "bad_request",
      "Send at least one of provider, model, base_url, api_key, context_length",
    );
  }
  const file = profile.files.configPath;
  let gateway: GatewayDefaults | undefined;
  if (choice.provider === SUBSCRIPTION_PROVIDER) {
    const dotenv = (await profile.files.readEnv()).values;
    gateway = subscriptionGatewayDefaults((name) => dotenv.get(name));
  }
  let written = "";
  const planned = (await profile.files.updateConfig((current) => {
    const edits = modelEdits(choice, parseConfig(current, file).config.model);
    for (const tool of gateway?.applied ?? []) {
      edits.push({ key: gatewayConfigKey(tool), value: true });
    }
    const plan = planConfigEdits(current, file, edits);
    written = plan.text ?? current;
    return plan;
  }))!;
  const after = parseConfig(written, file).config.model;
  return {
    profile: profile.name,
    provider: after.provider ?? null,
    model: after.default ?? null,
    base_url: after.base_url ?? null,
    changed: planned.changed,
    cleared: planned.removed,
    secrets: planned.secrets.map((secret) => secret.name),
    ...(gateway ? { tool_gateway: gateway } : {}),
  };
}
