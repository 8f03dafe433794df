/**
 * `/api/model/*`: the profile's main model and auxiliary slots as a session
 * would resolve them (never a key, only whether one is present), the
 * provider table, and `POST /api/model/set`. Choosing the subscription
 * provider also routes the managed tools through its gateway, except tools
 * the user runs with a key of their own.
 *
 * @module
 */

import type { Hono } from "hono";
import { type LoadedConfig, parseConfig } from "../../core/config/mod.ts";
import { ModelError } from "../../core/errors.ts";
import { resolveAuxiliarySettings } from "../../core/models/auxiliary.ts";
import { oauthProvider } from "../../core/models/oauth.ts";
import { providerInfo, PROVIDERS, SUBSCRIPTION_PROVIDER } from "../../core/providers.ts";
import { mainProvider, resolveModelSettings } from "../../core/models/settings.ts";
import {
  gatewayConfigKey,
  type GatewayDefaults,
  subscriptionGatewayDefaults,
} from "../../core/models/tool_gateway.ts";
import { PROFILE_DESCRIBER_TASK } from "../../core/profiles/mod.ts";
import { type ProfilePaths, readConfigText } from "../../adapters/home/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { scopedProfile } from "../profile_scope.ts";
import { jsonBody, numberField, stringField } from "../_input.ts";
import { type ProfileCredentials, profileCredentials, updateProfileFiles } from "../_profile_io.ts";
import { applyConfigEdits } from "../_config_text.ts";

/** Auxiliary tasks listed even when config.yaml has no slot for them. */
export const KNOWN_AUXILIARY_TASKS: readonly string[] = [
  "kanban_decomposer",
  PROFILE_DESCRIBER_TASK,
];

const PROVIDER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const REFERENCE = /^\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** The config as written (`${NAME}` kept) and as a session sees it (expanded). */
interface ProfileModelState {
  paths: ProfilePaths;
  credentials: ProfileCredentials;
  written: LoadedConfig;
  expanded: LoadedConfig;
}

async function modelState(paths: ProfilePaths, deps: ServerDeps): Promise<ProfileModelState> {
  const credentials = await profileCredentials(paths, deps);
  const text = await readConfigText(paths.config);
  return {
    paths,
    credentials,
    written: parseConfig(text, paths.config),
    expanded: parseConfig(text, paths.config, credentials.lookup),
  };
}

function filled(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Where the key for an endpoint comes from; never the key itself. */
function credentialOf(
  state: ProfileModelState,
  provider: string | undefined,
  writtenKey: string | undefined,
) {
  const info = provider ? providerInfo(provider) : undefined;
  const configured = filled(writtenKey);
  const reference = configured ? REFERENCE.exec(configured)?.[1] : undefined;
  let env = info?.keyEnv ?? null;
  let source: "config" | "env_file" | "environment" | null;
  if (configured && !reference) {
    source = "config";
  } else {
    if (reference) env = reference;
    source = env ? state.credentials.source(env) : null;
  }
  return {
    env,
    present: source !== null,
    source,
    required: info ? !info.keyless : true,
  };
}

function problemOf(error: unknown): string {
  if (error instanceof ModelError) return error.message;
  throw error;
}

function auxiliaryView(state: ProfileModelState, task: string) {
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

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === "http:" || protocol === "https:";
}

/** Registers the model routes. */
export function registerModelRoutes(app: Hono, deps: ServerDeps): void {
  app.get("/api/model/info", async (c) => {
    const state = await modelState(await scopedProfile(c, deps), deps);
    const config = state.written.config;
    const provider = mainProvider(state.expanded.config, state.credentials.lookup);
    const info = provider ? providerInfo(provider) : undefined;
    let problem: string | null = null;
    try {
      resolveModelSettings(state.expanded.config, state.credentials.lookup);
    } catch (error) {
      problem = problemOf(error);
    }
    return c.json({
      profile: state.paths.name,
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
      credential: credentialOf(state, provider, config.model.api_key),
      ready: problem === null,
      problem,
    });
  });

  app.get("/api/model/options", async (c) => {
    const state = await modelState(await scopedProfile(c, deps), deps);
    const current = mainProvider(state.expanded.config, state.credentials.lookup) ?? null;
    const listed = PROVIDERS.some((provider) => provider.id === current) || current === null
      ? PROVIDERS
      : [...PROVIDERS, providerInfo(current)];
    return c.json({
      profile: state.paths.name,
      current: { provider: current, model: state.written.config.model.default ?? null },
      providers: listed.map((provider) => ({
        id: provider.id,
        label: provider.label,
        wire: provider.wire,
        base_url: provider.baseUrl ?? null,
        needs_base_url: provider.baseUrl === undefined,
        key_env: provider.keyEnv,
        keyless: provider.keyless,
        key_present: state.credentials.source(provider.keyEnv) !== null,
        oauth: oauthProvider(provider.id)?.flow ?? null,
        current: provider.id === current,
      })),
    });
  });

  app.get("/api/model/auxiliary", async (c) => {
    const state = await modelState(await scopedProfile(c, deps), deps);
    const configured = Object.keys(state.written.config.auxiliary).sort();
    const tasks = [...new Set([...KNOWN_AUXILIARY_TASKS, ...configured])];
    return c.json({
      profile: state.paths.name,
      tasks: tasks.map((task) => auxiliaryView(state, task)),
    });
  });

  app.post("/api/model/set", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const provider = stringField(body, "provider")?.trim();
    const model = stringField(body, "model")?.trim();
    const baseUrl = stringField(body, "base_url")?.trim();
    const apiKey = stringField(body, "api_key")?.trim();
    const contextLength = numberField(body, "context_length");
    if ([provider, model, baseUrl, apiKey, contextLength].every((v) => v === undefined)) {
      throw new ApiError(
        400,
        "bad_request",
        "Send at least one of provider, model, base_url, api_key, context_length",
      );
    }
    const state = await modelState(paths, deps);
    const before = state.written.config.model;
    const edits: [string, unknown][] = [];
    if (provider !== undefined) {
      if (!PROVIDER_ID.test(provider)) {
        throw new ApiError(400, "provider_invalid", `"${provider}" is not a provider id`);
      }
      const known = PROVIDERS.some((entry) => entry.id === provider);
      if (!known && !baseUrl && !(before.provider === provider && before.base_url)) {
        throw new ApiError(
          400,
          "provider_unknown",
          `Unknown provider "${provider}" (known: ${PROVIDERS.map((p) => p.id).join(", ")}); ` +
            "for another OpenAI-compatible endpoint also send base_url",
        );
      }
      edits.push(["model.provider", provider]);
      if (provider !== before.provider) {
        // The endpoint and key of the previous provider do not carry over.
        if (baseUrl === undefined && before.base_url !== undefined) {
          edits.push(["model.base_url", null]);
        }
        if (apiKey === undefined && before.api_key !== undefined) {
          edits.push(["model.api_key", null]);
        }
      }
    }
    if (model !== undefined) {
      if (model === "") throw new ApiError(400, "bad_request", '"model" must not be empty');
      edits.push(["model.default", model]);
    }
    if (baseUrl !== undefined) {
      if (baseUrl === "") {
        edits.push(["model.base_url", null]);
      } else if (!isHttpUrl(baseUrl)) {
        throw new ApiError(
          400,
          "base_url_invalid",
          `"${baseUrl}" is not an http:// or https:// address`,
        );
      } else {
        edits.push(["model.base_url", baseUrl]);
      }
    }
    if (apiKey !== undefined) {
      if (apiKey === "") throw new ApiError(400, "bad_request", '"api_key" must not be empty');
      edits.push(["model.api_key", apiKey]);
    }
    if (contextLength !== undefined) edits.push(["model.context_length", contextLength]);
    let gateway: GatewayDefaults | undefined;
    if (provider === SUBSCRIPTION_PROVIDER) {
      gateway = subscriptionGatewayDefaults((name) => state.credentials.dotenv.get(name));
      for (const tool of gateway.applied) edits.push([gatewayConfigKey(tool), true]);
    }
    const result = await updateProfileFiles(
      paths,
      (text) => applyConfigEdits(text, paths.config, edits),
    );
    const after = (await modelState(paths, deps)).written.config.model;
    return c.json({
      ok: true,
      profile: paths.name,
      provider: after.provider ?? null,
      model: after.default ?? null,
      base_url: after.base_url ?? null,
      changed: result.changed,
      cleared: result.removed,
      secrets: result.secrets.map((secret) => secret.name),
      ...(gateway ? { tool_gateway: gateway } : {}),
    });
  });
}
