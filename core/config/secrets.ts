/**
 * Which config keys hold secrets, and where those secrets live instead of
 * `config.yaml`: in the profile's `.env`, referenced as `${NAME}`.
 *
 * @module
 */

import { providerInfo } from "../providers.ts";

const SECRET_LEAF = /(^|_)(api_key|key|token|secret|password)$/i;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** True when the last segment of a dotted key names a secret (`api_key`, `bot_token`, ...). */
export function isSecretKey(path: string): boolean {
  const leaf = path.split(".").pop() ?? "";
  return SECRET_LEAF.test(leaf);
}

/** True for names written like environment variables (`OPENAI_API_KEY`). */
export function isEnvName(name: string): boolean {
  return ENV_NAME.test(name);
}

/** The environment variable that a provider's key is read from. */
export function providerKeyEnv(provider: string | undefined): string {
  return providerInfo(provider || "custom").keyEnv;
}

/**
 * The `.env` name that stores the secret for a dotted config key.
 *
 * @example
 * ```ts
 * secretEnvName("model.api_key", "anthropic")              // "ANTHROPIC_API_KEY"
 * secretEnvName("auxiliary.kanban_decomposer.api_key")     // "HERALD_AUXILIARY_KANBAN_DECOMPOSER_API_KEY"
 * ```
 */
export function secretEnvName(path: string, provider?: string): string {
  if (path === "model.api_key") return providerKeyEnv(provider);
  return `HERALD_${path.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;
}

/**
 * A `${NAME}` (or `${env:NAME}`) reference to a variable of `.env` or the
 * environment, as a regular expression source: group 1 is the name.
 */
export const REFERENCE_SOURCE = String.raw`\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}`;

const WHOLE_REFERENCE = new RegExp(`^${REFERENCE_SOURCE}$`);

/**
 * The variable a config value names when it is only a reference like
 * `${NAME}` (not a secret itself), else undefined.
 *
 * @example
 * ```ts
 * referenceName("${OPENAI_API_KEY}")     // "OPENAI_API_KEY"
 * referenceName("${env:OPENAI_API_KEY}") // "OPENAI_API_KEY"
 * referenceName("sk-1234")               // undefined
 * ```
 */
export function referenceName(value: unknown): string | undefined {
  return typeof value === "string" ? WHOLE_REFERENCE.exec(value)?.[1] : undefined;
}
