/**
 * The auth use cases: the keys of each provider a profile can use (the
 * main model's, each `fallback_providers` entry's, and any other known
 * provider with a key in `.env` or the environment), masked, with the state
 * the key pools recorded (ok, cooling down until when, last error); and
 * forgetting that state. A key is never returned, only its masked form.
 *
 * @module
 */

import type { ConfigWarning } from "../config/mod.ts";
import { ModelError } from "../errors.ts";
import { fallbackRoute, routeOf, type RouteSpec } from "../models/fallback.ts";
import { isCoolingDown, maskKey, poolKeys } from "../models/key_pool.ts";
import { type KeyStateStore, recordedStatus, withoutKeyStatus } from "../models/key_state.ts";
import { resolveModelSettings } from "../models/settings.ts";
import { providerInfo, PROVIDERS } from "../providers.ts";
import { loadExpandedConfig } from "./config.ts";
import type { ProfileContext } from "./ports.ts";

/** One key of a provider, as shown. */
export interface AuthKeyView {
  /** Where the key comes from: its variable (`OPENAI_API_KEY_2`) or `model.api_key`. */
  source: string;
  /** The key masked (`sk-…abcd`); never the key. */
  key: string;
  /** `ok`, or `cooling_down` until {@link cooldown_until}. */
  state: "ok" | "cooling_down";
  /** ISO time the cooldown ends, while it lasts. */
  cooldown_until: string | null;
  /** The key's last failure the pools recorded, or null. */
  last_error: { status: number | null; failure: string; at: string } | null;
}

/** One provider's pool. */
export interface AuthProviderView {
  provider: string;
  label: string;
  /** The variable the keys are numbered after (`<KEY_ENV>`, `<KEY_ENV>_2`, ...). */
  key_env: string;
  /** The config entries that use this pool: `model`, `fallback_providers.0`, ...; empty when none. */
  used_by: string[];
  keys: AuthKeyView[];
}

/** What `herald auth list` shows. */
export interface AuthListView {
  profile: string;
  /** The profile's config.yaml, which names the main model and the fallbacks. */
  config_file: string;
  /** The pools' state file. */
  state_file: string;
  providers: AuthProviderView[];
  /** Problems in config.yaml that did not stop reading it. */
  warnings: ConfigWarning[];
}

/** Options of {@link listAuth}. */
export interface ListAuthOptions {
  /** Only this provider. */
  provider?: string;
  /** Epoch ms that decides whether a cooldown still runs; defaults to now. */
  now?: number;
}

function notConfigured(error: unknown): boolean {
  return error instanceof ModelError && error.code === "model_not_configured";
}

/**
 * The keys of the profile's providers with their state.
 *
 * @example
 * ```ts
 * const view = await listAuth(profile, openKeyStateStore(profile.home));
 * for (const provider of view.providers) console.log(provider.provider, provider.keys.length);
 * ```
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function listAuth(
  profile: ProfileContext,
  keyState: KeyStateStore,
  options: ListAuthOptions = {},
): Promise<AuthListView> {
  const loaded = await loadExpandedConfig(profile);
  const { config } = loaded;
  const env = loaded.credentials.lookup;
  const uses: { use: string; route: RouteSpec }[] = [];
  try {
    uses.push({ use: "model", route: routeOf(resolveModelSettings(config, env), env) });
  } catch (error) {
    if (!notConfigured(error)) throw error;
  }
  config.fallback_providers.forEach((_entry, index) => {
    try {
      uses.push({ use: `fallback_providers.${index}`, route: fallbackRoute(config, env, index) });
    } catch (error) {
      if (!notConfigured(error)) throw error;
    }
  });

  const pools = new Map<string, AuthProviderView>();
  const state = await keyState.read();
  const now = options.now ?? Date.now();
  const add = (provider: string, keyEnv: string, route: RouteSpec | undefined, use?: string) => {
    const id = `${provider}\0${keyEnv}`;
    let view = pools.get(id);
    if (!view) {
      const keys = route?.keys ?? poolKeys(env, keyEnv);
      view = {
        provider,
        label: providerInfo(provider).label,
        key_env: keyEnv,
        used_by: [],
        keys: keys.flatMap((key) => {
          if (key.key === undefined) return [];
          const status = recordedStatus(state, provider, key);
          const cooling = isCoolingDown(status, now);
          const error = status?.lastError;
          return [{
            source: key.source,
            key: maskKey(key.key),
            state: cooling ? "cooling_down" as const : "ok" as const,
            cooldown_until: cooling ? new Date(status!.cooldownUntil!).toISOString() : null,
            last_error: error
              ? {
                status: error.status ?? null,
                failure: error.failure,
                at: new Date(error.at).toISOString(),
              }
              : null,
          }];
        }),
      };
      pools.set(id, view);
    }
    if (use && !view.used_by.includes(use)) view.used_by.push(use);
  };
  for (const { use, route } of uses) add(route.settings.provider, route.keyEnv, route, use);
  for (const info of PROVIDERS) {
    if (info.keyless) continue;
    if (poolKeys(env, info.keyEnv).length > 0) add(info.id, info.keyEnv, undefined);
  }
  const providers = [...pools.values()].filter((view) =>
    (options.provider === undefined || view.provider === options.provider) &&
    (view.keys.length > 0 || view.used_by.length > 0)
  );
  return {
    profile: profile.name,
    config_file: profile.files.configPath,
    state_file: keyState.path,
    providers,
    warnings: loaded.warnings,
  };
}

/**
 * Forgets what the key pools recorded (cooldowns, last errors) for
 * `provider`, or for every provider; returns the providers whose records
 * were dropped. Sessions already running keep what they know.
 *
 * @example
 * ```ts
 * await resetAuth(openKeyStateStore(profile.home), "openrouter");
 * ```
 */
export async function resetAuth(keyState: KeyStateStore, provider?: string): Promise<string[]> {
  let dropped: string[] = [];
  await keyState.update((state) => {
    dropped = Object.keys(state.providers).filter((p) => provider === undefined || p === provider);
    return withoutKeyStatus(state, provider);
  });
  return dropped;
}
