/**
 * Known model providers: which wire format each speaks, its default
 * endpoint, and the environment variable its key is read from. A leaf
 * module: core/config (which `.env` name holds a key) and core/models both
 * read it, so neither folder imports the other for it.
 *
 * @module
 */

/** The two request formats Herald speaks. */
export type WireFormat = "openai" | "anthropic";

/** What Herald knows about a provider id. */
export interface ProviderInfo {
  id: string;
  label: string;
  wire: WireFormat;
  /** Endpoint used when `model.base_url` is not set; absent means base_url is required. */
  baseUrl?: string;
  /** Environment variable holding the key. */
  keyEnv: string;
  /**
   * A variable read when {@link keyEnv} holds no key: `custom` once shared
   * `OPENAI_API_KEY`, so setups made then keep working. Never written.
   */
  legacyKeyEnv?: string;
  /**
   * A path under the endpoint that answers only to a valid key, for a
   * provider whose model list is public (OpenRouter's `GET /api/v1/key`).
   */
  keyCheckPath?: string;
  /** True for local servers that need no key. */
  keyless: boolean;
}

/** Every provider id Herald knows, in the order they are listed to users. */
export const PROVIDERS: readonly ProviderInfo[] = [
  {
    id: "openai",
    label: "OpenAI",
    wire: "openai",
    baseUrl: "https://api.openai.com/v1",
    keyEnv: "OPENAI_API_KEY",
    keyless: false,
  },
  {
    id: "openrouter",
    label: "OpenRouter",
    wire: "openai",
    baseUrl: "https://openrouter.ai/api/v1",
    keyEnv: "OPENROUTER_API_KEY",
    keyless: false,
    keyCheckPath: "/key",
  },
  {
    id: "anthropic",
    label: "Anthropic",
    wire: "anthropic",
    baseUrl: "https://api.anthropic.com",
    keyEnv: "ANTHROPIC_API_KEY",
    keyless: false,
  },
  {
    id: "ollama",
    label: "Ollama",
    wire: "openai",
    baseUrl: "http://127.0.0.1:11434/v1",
    keyEnv: "OLLAMA_API_KEY",
    keyless: true,
  },
  {
    id: "lmstudio",
    label: "LM Studio",
    wire: "openai",
    baseUrl: "http://127.0.0.1:1234/v1",
    keyEnv: "LMSTUDIO_API_KEY",
    keyless: true,
  },
  {
    id: "vllm",
    label: "vLLM",
    wire: "openai",
    baseUrl: "http://127.0.0.1:8000/v1",
    keyEnv: "VLLM_API_KEY",
    keyless: true,
  },
  {
    id: "llamacpp",
    label: "llama.cpp server",
    wire: "openai",
    baseUrl: "http://127.0.0.1:8080/v1",
    keyEnv: "LLAMACPP_API_KEY",
    keyless: true,
  },
  {
    id: "herald-subscription",
    label: "Herald subscription (managed models and tool gateway)",
    wire: "openai",
    baseUrl: "https://inference.herald-subscription.invalid/v1",
    keyEnv: "HERALD_SUBSCRIPTION_TOKEN",
    keyless: false,
  },
  {
    id: "custom",
    label: "Any OpenAI-compatible endpoint (set model.base_url)",
    wire: "openai",
    keyEnv: "CUSTOM_API_KEY",
    legacyKeyEnv: "OPENAI_API_KEY",
    keyless: true,
  },
];

/** The provider id of the subscription: choosing it also turns on the managed tool gateway. */
export const SUBSCRIPTION_PROVIDER = "herald-subscription";

/**
 * Looks up a provider id. An unknown id is treated as an OpenAI-compatible
 * endpoint that needs `base_url`, with its key in `<ID>_API_KEY`.
 */
export function providerInfo(id: string): ProviderInfo {
  const known = PROVIDERS.find((provider) => provider.id === id);
  if (known) return known;
  return {
    id,
    label: id,
    wire: "openai",
    keyEnv: `${id.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}_API_KEY`,
    keyless: true,
  };
}

/**
 * The variable a provider's key is read from in `env`: its own
 * {@link ProviderInfo.keyEnv} when that holds a key, else its
 * {@link ProviderInfo.legacyKeyEnv} when that one does, else its own.
 *
 * @example
 * ```ts
 * const env = (name: string) => name === "OPENAI_API_KEY" ? "sk-1" : undefined;
 * providerKeyVariable(providerInfo("custom"), env); // "OPENAI_API_KEY"
 * providerKeyVariable(providerInfo("openrouter"), env); // "OPENROUTER_API_KEY"
 * ```
 */
export function providerKeyVariable(
  info: ProviderInfo,
  env: (name: string) => string | undefined,
): string {
  const holdsKey = (name: string) => {
    const value = env(name)?.trim();
    return value !== undefined && value !== "" && !/^\$\{[^}]*\}$/.test(value);
  };
  if (info.legacyKeyEnv === undefined || holdsKey(info.keyEnv)) return info.keyEnv;
  return holdsKey(info.legacyKeyEnv) ? info.legacyKeyEnv : info.keyEnv;
}

/**
 * True when variable `name` holds the key of a known provider other than
 * `provider` (its key variable, or a numbered one of its pool such as
 * `OPENAI_API_KEY_2`).
 *
 * @example
 * ```ts
 * isOtherProviderKey("OPENAI_API_KEY", "custom"); // true
 * isOtherProviderKey("CUSTOM_API_KEY", "custom"); // false
 * ```
 */
export function isOtherProviderKey(name: string, provider: string): boolean {
  return PROVIDERS.some((other) =>
    other.id !== provider &&
    (name === other.keyEnv || new RegExp(`^${other.keyEnv}_\\d+$`).test(name))
  );
}

/**
 * Reads a `/model` argument: `provider:model` when the part before the
 * first `:` is a known provider id, else a model name of the current
 * provider (model names may hold `:` themselves, as `qwen3:8b` does).
 *
 * @example
 * ```ts
 * parseModelSpec("anthropic:claude-sonnet-4-5"); // { provider: "anthropic", model: "claude-sonnet-4-5" }
 * parseModelSpec("qwen3:8b");                    // { model: "qwen3:8b" }
 * ```
 */
export function parseModelSpec(spec: string): { provider?: string; model: string } {
  const colon = spec.indexOf(":");
  if (colon <= 0) return { model: spec };
  const provider = spec.slice(0, colon);
  if (!PROVIDERS.some((known) => known.id === provider)) return { model: spec };
  return { provider, model: spec.slice(colon + 1) };
}
