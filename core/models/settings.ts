/**
 * Resolving which model endpoint to call: provider, model name, endpoint,
 * key and limits, from the config and the environment. Pure: the caller
 * passes the loaded config and an env lookup; nothing is read here.
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";
import type { HeraldConfig } from "../config/schema.ts";
import { secretEnvName } from "../config/secrets.ts";
import { ModelError } from "../errors.ts";
import { providerInfo, providerKeyVariable } from "../providers.ts";
import type { ModelClient } from "./types.ts";
import { isHttpUrl } from "../_util/url.ts";

/** Everything a model client needs to talk to one endpoint. */
export interface ModelSettings {
  /** Provider id, e.g. `openrouter`, `anthropic`, `custom`. */
  provider: string;
  /** Model name sent to the provider. */
  model: string;
  /** Endpoint; absent only for providers that have a default. */
  baseUrl?: string;
  /** Key sent to the provider; absent for keyless local servers. */
  apiKey?: string;
  /** Seconds before one call (retries included) gives up. */
  timeoutSeconds?: number;
  /** Retries for 5xx and connection errors (`agent.api_max_retries`). */
  maxRetries: number;
  /** Output cap used when a request does not set one. */
  maxTokens?: number;
  /**
   * Config section these settings came from (`model` or `auxiliary.<task>`),
   * so error messages name the keys to set; `model` when absent.
   */
  configSection?: string;
  /** Config key that set {@link timeoutSeconds}, named when the timeout expires. */
  timeoutSetting?: string;
}

/** Builds a client for resolved settings; adapters/models provides the real one. */
export type ModelClientFactory = (settings: ModelSettings) => ModelClient;

/** Which provider a key in the environment points at, in order of preference. */
const ENV_PROVIDERS: readonly [string, string][] = [
  ["ANTHROPIC_API_KEY", "anthropic"],
  ["OPENROUTER_API_KEY", "openrouter"],
  ["OPENAI_API_KEY", "openai"],
];

/**
 * Picks a provider from the keys present in the environment, for a config
 * that names none: `ANTHROPIC_API_KEY` → `anthropic`, `OPENROUTER_API_KEY` →
 * `openrouter`, `OPENAI_API_KEY` → `openai`.
 *
 * @example
 * ```ts
 * detectProviderFromEnv((name) => name === "OPENROUTER_API_KEY" ? "sk-or-1" : undefined); // "openrouter"
 * ```
 */
export function detectProviderFromEnv(env: EnvLookup): string | undefined {
  for (const [name, provider] of ENV_PROVIDERS) {
    if (usableKey(env(name))) return provider;
  }
  return undefined;
}

/** The fields of a config section that describe one endpoint. */
export interface EndpointFields {
  provider?: string;
  model?: string;
  base_url?: string;
  api_key?: string;
}

/**
 * Resolves the main model's settings from `model.*` and `agent.api_max_retries`.
 * `overrides` (for example from `--provider`/`--model` flags) win; when the
 * provider is overridden to a different one, the configured `base_url` and
 * `api_key` (which belong to the configured provider) are not used.
 *
 * Throws {@link ModelError} `model_not_configured` naming what to run when the
 * provider, model name, endpoint or key is missing.
 *
 * @example
 * ```ts
 * const settings = resolveModelSettings(config, (name) => Deno.env.get(name), { model: "gpt-test" });
 * ```
 */
export function resolveModelSettings(
  config: HeraldConfig,
  env: EnvLookup,
  overrides: { provider?: string; model?: string; baseUrl?: string } = {},
): ModelSettings {
  const configured = mainProvider(config, env) ??
    (present(overrides.baseUrl) ? "custom" : undefined);
  const override = present(overrides.provider);
  const sameProvider = override === undefined || override === configured;
  const fields: EndpointFields = {
    provider: override ?? configured,
    model: present(overrides.model) ?? config.model.default,
    base_url: present(overrides.baseUrl) ?? (sameProvider ? config.model.base_url : undefined),
    api_key: sameProvider ? config.model.api_key : undefined,
  };
  return {
    ...resolveEndpoint(fields, env, "model"),
    maxRetries: config.agent.api_max_retries,
    maxTokens: config.model.max_tokens,
    ...timeoutFields(config.model.timeout, "model.timeout"),
  };
}

/**
 * The timeout fields of settings: `seconds` and the config key that set it
 * (named when the timeout expires); none when `seconds` is undefined.
 *
 * @example
 * ```ts
 * timeoutFields(30, "model.timeout"); // { timeoutSeconds: 30, timeoutSetting: "model.timeout" }
 * timeoutFields(undefined, "model.timeout"); // {}
 * ```
 */
export function timeoutFields(
  seconds: number | undefined,
  setting: string,
): Pick<ModelSettings, "timeoutSeconds" | "timeoutSetting"> {
  return seconds === undefined ? {} : { timeoutSeconds: seconds, timeoutSetting: setting };
}

/**
 * The provider the main model uses: `model.provider`, else `custom` when only
 * `model.base_url` is set, else one detected from the keys in the environment.
 */
export function mainProvider(config: HeraldConfig, env: EnvLookup): string | undefined {
  const named = present(config.model.provider);
  if (named !== undefined && named !== "auto") return named;
  if (present(config.model.base_url)) return "custom";
  return detectProviderFromEnv(env);
}

/**
 * Turns the endpoint fields of config section `section` into settings
 * (without retries and limits), checking that they are complete.
 */
export function resolveEndpoint(
  fields: EndpointFields,
  env: EnvLookup,
  section: string,
): Pick<ModelSettings, "provider" | "model" | "baseUrl" | "apiKey" | "configSection"> {
  const provider = present(fields.provider);
  if (provider === undefined || provider === "auto") {
    throw new ModelError(
      "model_not_configured",
      section === "model"
        ? "No model is set up yet: run `herald setup` to choose a provider, key and model " +
          "(or `herald config set model.provider <id>`: openrouter, anthropic, openai, ollama, custom, ...)"
        : `No model provider is configured: run \`herald config set ${section}.provider <id>\` ` +
          "(for example openrouter, anthropic, openai, ollama or custom)",
    );
  }
  const info = providerInfo(provider);
  const model = present(fields.model);
  if (model === undefined) {
    throw new ModelError(
      "model_not_configured",
      `No model name is configured for ${provider}: run \`herald config set ${
        section === "model" ? "model.default" : `${section}.model`
      } <model>\``,
      provider,
    );
  }
  const baseUrl = present(fields.base_url) ?? info.baseUrl;
  if (baseUrl === undefined) {
    throw new ModelError(
      "model_not_configured",
      `No endpoint for ${provider}: run \`herald config set ${section}.base_url <url>\` ` +
        "(for example http://127.0.0.1:8080/v1)",
      provider,
    );
  }
  if (!isHttpUrl(baseUrl)) {
    throw new ModelError(
      "model_not_configured",
      `The endpoint "${baseUrl}" for ${provider} is not a URL: run ` +
        `\`herald config set ${section}.base_url <url>\` (an http:// or https:// address, ` +
        "for example http://127.0.0.1:8080/v1)",
      provider,
    );
  }
  const apiKey = usableKey(fields.api_key) ?? usableKey(env(providerKeyVariable(info, env)));
  if (apiKey === undefined && !info.keyless) {
    const setting = `${section}.api_key`;
    throw new ModelError(
      "model_not_configured",
      `No API key for ${provider}: run \`herald config set ${setting} <key>\` ` +
        `(stored in .env as ${secretEnvName(setting, provider)})`,
      provider,
    );
  }
  return { provider, model, baseUrl, apiKey, configSection: section };
}

/** A trimmed non-empty string, else undefined. */
function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * A key that is really there, trimmed: not empty and not an unexpanded
 * `${NAME}` reference; else undefined.
 *
 * @example
 * ```ts
 * usableKey(" sk-a "); // "sk-a"
 * usableKey("${OPENAI_API_KEY}"); // undefined
 * ```
 */
export function usableKey(value: string | undefined): string | undefined {
  const trimmed = present(value);
  if (trimmed === undefined || /^\$\{[^}]*\}$/.test(trimmed)) return undefined;
  return trimmed;
}
