/**
 * What in a configuration is secret, and how it is hidden for display: the
 * one place every surface (`herald config show|get`, `herald mcp list`,
 * `/api/config`, `/api/config/raw`, `/api/mcp/servers`) asks. Secret are:
 *
 * - values of secret-marked keys (`api_key`, `bot_token`, `password`, ...);
 * - credential headers of MCP servers (`Authorization`, `Cookie`,
 *   `X-Api-Key`, ...) and any header value carrying an auth scheme (`Bearer ...`);
 * - MCP `env` values, unless plainly not secret (a word, a number, a path);
 * - the userinfo of a URL and its token-like query values, wherever the URL is;
 * - values that reached the config through a `${NAME}` reference from `.env`
 *   (shown as the reference again).
 *
 * A `${NAME}` reference itself is never secret: it is shown as written.
 *
 * @module
 */

import YAML from "yaml";
import { isSecretKey, REFERENCE_SOURCE } from "./secrets.ts";
import { isSecretEnvName, isSecretHeader } from "./secret_names.ts";
import { parseConfigDocument, type ResolvedReference } from "./load.ts";
import { checkConfigTextSize } from "./limits.ts";

export { isSecretHeader } from "./secret_names.ts";

/** Options of the redaction functions. */
export interface RedactOptions {
  /**
   * Values substituted for `${NAME}` references (from `.env` or the
   * environment): wherever one appears it is shown as `${NAME}` again.
   */
  resolved?: readonly ResolvedReference[];
  /** Dotted key path of the value given (default: the top of a configuration). */
  at?: string;
}

/** Hides a secret, keeping its last four characters when it is long enough to stay safe. */
export function redact(value: string): string {
  return value.length >= 12 ? `…${value.slice(-4)}` : "…";
}

const AUTH_SCHEME = /^(?:bearer|basic|digest|token|bot)\s+\S/i;
const PLAIN_VALUE = /^(?:[A-Za-z]+|[0-9][0-9.]*|~?\/[^\s:@?#]*)$/;
const URL_START = /^[a-z][a-z0-9+.-]*:\/\//i;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const SECRET_PARAM =
  /key|token|secret|passw|pwd|sig|auth|credential|session|^code$|^client_secret$/i;
/** A `${NAME}` reference, alone or after an auth scheme (`Bearer ${TOKEN}`). */
const WHOLE_REFERENCE = new RegExp(`^(?:[A-Za-z]+\\s+)?${REFERENCE_SOURCE}$`);

/**
 * True for a config path whose value is secret by its name alone:
 * secret-marked keys, credential headers of MCP servers and MCP `env`
 * variables named like secrets.
 */
export function isSecretPath(path: string): boolean {
  if (isSecretKey(path)) return true;
  const mcp = /^mcp_servers\.[^.]+\.(headers|env)\.(.+)$/.exec(path);
  if (!mcp) return false;
  return mcp[1] === "headers" ? isSecretHeader(mcp[2]) : isSecretEnvName(mcp[2]);
}

function redactParams(part: string): string {
  return part.split("&").map((pair) => {
    const eq = pair.indexOf("=");
    if (eq <= 0 || eq === pair.length - 1) return pair;
    let name = pair.slice(0, eq);
    try {
      name = decodeURIComponent(name);
    } catch {
      // A malformed escape: judged as written.
    }
    return SECRET_PARAM.test(name) ? `${pair.slice(0, eq)}=…` : pair;
  }).join("&");
}

/**
 * A URL with its userinfo and token-like query (or fragment) values hidden;
 * any other text comes back unchanged.
 *
 * @example
 * ```ts
 * redactUrl("postgres://app:pw@db/app")            // "postgres://app:…@db/app"
 * redactUrl("https://h/mcp?access_token=t&x=1")    // "https://h/mcp?access_token=…&x=1"
 * ```
 */
export function redactUrl(text: string): string {
  if (!URL_START.test(text)) return text;
  const scheme = text.indexOf("://") + 3;
  const rest = text.slice(scheme);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  let tail = authorityEnd === -1 ? "" : rest.slice(authorityEnd);
  let host = authority;
  const at = authority.lastIndexOf("@");
  if (at !== -1) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(":");
    const shown = colon === -1 ? "…" : `${userinfo.slice(0, colon)}:…`;
    host = `${shown}@${authority.slice(at + 1)}`;
  }
  const hash = tail.indexOf("#");
  let fragment = "";
  if (hash !== -1) {
    fragment = `#${redactParams(tail.slice(hash + 1))}`;
    tail = tail.slice(0, hash);
  }
  const question = tail.indexOf("?");
  if (question !== -1) {
    tail = `${tail.slice(0, question)}?${redactParams(tail.slice(question + 1))}`;
  }
  return `${text.slice(0, scheme)}${host}${tail}${fragment}`;
}

function unresolve(value: string, resolved: readonly ResolvedReference[] | undefined): string {
  let out = value;
  // Longest first, so a value that contains another is put back whole.
  const sorted = [...(resolved ?? [])].sort((a, b) => b.value.length - a.value.length);
  for (const { name, value: secret } of sorted) {
    if (secret.length >= 3 && out.includes(secret)) out = out.replaceAll(secret, `\${${name}}`);
  }
  return out;
}

/**
 * How the string at config path `path` is shown: the value itself, or a
 * redacted form when it is (or holds) a secret. This is the one decision
 * every display of configuration goes through.
 *
 * @example
 * ```ts
 * redactConfigValue("model.api_key", "sk-1234567890abcdef")               // "…cdef"
 * redactConfigValue("model.api_key", "${OPENAI_API_KEY}")                 // kept
 * redactConfigValue("mcp_servers.x.headers.Authorization", "Bearer abc")  // "…"
 * redactConfigValue("mcp_servers.x.env.LOG_LEVEL", "debug")               // kept
 * ```
 */
export function redactConfigValue(
  path: string,
  value: string,
  options: Pick<RedactOptions, "resolved"> = {},
): string {
  const shown = unresolve(value, options.resolved);
  if (WHOLE_REFERENCE.test(shown)) return shown;
  if (isSecretPath(path)) return redact(shown);
  const mcp = /^mcp_servers\.[^.]+\.(headers|env)\.[^.]+$/.exec(path);
  if (mcp?.[1] === "headers" && AUTH_SCHEME.test(shown)) return redact(shown);
  if (URL_START.test(shown)) return redactUrl(shown);
  if (mcp?.[1] === "env" && !PLAIN_VALUE.test(shown)) return redact(shown);
  return shown;
}

function walk(value: unknown, path: string[], options: RedactOptions): unknown {
  if (Array.isArray(value)) return value.map((v, i) => walk(v, [...path, `${i}`], options));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, walk(v, [...path, k], options)]),
    );
  }
  if (typeof value === "string") return redactConfigValue(path.join("."), value, options);
  return value;
}

/**
 * A deep copy of a configuration (or of the value at `options.at`) with every
 * secret hidden as {@link redactConfigValue} decides.
 */
export function redactSecrets<T>(value: T, options: RedactOptions = {}): T {
  return walk(value, options.at ? options.at.split(".") : [], options) as T;
}

/**
 * Free text (an error message, a log line) with the values of `resolved`
 * put back as references and every URL in it redacted.
 */
export function redactText(text: string, options: Pick<RedactOptions, "resolved"> = {}): string {
  return unresolve(text, options.resolved).replace(URL_IN_TEXT, (url) => redactUrl(url));
}

/** Every string scalar of a YAML tree, by dotted path. */
function stringScalars(
  node: unknown,
  path: string[] = [],
  found: { path: string; node: YAML.Scalar }[] = [],
) {
  if (YAML.isMap(node)) {
    for (const pair of node.items) {
      const key = YAML.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      stringScalars(pair.value, [...path, key], found);
    }
  } else if (YAML.isSeq(node)) {
    node.items.forEach((item, index) => stringScalars(item, [...path, `${index}`], found));
  } else if (YAML.isScalar(node) && typeof node.value === "string") {
    found.push({ path: path.join("."), node });
  }
  return found;
}

/**
 * config.yaml text with every secret value replaced by its redacted form,
 * and the dotted paths that were. Text without secrets comes back byte for byte.
 *
 * @throws ConfigParseError when the text is not YAML.
 */
export function redactConfigText(text: string, file: string): { text: string; redacted: string[] } {
  const doc = parseConfigDocument(text, file);
  const redacted: string[] = [];
  for (const { path, node } of stringScalars(doc.contents)) {
    const shown = redactConfigValue(path, node.value as string);
    if (shown !== node.value) {
      node.value = shown;
      redacted.push(path);
    }
  }
  return { text: redacted.length === 0 ? text : doc.toString(), redacted };
}

/**
 * Plans a whole-text write of config.yaml: puts back the secrets that
 * `newText` carries in redacted form (as {@link redactConfigText} showed
 * them), taking them from `oldText`. `newText` must already be known to parse.
 *
 * @throws ValueTooLargeError when `newText` is over `MAX_CONFIG_TEXT_BYTES`
 *   (and larger than `oldText`): nothing is to be written.
 */
export function restoreRedactedSecrets(newText: string, oldText: string, file: string): string {
  checkConfigTextSize(file, newText, oldText);
  let old: Map<string, string>;
  try {
    old = new Map(
      stringScalars(parseConfigDocument(oldText, file).contents).map((s) => [
        s.path,
        s.node.value as string,
      ]),
    );
  } catch {
    return newText;
  }
  const doc = parseConfigDocument(newText, file);
  let restored = 0;
  for (const { path, node } of stringScalars(doc.contents)) {
    const previous = old.get(path);
    if (
      previous !== undefined && previous !== node.value &&
      redactConfigValue(path, previous) === node.value
    ) {
      node.value = previous;
      restored++;
    }
  }
  return restored === 0 ? newText : doc.toString();
}

/**
 * True when `shown` is what a display of `existing` (the value at `path`)
 * showed, so sending it back changes nothing.
 */
export function isRedactedForm(path: string, shown: unknown, existing: unknown): boolean {
  return JSON.stringify(redactSecrets(existing, { at: path })) === JSON.stringify(shown);
}
