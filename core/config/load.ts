/**
 * Reading `config.yaml` text into a validated configuration. Unknown keys and
 * invalid values become warnings (the value falls back to its default); only
 * text that is not YAML at all is an error.
 *
 * @module
 */

import YAML from "yaml";
import { ConfigParseError } from "../errors.ts";
import { ConfigSchema, type HeraldConfig } from "./schema.ts";
import { REFERENCE_SOURCE } from "./secrets.ts";
import { unknownKeyPaths } from "./_walk.ts";
import { positionOf, readYaml, withoutPrototypeKeys } from "../_util/yaml.ts";

/** A problem in the file that did not stop loading. */
export interface ConfigWarning {
  /** Dotted key path the warning is about (empty for the whole file). */
  path: string;
  message: string;
}

/** A value substituted for a `${NAME}` reference when a config was loaded. */
export interface ResolvedReference {
  name: string;
  value: string;
}

/** The outcome of reading a config file. */
export interface LoadedConfig {
  /** Validated configuration with defaults filled in. */
  config: HeraldConfig;
  /** What the user wrote, as plain data (after `${VAR}` expansion when an env was given). */
  raw: Record<string, unknown>;
  warnings: ConfigWarning[];
  /** Values substituted for `${VAR}` references (empty when no env was given), for redaction. */
  resolved: ResolvedReference[];
}

/** Looks up an environment variable for `${VAR}` references. */
export type EnvLookup = (name: string) => string | undefined;

/**
 * The process environment as a plain record, passed in as a parameter (the
 * CLI context, the runtime) so tests never touch `Deno.env`.
 */
export type ProcessEnv = Record<string, string | undefined>;

/** Parses config text, throwing {@link ConfigParseError} at the first problem. */
function readConfigYaml(text: string, file: string): { doc: YAML.Document; value: unknown } {
  const read = readYaml(text);
  if (!read.ok) {
    throw new ConfigParseError(file, read.problem.line, read.problem.column, read.problem.reason);
  }
  const contents = read.doc.contents;
  if (contents !== null && !YAML.isMap(contents)) {
    const { line, column } = positionOf(text, contents.range?.[0] ?? 0);
    throw new ConfigParseError(
      file,
      line,
      column,
      "the top level must be a mapping of keys to values",
    );
  }
  return { doc: read.doc, value: read.value };
}

/**
 * Parses YAML text into a YAML document, throwing {@link ConfigParseError}
 * with the file, line and column of the first syntax error. Aliases are
 * checked too (one that names no anchor, or aliases that expand past
 * `MAX_YAML_ALIASES` copies, are a parse error), so `toJS()` on the
 * returned document cannot fail.
 */
export function parseConfigDocument(text: string, file: string): YAML.Document {
  return readConfigYaml(text, file).doc;
}

const REFERENCE = new RegExp(REFERENCE_SOURCE, "g");

function expand(
  value: unknown,
  env: EnvLookup,
  path: string[],
  warnings: ConfigWarning[],
  resolved: ResolvedReference[],
): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (whole, name: string) => {
      const found = env(name);
      // Only a string is a value: a lookup that reached a prototype (`${constructor}`) is not.
      if (typeof found !== "string") {
        warnings.push({
          path: path.join("."),
          message: `${whole} is not set in .env or the environment; kept as written`,
        });
        return whole;
      }
      if (!resolved.some((r) => r.name === name)) resolved.push({ name, value: found });
      return found;
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, i) => expand(item, env, [...path, `${i}`], warnings, resolved));
  }
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expand(v, env, [...path, k], warnings, resolved)]),
    );
  }
  return value;
}

function deleteAt(target: Record<string, unknown>, path: readonly PropertyKey[]): boolean {
  let node: unknown = target;
  for (let i = 0; i < path.length - 1; i++) {
    if (!node || typeof node !== "object") return false;
    if (!Object.hasOwn(node, path[i])) return false;
    node = (node as Record<PropertyKey, unknown>)[path[i]];
  }
  const last = path[path.length - 1];
  if (!node || typeof node !== "object" || !Object.hasOwn(node, last)) return false;
  delete (node as Record<PropertyKey, unknown>)[last];
  return true;
}

/**
 * Validates plain data against the schema. Each invalid value is dropped (so
 * its default applies) and reported; unknown keys are reported and ignored.
 */
export function validateConfig(
  input: Record<string, unknown>,
): { config: HeraldConfig; warnings: ConfigWarning[] } {
  const warnings: ConfigWarning[] = unknownKeyPaths(ConfigSchema, input).map((path) => ({
    path,
    message: `unknown key "${path}" (ignored)`,
  }));
  // A copy without `__proto__` keys: they are reported above and never reach the schema.
  const data = withoutPrototypeKeys(input);
  for (let attempt = 0; attempt < 100; attempt++) {
    const result = ConfigSchema.safeParse(data);
    if (result.success) return { config: result.data, warnings };
    let removed = false;
    for (const issue of result.error.issues) {
      const path = issue.path.map(String).join(".") || "(top level)";
      // Walk up until something can be removed: a missing leaf reports its parent.
      for (let depth = issue.path.length; depth > 0 && !removed; depth--) {
        removed = deleteAt(data, issue.path.slice(0, depth));
      }
      warnings.push({ path, message: `"${path}": ${issue.message}; using the default` });
    }
    if (!removed) break;
  }
  return { config: ConfigSchema.parse({}), warnings };
}

/**
 * Parses config text. Throws {@link ConfigParseError} only when the text is
 * not YAML or not a mapping; every other problem is a warning.
 *
 * @param env when given, `${VAR}` references in string values are expanded.
 */
export function parseConfig(text: string, file: string, env?: EnvLookup): LoadedConfig {
  const { value } = readConfigYaml(text, file);
  const warnings: ConfigWarning[] = [];
  const resolved: ResolvedReference[] = [];
  let raw = (value ?? {}) as Record<string, unknown>;
  if (env) raw = expand(raw, env, [], warnings, resolved) as Record<string, unknown>;
  const validated = validateConfig(raw);
  return {
    config: validated.config,
    raw: withoutPrototypeKeys(raw),
    warnings: [...warnings, ...validated.warnings],
    resolved,
  };
}
