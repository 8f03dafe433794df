/**
 * `config set`: turning a dotted key and a typed value into an edit of the
 * YAML document (comments kept) or, for secrets, a `.env` entry.
 *
 * @module
 */

import YAML from "yaml";
import { ConfigKeyError, ConfigValueError } from "../errors.ts";
import { closest } from "../_util/suggest.ts";
import { ConfigSchema } from "./schema.ts";
import { parseConfigDocument } from "./load.ts";
import { kindOf, knownKeyPaths, schemaAt } from "./_walk.ts";
import { isEnvName, isSecretKey, secretEnvName } from "./secrets.ts";
import { checkConfigTextSize, checkConfigValueSize, checkEnvValueSize } from "./limits.ts";
import { readYaml } from "../_util/yaml.ts";

/** What a `config set` amounts to. */
export type ConfigSetPlan =
  | {
    kind: "config";
    path: string;
    /** The typed value written. */
    value: unknown;
    /** The new config.yaml text. */
    text: string;
  }
  | {
    kind: "secret";
    /** The config key that now references the secret, or null for a bare `.env` name. */
    path: string | null;
    envName: string;
    secret: string;
    /** The new config.yaml text, or null when config.yaml needs no change. */
    text: string | null;
  };

/** Splits and checks a dotted key against the schema, throwing {@link ConfigKeyError}. */
export function resolveConfigKey(key: string): string[] {
  const path = key.split(".");
  if (path.some((segment) => segment.trim() === "") || !schemaAt(ConfigSchema, path)) {
    const known = knownKeyPaths(ConfigSchema);
    throw new ConfigKeyError(key, closest(key, known));
  }
  return path;
}

function coerce(key: string, path: string[], rawValue: string): unknown {
  const leaf = schemaAt(ConfigSchema, path)!;
  const kind = kindOf(leaf);
  if (kind === "object" || kind === "record") {
    throw new ConfigValueError(key, rawValue, `"${key}" is a section; set one of its keys instead`);
  }
  const candidates: unknown[] = [];
  // Not YAML on its own (or an alias bomb): it can still be a plain string.
  const yaml = readYaml(rawValue);
  if (yaml.ok) candidates.push(yaml.value);
  candidates.push(rawValue);
  let firstProblem = "";
  for (const candidate of candidates) {
    const result = leaf.safeParse(candidate);
    if (result.success && candidate !== undefined) return candidate;
    firstProblem ||= result.error?.issues[0]?.message ?? "not accepted";
  }
  throw new ConfigValueError(key, rawValue, firstProblem);
}

/**
 * Works out a `config set`. Secrets (keys like `model.api_key`, or names like
 * `OPENAI_API_KEY`) go to `.env`, and config.yaml only gets a `${NAME}`
 * reference; everything else is type-checked against the schema and written
 * into the document with the user's comments kept.
 *
 * A key named after an `Object.prototype` member (`constructor`,
 * `__proto__`, ...) is an unknown key like any other.
 *
 * @throws ConfigParseError when the current text is not valid YAML (nothing is written).
 * @throws ConfigKeyError for a key the schema does not know.
 * @throws ConfigValueError for a value of the wrong type.
 * @throws ValueTooLargeError for a value over `MAX_CONFIG_VALUE_BYTES` (a secret: over
 *   `MAX_ENV_VALUE_BYTES`), or when config.yaml would grow past `MAX_CONFIG_TEXT_BYTES`.
 */
export function planConfigSet(
  currentText: string,
  file: string,
  key: string,
  rawValue: string,
): ConfigSetPlan {
  if (isEnvName(key)) {
    checkEnvValueSize(key, rawValue);
    return { kind: "secret", path: null, envName: key, secret: rawValue, text: null };
  }
  const path = resolveConfigKey(key);
  if (isSecretKey(key)) checkEnvValueSize(key, rawValue);
  else checkConfigValueSize(key, rawValue);
  const doc = parseConfigDocument(currentText, file);
  if (isSecretKey(key)) {
    const provider = doc.getIn(["model", "provider"]);
    const envName = secretEnvName(key, typeof provider === "string" ? provider : undefined);
    const reference = `\${${envName}}`;
    const unchanged = doc.getIn(path) === reference;
    if (!unchanged) doc.setIn(path, reference);
    const text = unchanged ? null : doc.toString();
    if (text !== null) checkConfigTextSize(key, text, currentText);
    return { kind: "secret", path: key, envName, secret: rawValue, text };
  }
  const value = coerce(key, path, rawValue);
  doc.setIn(path, value);
  const text = doc.toString();
  checkConfigTextSize(key, text, currentText);
  return { kind: "config", path: key, value, text };
}

/**
 * Reads a dotted key from plain data; `undefined` when absent. Only own
 * keys are followed (`constructor` is absent, not `Object`).
 */
export function getConfigValue(data: unknown, key: string): unknown {
  let node = data;
  for (const segment of key.split(".")) {
    if (!node || typeof node !== "object" || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/**
 * Adds `value` to the list at dotted `key` (creating the list), keeping the
 * document's comments. Returns the text unchanged when the value is there.
 *
 * @throws ConfigParseError when the current text is not valid YAML.
 * @throws ConfigKeyError for a key the schema does not know.
 * @throws ValueTooLargeError for a value or a resulting text over the limits.
 */
export function appendConfigListValue(
  currentText: string,
  file: string,
  key: string,
  value: string,
): string {
  const path = resolveConfigKey(key);
  checkConfigValueSize(key, value);
  const doc = parseConfigDocument(currentText, file);
  const existing = doc.getIn(path);
  if (YAML.isSeq(existing)) {
    if (existing.items.some((item) => YAML.isScalar(item) && item.value === value)) {
      return currentText;
    }
    existing.add(value);
  } else {
    doc.setIn(path, [value]);
  }
  const text = doc.toString();
  checkConfigTextSize(key, text, currentText);
  return text;
}
