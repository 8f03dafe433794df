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
  try {
    candidates.push(YAML.parse(rawValue));
  } catch {
    // Not YAML on its own: it can still be a plain string.
  }
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
 * @throws ConfigParseError when the current text is not valid YAML (nothing is written).
 * @throws ConfigKeyError for a key the schema does not know.
 * @throws ConfigValueError for a value of the wrong type.
 */
export function planConfigSet(
  currentText: string,
  file: string,
  key: string,
  rawValue: string,
): ConfigSetPlan {
  if (isEnvName(key)) {
    return { kind: "secret", path: null, envName: key, secret: rawValue, text: null };
  }
  const path = resolveConfigKey(key);
  const doc = parseConfigDocument(currentText, file);
  if (isSecretKey(key)) {
    const provider = doc.getIn(["model", "provider"]);
    const envName = secretEnvName(key, typeof provider === "string" ? provider : undefined);
    const reference = `\${${envName}}`;
    const unchanged = doc.getIn(path) === reference;
    if (!unchanged) doc.setIn(path, reference);
    return {
      kind: "secret",
      path: key,
      envName,
      secret: rawValue,
      text: unchanged ? null : doc.toString(),
    };
  }
  const value = coerce(key, path, rawValue);
  doc.setIn(path, value);
  return { kind: "config", path: key, value, text: doc.toString() };
}

/** Reads a dotted key from plain data; `undefined` when absent. */
export function getConfigValue(data: unknown, key: string): unknown {
  let node = data;
  for (const segment of key.split(".")) {
    if (!node || typeof node !== "object") return undefined;
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
 */
export function appendConfigListValue(
  currentText: string,
  file: string,
  key: string,
  value: string,
): string {
  const path = resolveConfigKey(key);
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
  return doc.toString();
}
