/**
 * Model clients: one {@link ModelClient} per wire format (OpenAI-compatible
 * chat completions, Anthropic Messages), chosen by provider; the chain
 * client over fallback providers and key pools, with the pools' state
 * file; and the JSON HTTP helper for other provider calls.
 *
 * @module
 */

export type { ModelClientOptions } from "./_call.ts";
export { createAnthropicClient, DEFAULT_ANTHROPIC_MAX_TOKENS } from "./anthropic.ts";
export { createChainClient } from "./chain.ts";
export { createModelClient } from "./client.ts";
export { KeyPoolRegistry, keyPoolRegistry, openKeyStateStore } from "./key_pools.ts";
export { createOpenAIClient } from "./openai.ts";
export { fetchJson, type FetchJsonInit, htmlPageError, rejectingHtml } from "./http.ts";
