/**
 * The subscription's managed tool gateway: tools the subscription can run
 * for the user (web search, image generation, text to speech), and the keys
 * that mean the user runs that tool with an account of their own. Choosing
 * the subscription provider turns the gateway on for every managed tool
 * except those, so a key the user set up keeps working.
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";

/** A tool the gateway can run, and the variables holding the user's own keys for it. */
export interface ManagedTool {
  /** The name under `tool_gateway:` in config.yaml. */
  tool: string;
  label: string;
  /** Any of these set means the user brings their own key for the tool. */
  keyEnvs: readonly string[];
}

/** Every tool the subscription gateway manages. */
export const MANAGED_TOOLS: readonly ManagedTool[] = [
  {
    tool: "web_search",
    label: "Web search and page extraction",
    keyEnvs: ["TAVILY_API_KEY", "EXA_API_KEY", "FIRECRAWL_API_KEY"],
  },
  { tool: "image_generation", label: "Image generation", keyEnvs: ["FAL_KEY"] },
  { tool: "tts", label: "Text to speech", keyEnvs: ["ELEVENLABS_API_KEY"] },
];

/** What choosing the subscription does to the managed tools. */
export interface GatewayDefaults {
  /** Tools whose `tool_gateway.<tool>.use_gateway` becomes true. */
  applied: string[];
  /** Tools left alone because the user has a key of their own, with the variable found. */
  skipped: { tool: string; key_env: string }[];
}

/**
 * Decides the managed-tool defaults for the subscription provider: the
 * gateway for every managed tool, except tools whose own key `ownKeys`
 * finds (a non-empty value that is not an unexpanded `${NAME}` reference).
 *
 * @example
 * ```ts
 * subscriptionGatewayDefaults((name) => name === "FAL_KEY" ? "fal-123" : undefined);
 * // { applied: ["web_search", "tts"], skipped: [{ tool: "image_generation", key_env: "FAL_KEY" }] }
 * ```
 */
export function subscriptionGatewayDefaults(ownKeys: EnvLookup): GatewayDefaults {
  const result: GatewayDefaults = { applied: [], skipped: [] };
  for (const managed of MANAGED_TOOLS) {
    const own = managed.keyEnvs.find((name) => hasValue(ownKeys(name)));
    if (own) result.skipped.push({ tool: managed.tool, key_env: own });
    else result.applied.push(managed.tool);
  }
  return result;
}

/** The dotted config key that routes `tool` through the gateway. */
export function gatewayConfigKey(tool: string): string {
  return `tool_gateway.${tool}.use_gateway`;
}

function hasValue(value: string | undefined): boolean {
  const trimmed = value?.trim();
  return trimmed !== undefined && trimmed !== "" && !/^\$\{[^}]*\}$/.test(trimmed);
}
