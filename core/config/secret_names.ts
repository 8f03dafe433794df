/**
 * Names whose values are secret by the name alone: credential headers of
 * an HTTP MCP server and environment variables named like keys or tokens.
 * A module with no imports, so the web app can mask such values as they are
 * typed with the same rule the server uses to move them to `.env`
 * (config/redact.ts builds on it).
 *
 * @example
 * ```ts
 * isSecretHeader("Authorization"); // true
 * isSecretEnvName("GITHUB_TOKEN"); // true
 * isSecretEnvName("LOG_LEVEL");    // false
 * ```
 *
 * @module
 */

const SECRET_HEADER =
  /^(?:proxy-)?authorization$|^(?:set-)?cookie$|key|token|secret|auth|session|password|credential/i;
const SECRET_NAME = /key|token|secret|passw|pass$|pwd|pat$|auth|credential|cookie|session|dsn/i;

/** True for an HTTP header name whose value is a credential (`Authorization`, `X-Api-Key`, ...). */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/** True for an environment variable named like a secret (`API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}
