/**
 * The client of one endpoint, speaking its provider's wire format.
 *
 * @module
 */

import { providerInfo } from "../../core/providers.ts";
import type { ModelSettings } from "../../core/models/settings.ts";
import type { ModelClient } from "../../core/models/types.ts";
import type { ModelClientOptions } from "./_call.ts";
import { createAnthropicClient } from "./anthropic.ts";
import { createOpenAIClient } from "./openai.ts";

/**
 * Creates the client for `settings`, speaking the provider's wire format.
 * Usable directly as a `ModelClientFactory`.
 *
 * @example
 * ```ts
 * const client = createModelClient(resolveModelSettings(config, env));
 * const answer = await client.complete({ system, messages, tools }, { onText: print });
 * ```
 */
export function createModelClient(
  settings: ModelSettings,
  options: ModelClientOptions = {},
): ModelClient {
  return providerInfo(settings.provider).wire === "anthropic"
    ? createAnthropicClient(settings, options)
    : createOpenAIClient(settings, options);
}
