/**
 * The fallback chain as a session resolves it: the main model, then each
 * usable entry of `fallback_providers`, each with the keys of its pool; and
 * the endpoint and chain a `/model provider:model` switch moves to. Pure:
 * the caller passes the loaded config and an env lookup.
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";
import type { HeraldConfig } from "../config/schema.ts";
import { ModelError } from "../errors.ts";
import { providerInfo, providerKeyVariable } from "../providers.ts";
import { type PooledKey, poolKeys } from "./key_pool.ts";
import { type ModelSettings, resolveEndpoint, timeoutFields } from "./settings.ts";

/** One route of the chain before its pool exists: the endpoint and its keys. */
export interface RouteSpec {
  /** The endpoint; its `apiKey` is the first key (the pool chooses per call). */
  settings: ModelSettings;
  /** The key variable the pool's keys are numbered after (`OPENAI_API_KEY`). */
  keyEnv: string;
  /** The keys in order of preference; one entry without a key for a keyless endpoint. */
  keys: PooledKey[];
}

/** The resolved chain: the primary route first. */
export interface RouteChain {
  routes: RouteSpec[];
  /** Entries of `fallback_providers` that cannot be used, each with why (one line). */
  warnings: string[];
}

/**
 * The route of already resolved settings (the main model, or a switch):
 * the settings' key first, then the provider's numbered keys.
 *
 * @example
 * ```ts
 * const primary = routeOf(resolveModelSettings(config, env), env);
 * ```
 */
export function routeOf(
  settings: ModelSettings,
  env: EnvLookup,
  keyEnv = providerKeyVariable(providerInfo(settings.provider), env),
  configuredSource = `${settings.configSection ?? "model"}.api_key`,
): RouteSpec {
  const configured = settings.apiKey === undefined
    ? undefined
    : { source: configuredSource, key: settings.apiKey };
  const keys = poolKeys(env, keyEnv, configured);
  return {
    settings: { ...settings, apiKey: keys[0]?.key },
    keyEnv,
    keys: keys.length > 0 ? keys : [{ source: "" }],
  };
}

/**
 * The whole chain: `primary`, then the entries of `fallback_providers` that
 * resolve (provider, model, endpoint and key), each once. An entry that
 * does not resolve is left out with a warning.
 *
 * @example
 * ```ts
 * const { routes, warnings } = resolveRouteChain(config, env, resolveModelSettings(config, env));
 * ```
 */
export function resolveRouteChain(
  config: HeraldConfig,
  env: EnvLookup,
  primary: ModelSettings,
): RouteChain {
  const routes: RouteSpec[] = [routeOf(primary, env)];
  const warnings: string[] = [];
  config.fallback_providers.forEach((entry, index) => {
    const section = `fallback_providers.${index}`;
    try {
      const route = fallbackRoute(config, env, index);
      if (routes.some((r) => sameEndpoint(r.settings, route.settings))) return;
      routes.push(route);
    } catch (error) {
      if (!(error instanceof ModelError) || error.code !== "model_not_configured") throw error;
      warnings.push(`${section} (${entry.provider}/${entry.model}) is skipped: ${error.message}`);
    }
  });
  return { routes, warnings };
}

/**
 * The route of entry `index` of `fallback_providers`.
 *
 * @throws ModelError `model_not_configured` when its endpoint or key is missing.
 */
export function fallbackRoute(config: HeraldConfig, env: EnvLookup, index: number): RouteSpec {
  const entry = config.fallback_providers[index];
  const keyEnv = entry.key_env ?? providerKeyVariable(providerInfo(entry.provider), env);
  const endpoint = resolveEndpoint(
    {
      provider: entry.provider,
      model: entry.model,
      base_url: entry.base_url,
      api_key: env(keyEnv),
    },
    env,
    `fallback_providers.${index}`,
  );
  const settings: ModelSettings = {
    ...endpoint,
    maxRetries: config.agent.api_max_retries,
    maxTokens: config.model.max_tokens,
    ...(entry.timeout === undefined
      ? timeoutFields(config.model.timeout, "model.timeout")
      : timeoutFields(entry.timeout, `fallback_providers.${index}.timeout`)),
  };
  // A key found under the provider's own variable when `key_env` has none keeps that name.
  return routeOf(settings, env, keyEnv, providerKeyVariable(providerInfo(entry.provider), env));
}

/**
 * The route a `/model` switch moves to from `current` (the session's
 * primary): another model of the same provider keeps the endpoint and keys;
 * another provider takes the endpoint of its first `fallback_providers`
 * entry when there is one, else the provider's default.
 *
 * @throws ModelError `model_not_configured` when the provider has no endpoint or key.
 */
export function switchedRoute(
  config: HeraldConfig,
  env: EnvLookup,
  current: ModelSettings,
  model: string,
  provider?: string,
): RouteSpec {
  if (provider === undefined || provider === current.provider) {
    return routeOf({ ...current, model }, env);
  }
  const index = config.fallback_providers.findIndex((entry) => entry.provider === provider);
  if (index >= 0) {
    const route = fallbackRoute(config, env, index);
    return { ...route, settings: { ...route.settings, model } };
  }
  const endpoint = resolveEndpoint({ provider, model }, env, "model");
  return routeOf({
    ...endpoint,
    maxRetries: current.maxRetries,
    maxTokens: current.maxTokens,
    ...timeoutFields(config.model.timeout, "model.timeout"),
  }, env);
}

/**
 * The chain of a session after a `/model` switch: the {@link switchedRoute},
 * then `fallbacks` (the session's chain after its primary) less any that is
 * the switched endpoint again.
 *
 * @example
 * ```ts
 * const chain = resolveRouteChain(config, env, settings);
 * const routes = switchedChain(config, env, settings, chain.routes.slice(1), "gpt-4o", "openai");
 * ```
 *
 * @throws ModelError `model_not_configured` when the provider has no endpoint or key.
 */
export function switchedChain(
  config: HeraldConfig,
  env: EnvLookup,
  current: ModelSettings,
  fallbacks: readonly RouteSpec[],
  model: string,
  provider?: string,
): RouteSpec[] {
  const switched = switchedRoute(config, env, current, model, provider);
  return [switched, ...fallbacks.filter((r) => !sameEndpoint(r.settings, switched.settings))];
}

function sameEndpoint(a: ModelSettings, b: ModelSettings): boolean {
  return a.provider === b.provider && a.model === b.model &&
    (a.baseUrl ?? providerInfo(a.provider).baseUrl) ===
      (b.baseUrl ?? providerInfo(b.provider).baseUrl);
}
