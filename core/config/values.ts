/**
 * Config values as they arrive from outside, checked against the schema:
 * a typed value ({@link checkConfigValue}, what the edit API takes), the
 * CLI's `key value` text ({@link configValueFromText}) and a JSON value
 * sent to the dashboard's `set` map ({@link configValueFromJson}).
 *
 * @module
 */

import type { z } from "zod";
import { ConfigKeyError, ConfigValueError, HeraldError } from "../errors.ts";
import { closest } from "../_util/suggest.ts";
import { readYaml } from "../_util/yaml.ts";
import { ConfigSchema } from "./schema.ts";
import { kindOf, knownKeyPaths, schemaAt } from "./_walk.ts";
import { isEnvName, isSecretKey } from "./secrets.ts";
import { checkConfigValueSize, checkEnvValueSize } from "./limits.ts";

/** A secret (a `.env` value) sent as something other than text. */
export class SecretValueTypeError extends HeraldError {
  /** Creates the error for `key`; the value stays out of the message and the details. */
  constructor(readonly key: string) {
    super("bad_request", "usage", `The value of "${key}" must be a string`, {
      details: { key },
    });
  }
}

/** Splits and checks a dotted key against the schema, throwing {@link ConfigKeyError}. */
export function resolveConfigKey(key: string): string[] {
  const path = key.split(".");
  if (path.some((segment) => segment.trim() === "") || !schemaAt(ConfigSchema, path)) {
    const known = knownKeyPaths(ConfigSchema);
    throw new ConfigKeyError(key, closest(key, known));
  }
  return path;
}

/** The schema of the leaf at `path`; a section is refused (quoting `shown`). */
function leafSchema(key: string, path: readonly string[], shown: unknown): z.ZodType {
  const leaf = schemaAt(ConfigSchema, path)!;
  const kind = kindOf(leaf);
  if (kind === "object" || kind === "record") {
    throw new ConfigValueError(key, shown, `"${key}" is a section; set one of its keys instead`);
  }
  return leaf;
}

/** The first candidate the leaf accepts; else the first problem, quoting `shown`. */
function firstAccepted(
  key: string,
  leaf: z.ZodType,
  candidates: readonly unknown[],
  shown: unknown,
): unknown {
  let firstProblem = "";
  for (const candidate of candidates) {
    const result = leaf.safeParse(candidate);
    if (result.success && candidate !== undefined) return candidate;
    firstProblem ||= result.error?.issues[0]?.message ?? "not accepted";
  }
  throw new ConfigValueError(key, shown, firstProblem);
}

/** A secret's text: secrets are stored in `.env`, so only a string will do. */
export function secretText(key: string, value: unknown): string {
  if (typeof value !== "string") throw new SecretValueTypeError(key);
  return value;
}

/**
 * `value` checked as the value of the config leaf at `key` (already
 * resolved to `path`): returned as it is when the schema accepts it.
 *
 * @throws ConfigValueError for a section or a value of the wrong type.
 */
export function checkConfigValue(key: string, path: readonly string[], value: unknown): unknown {
  return firstAccepted(key, leafSchema(key, path, value), [value], value);
}

/**
 * The typed value the CLI's `herald config set <key> <text>` means: the
 * text read as a YAML value when the schema accepts that (`30` for a
 * number, `true` for a flag, `[a, b]` for a list), else the text itself.
 * Secrets (`model.api_key`, or a bare `.env` name like `OPENAI_API_KEY`)
 * are always the text as typed.
 *
 * @throws ConfigKeyError for a key the schema does not know.
 * @throws ConfigValueError when neither reading fits the key.
 * @throws ValueTooLargeError for text over the value limits.
 *
 * @example
 * ```ts
 * configValueFromText("agent.max_turns", "30");  // 30
 * configValueFromText("model.default", "123");   // "123"
 * ```
 */
export function configValueFromText(key: string, raw: string): unknown {
  if (isEnvName(key)) {
    checkEnvValueSize(key, raw);
    return raw;
  }
  const path = resolveConfigKey(key);
  if (isSecretKey(key)) {
    checkEnvValueSize(key, raw);
    return raw;
  }
  checkConfigValueSize(key, raw);
  const leaf = leafSchema(key, path, raw);
  // Not YAML on its own (or an alias bomb): it can still be a plain string.
  const yaml = readYaml(raw);
  return firstAccepted(key, leaf, yaml.ok ? [yaml.value, raw] : [raw], raw);
}

/**
 * The typed value meant by a JSON value sent for `key` in the dashboard's
 * `{"set": {...}}` map: `null` (remove the key) as it is, a string read as
 * {@link configValueFromText} reads the CLI's text (so `"30"` sets
 * `agent.max_turns` to 30), anything else as it is when the schema accepts
 * it, else as its JSON text when the key takes a string.
 *
 * @throws SecretValueTypeError for a secret that is not a string.
 * @throws ConfigKeyError, ConfigValueError, ValueTooLargeError as {@link configValueFromText}.
 */
export function configValueFromJson(key: string, value: unknown): unknown {
  if (value === null) return null;
  if (typeof value === "string") return configValueFromText(key, value);
  if (isEnvName(key) || isSecretKey(key)) throw new SecretValueTypeError(key);
  const path = resolveConfigKey(key);
  const text = JSON.stringify(value) ?? "";
  checkConfigValueSize(key, text);
  return firstAccepted(key, leafSchema(key, path, text), [value, text], text);
}
