/**
 * Hiding a profile's secrets in what a surface shows of a tool call (the
 * dashboard's tool previews): a `read_file` of `.env`, a command that
 * prints the environment or a diff of a config file must not put the
 * profile's keys on a page. Known secret values are replaced wherever they
 * appear, and every URL goes through the config redaction (its userinfo and
 * token-like query values hidden). Pure: the caller reads the sources.
 *
 * Known secrets are:
 *
 * - every `.env` value (the file holds secrets), shown as `${NAME}`;
 * - process environment values whose names look secret (`*_API_KEY`,
 *   `*_TOKEN`, `*PASSWORD*`, ...), unless plainly not secret (a word, a
 *   number, a path), shown as `${NAME}`;
 * - secret values written in config.yaml itself (`model.api_key: sk-...`),
 *   shown as the config display shows them (`…cdef`).
 *
 * Values shorter than {@link MIN_SECRET_CHARS} are left alone: hiding them
 * would blank ordinary words all over a preview.
 *
 * @module
 */

import type { ProcessEnv } from "../config/load.ts";
import { isSecretPath, redact, redactConfigValue, redactText } from "../config/redact.ts";
import { isSecretEnvName } from "../config/secret_names.ts";

/** The shortest value hidden. */
export const MIN_SECRET_CHARS = 8;

/** Where the secrets of a profile are known from. */
export interface SecretSources {
  /** The profile's `.env` values by name. */
  dotenv: ReadonlyMap<string, string>;
  /** The process environment (the credentials fallback after `.env`). */
  env?: ProcessEnv;
  /** The profile's loaded configuration. */
  config?: unknown;
}

const PLAIN_VALUE = /^(?:[A-Za-z]+|[0-9][0-9.]*|~?\/[^\s:@?#]*)$/;

interface Hidden {
  value: string;
  shown: string;
}

function configSecrets(value: unknown, path: string[], found: Hidden[]): void {
  if (typeof value === "string") {
    const dotted = path.join(".");
    if (isSecretPath(dotted) && redactConfigValue(dotted, value) !== value) {
      found.push({ value, shown: redact(value) });
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => configSecrets(item, [...path, `${index}`], found));
  } else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) configSecrets(item, [...path, key], found);
  }
}

/** The secret values of `sources`, longest first (so a value holding another goes whole). */
function hiddenValues(sources: SecretSources): Hidden[] {
  const found: Hidden[] = [];
  for (const [name, value] of sources.dotenv) found.push({ value, shown: `\${${name}}` });
  for (const [name, value] of Object.entries(sources.env ?? {})) {
    if (value === undefined || !isSecretEnvName(name) || PLAIN_VALUE.test(value)) continue;
    found.push({ value, shown: `\${${name}}` });
  }
  configSecrets(sources.config, [], found);
  const seen = new Set<string>();
  return found
    .filter(({ value }) => value.trim().length >= MIN_SECRET_CHARS)
    .sort((a, b) => b.value.length - a.value.length)
    .filter(({ value }) => !seen.has(value) && seen.add(value));
}

/**
 * Hides the known secrets of one profile in preview text.
 *
 * @example
 * ```ts
 * const secrets = new SecretRedactor({ dotenv: new Map([["OPENAI_API_KEY", "sk-0123456789"]]) });
 * secrets.text("key=sk-0123456789");                  // "key=${OPENAI_API_KEY}"
 * secrets.json('{"content":"K=sk-0123456789\\n"}');   // '{"content":"K=${OPENAI_API_KEY}\\n"}'
 * ```
 */
export class SecretRedactor {
  readonly #hidden: Hidden[];

  /** A redactor for the secrets of `sources` (none: only URLs are redacted). */
  constructor(sources: SecretSources = { dotenv: new Map() }) {
    this.#hidden = hiddenValues(sources);
  }

  /** `text` with every known secret replaced and every URL in it redacted. */
  text(text: string): string {
    let out = text;
    for (const { value, shown } of this.#hidden) {
      if (out.includes(value)) out = out.replaceAll(value, shown);
    }
    return redactText(out);
  }

  /**
   * JSON text (a tool's arguments or result) with {@link text} applied to
   * each string in it, so it stays JSON; text that is not JSON is treated
   * as text. Without a secret in it, the text comes back as it was.
   */
  json(json: string): string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return this.text(json);
    }
    const changed = { any: false };
    const shown = this.#walk(parsed, changed);
    return changed.any ? JSON.stringify(shown) : json;
  }

  #walk(value: unknown, changed: { any: boolean }): unknown {
    if (typeof value === "string") {
      const shown = this.text(value);
      if (shown !== value) changed.any = true;
      return shown;
    }
    if (Array.isArray(value)) return value.map((item) => this.#walk(item, changed));
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, this.#walk(item, changed)]),
      );
    }
    return value;
  }
}
