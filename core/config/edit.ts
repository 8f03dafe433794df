/**
 * Editing config.yaml: turning dotted keys and typed values into an edit of
 * the YAML document (comments kept) or, for secrets, a `.env` entry. Values
 * are typed here; reading the CLI's text or the dashboard's JSON into a
 * typed value is core/config/values.ts.
 *
 * @module
 */

import YAML from "yaml";
import type { HeraldConfig } from "./schema.ts";
import { parseConfigDocument } from "./load.ts";
import { isEnvName, isSecretKey, secretEnvName } from "./secrets.ts";
import { isRedactedForm } from "./redact.ts";
import { checkConfigTextSize, checkConfigValueSize, checkEnvValueSize } from "./limits.ts";
import { checkConfigValue, configValueFromJson, resolveConfigKey, secretText } from "./values.ts";
import { checkProvider } from "./provider_check.ts";

/** What setting one key amounts to. */
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

function valueSize(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value) ?? "";
}

/**
 * Works out setting dotted `key` to the typed `value`. Secrets (keys like
 * `model.api_key`, or names like `OPENAI_API_KEY`) go to `.env`, and
 * config.yaml only gets a `${NAME}` reference; everything else is checked
 * against the schema as it is (no re-reading of strings: see
 * `configValueFromText` for the CLI's text form) and written into the
 * document with the user's comments kept.
 *
 * A key named after an `Object.prototype` member (`constructor`,
 * `__proto__`, ...) is an unknown key like any other.
 *
 * @throws ConfigParseError when the current text is not valid YAML (nothing is written).
 * @throws ConfigKeyError for a key the schema does not know.
 * @throws ConfigValueError for a value of the wrong type, or a section.
 * @throws SecretValueTypeError for a secret that is not a string.
 * @throws ValueTooLargeError for a value over `MAX_CONFIG_VALUE_BYTES` (a secret: over
 *   `MAX_ENV_VALUE_BYTES`), or when config.yaml would grow past `MAX_CONFIG_TEXT_BYTES`.
 *
 * @example
 * ```ts
 * planConfigSet("", "config.yaml", "agent.max_turns", 30).text; // "agent:\n  max_turns: 30\n"
 * ```
 */
export function planConfigSet(
  currentText: string,
  file: string,
  key: string,
  value: unknown,
): ConfigSetPlan {
  if (isEnvName(key)) {
    const secret = secretText(key, value);
    checkEnvValueSize(key, secret);
    return { kind: "secret", path: null, envName: key, secret, text: null };
  }
  const path = resolveConfigKey(key);
  if (isSecretKey(key)) {
    const secret = secretText(key, value);
    checkEnvValueSize(key, secret);
    const doc = parseConfigDocument(currentText, file);
    const provider = doc.getIn(["model", "provider"]);
    const envName = secretEnvName(key, typeof provider === "string" ? provider : undefined);
    const reference = `\${${envName}}`;
    const unchanged = doc.getIn(path) === reference;
    if (!unchanged) doc.setIn(path, reference);
    const text = unchanged ? null : doc.toString();
    if (text !== null) checkConfigTextSize(key, text, currentText);
    return { kind: "secret", path: key, envName, secret, text };
  }
  checkConfigValueSize(key, valueSize(value));
  const doc = parseConfigDocument(currentText, file);
  const checked = checkConfigValue(key, path, value);
  doc.setIn(path, checked);
  const text = doc.toString();
  checkConfigTextSize(key, text, currentText);
  return { kind: "config", path: key, value: checked, text };
}

/** One edit of config.yaml: a dotted key and its typed value; `null` removes the key. */
export interface ConfigEdit {
  key: string;
  value: unknown;
}

/** A secret an edit stores in `.env`, and the config key that references it (null: none). */
export interface ConfigSecretWrite {
  name: string;
  value: string;
  key: string | null;
}

/** The outcome of planning several edits of config text. */
export interface ConfigEditPlan {
  /** The new text, or null when nothing in config.yaml changes. */
  text: string | null;
  /** Secrets to store in `.env` before the new text is written. */
  secrets: ConfigSecretWrite[];
  /** Keys set in config.yaml. */
  changed: string[];
  /** Keys removed from config.yaml (their defaults apply again). */
  removed: string[];
}

/**
 * Plans `edits` in order, each as {@link planConfigSet} does (typed values
 * checked against the schema, comments kept, secrets routed to `.env` with
 * a `${NAME}` reference). A `null` value removes the key; removing a key
 * that is not there changes nothing.
 *
 * @throws ConfigKeyError, ConfigValueError, ConfigParseError, ValueTooLargeError:
 *   nothing is to be written.
 */
export function planConfigEdits(
  text: string,
  file: string,
  edits: readonly ConfigEdit[],
): ConfigEditPlan {
  let current = text;
  const plan: ConfigEditPlan = { text: null, secrets: [], changed: [], removed: [] };
  for (const { key, value } of edits) {
    if (value === null) {
      const path = resolveConfigKey(key);
      const doc = parseConfigDocument(current, file);
      if (!doc.hasIn(path)) continue;
      doc.deleteIn(path);
      current = doc.toString();
      plan.removed.push(key);
      continue;
    }
    const set = planConfigSet(current, file, key, value);
    if (set.kind === "secret") {
      plan.secrets.push({ name: set.envName, value: set.secret, key: set.path });
      if (set.text !== null) current = set.text;
      if (set.path) plan.changed.push(set.path);
    } else {
      current = set.text;
      plan.changed.push(set.path);
    }
  }
  if (plan.changed.includes("model.provider")) checkPlannedProvider(current, file);
  plan.text = current === text ? null : current;
  return plan;
}

/** Refuses a `model.provider` the planned text names that is not a provider (see provider_check.ts). */
function checkPlannedProvider(text: string, file: string): void {
  const doc = parseConfigDocument(text, file);
  const provider = doc.getIn(["model", "provider"]);
  const baseUrl = doc.getIn(["model", "base_url"]);
  if (typeof provider !== "string") return;
  checkProvider(provider, typeof baseUrl === "string" ? baseUrl : undefined);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Leaves of a partial config object as `[dotted key, value]`; arrays and scalars are leaves. */
function leaves(value: Record<string, unknown>, prefix: string[] = []): [string, unknown][] {
  return Object.entries(value).flatMap(([key, child]) =>
    isPlainObject(child) ? leaves(child, [...prefix, key]) : [[[...prefix, key].join("."), child]]
  );
}

/**
 * The edits a partial config object (as the dashboard sends it) amounts to:
 * its leaves that differ from `current`, each value read as
 * `configValueFromJson` reads it. A value sent back the way a display
 * showed it (secrets redacted, or a `${NAME}` reference) is unchanged.
 *
 * @throws ConfigKeyError, ConfigValueError, SecretValueTypeError for a leaf that does not fit.
 */
export function configObjectEdits(
  patch: Readonly<Record<string, unknown>>,
  current: HeraldConfig,
): ConfigEdit[] {
  return leaves(patch as Record<string, unknown>)
    .filter(([key, value]) => {
      const existing = getConfigValue(current, key);
      if (JSON.stringify(existing) === JSON.stringify(value)) return false;
      return !isRedactedForm(key, value, existing);
    })
    .map(([key, value]) => ({ key, value: configValueFromJson(key, value) }));
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
