/**
 * Auxiliary model slots: side tasks (titles, compression, decomposition, ...)
 * configured under `auxiliary.<task>`. A slot's empty fields fall back to the
 * main model's; a slot that cannot be used falls back to the main model as a
 * whole; a slot's `timeout` always applies.
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";
import type { HeraldConfig } from "../config/schema.ts";
import { ModelError } from "../errors.ts";
import {
  type EndpointFields,
  mainProvider,
  type ModelClientFactory,
  type ModelSettings,
  resolveEndpoint,
  resolveModelSettings,
} from "./settings.ts";

/** What an auxiliary call sends: one system prompt and one user prompt. */
export interface AuxiliaryPrompt {
  system: string;
  prompt: string;
  /** Output cap of the answer; the provider's default when absent. */
  maxTokens?: number;
  /** Cancels the call; the returned promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Resolves the settings for auxiliary task `task`: the slot's own endpoint
 * when it names one (empty fields taken from the main model), else the main
 * model; the slot's `timeout` applies either way. `main` stands for the main
 * model when the caller already resolved it (command-line overrides, a
 * session's `/model` switch); without it the main model is read from `config`.
 *
 * Throws {@link ModelError} `model_not_configured` ("No auxiliary client is
 * configured for <task>: ...") when neither the slot nor the main model can
 * be used.
 *
 * @example
 * ```ts
 * const settings = resolveAuxiliarySettings(config, env, "title_generation");
 * ```
 */
export function resolveAuxiliarySettings(
  config: HeraldConfig,
  env: EnvLookup,
  task: string,
  main?: ModelSettings,
): ModelSettings {
  const slot = config.auxiliary[task] ?? {};
  const section = `auxiliary.${task}`;
  const timeout: Partial<ModelSettings> = slot.timeout === undefined
    ? {}
    : { timeoutSeconds: slot.timeout, timeoutSetting: `${section}.timeout` };

  let slotProblem: unknown;
  const fields = slotFields(config, env, slot);
  if (fields) {
    try {
      return {
        ...resolveEndpoint(fields, env, section),
        maxRetries: config.agent.api_max_retries,
        ...timeout,
      };
    } catch (error) {
      if (!isNotConfigured(error)) throw error;
      slotProblem = error;
    }
  }
  if (main) return { ...main, ...timeout };
  try {
    return { ...resolveModelSettings(config, env), ...timeout };
  } catch (error) {
    if (!isNotConfigured(error)) throw error;
    throw new ModelError(
      "model_not_configured",
      `No auxiliary client is configured for ${task}: set ${section}.model (and provider) ` +
        "or configure the main model",
      undefined,
      undefined,
      { cause: slotProblem ?? error },
    );
  }
}

/**
 * Runs one auxiliary call and resolves with the model's text. `main` is the
 * main model to fall back to (see {@link resolveAuxiliarySettings}).
 *
 * @example
 * ```ts
 * const title = await callAuxiliary(createModelClient, config, env, "title_generation", {
 *   system: "Write a five-word title.",
 *   prompt: firstMessage,
 * });
 * ```
 */
export async function callAuxiliary(
  factory: ModelClientFactory,
  config: HeraldConfig,
  env: EnvLookup,
  task: string,
  { system, prompt, maxTokens, signal }: AuxiliaryPrompt,
  main?: ModelSettings,
): Promise<string> {
  const client = factory(resolveAuxiliarySettings(config, env, task, main));
  const response = await client.complete({
    system,
    messages: [{ role: "user", content: prompt }],
    tools: [],
    maxTokens,
    signal,
  });
  if (response.finishReason === "aborted") {
    throw signal?.reason ?? new DOMException(`The ${task} call was aborted`, "AbortError");
  }
  return response.text;
}

/**
 * The endpoint a slot names, or undefined when it names none (only a timeout,
 * or nothing). A slot with its own provider or base_url does not borrow the
 * main model's endpoint or key, which belong to another provider.
 */
function slotFields(
  config: HeraldConfig,
  env: EnvLookup,
  slot: HeraldConfig["auxiliary"][string],
): EndpointFields | undefined {
  const provider = filled(slot.provider);
  const own = provider === "auto" || provider === "main" ? undefined : provider;
  const model = filled(slot.model);
  const baseUrl = filled(slot.base_url);
  const apiKey = filled(slot.api_key);
  if (own === undefined && model === undefined && baseUrl === undefined && apiKey === undefined) {
    return undefined;
  }
  const main = mainProvider(config, env);
  if (own !== undefined && own !== main) {
    // Another provider's model names differ: the slot must name its own model.
    return { provider: own, model, base_url: baseUrl, api_key: apiKey };
  }
  if (own === undefined && baseUrl !== undefined) {
    return {
      provider: "custom",
      model: model ?? config.model.default,
      base_url: baseUrl,
      api_key: apiKey,
    };
  }
  return {
    provider: main,
    model: model ?? config.model.default,
    base_url: baseUrl ?? config.model.base_url,
    api_key: apiKey ?? config.model.api_key,
  };
}

function filled(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function isNotConfigured(error: unknown): boolean {
  return error instanceof ModelError && error.code === "model_not_configured";
}
