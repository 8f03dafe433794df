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
import { unknownKeyPaths } from "./_walk.ts";

/** A problem in the file that did not stop loading. */
export interface ConfigWarning {
  /** Dotted key path the warning is about (empty for the whole file). */
  path: string;
  message: string;
}

/** The outcome of reading a config file. */
export interface LoadedConfig {
  /** Validated configuration with defaults filled in. */
  config: HeraldConfig;
  /** What the user wrote, as plain data (after `${VAR}` expansion when an env was given). */
  raw: Record<string, unknown>;
  warnings: ConfigWarning[];
}

/** Looks up an environment variable for `${VAR}` references. */
export type EnvLookup = (name: string) => string | undefined;

/**
 * Parses YAML text into a YAML document, throwing {@link ConfigParseError}
 * with the file, line and column of the first syntax error.
 */
export function parseConfigDocument(text: string, file: string): YAML.Document {
  const doc = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0] ?? { line: 1, col: 1 };
    const reason = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigParseError(file, pos.line, pos.col, reason);
  }
  const contents = doc.contents;
  if (contents !== null && !YAML.isMap(contents)) {
    const offset = contents.range?.[0] ?? 0;
    const before = text.slice(0, offset).split("\n");
    throw new ConfigParseError(
      file,
      before.length,
      before[before.length - 1].length + 1,
      "the top level must be a mapping of keys to values",
    );
  }
  return doc;
}

const REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g;

function expand(
  value: unknown,
  env: EnvLookup,
  path: string[],
  warnings: ConfigWarning[],
): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (whole, name: string) => {
      const found = env(name);
      if (found === undefined) {
        warnings.push({
          path: path.join("."),
          message: `${whole} is not set in .env or the environment; kept as written`,
        });
        return whole;
      }
      return found;
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, i) => expand(item, env, [...path, `${i}`], warnings));
  }
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expand(v, env, [...path, k], warnings)]),
    );
  }
  return value;
}

function deleteAt(target: Record<string, unknown>, path: readonly PropertyKey[]): boolean {
  let node: unknown = target;
  for (let i = 0; i < path.length - 1; i++) {
    if (!node || typeof node !== "object") return false;
    node = (node as Record<PropertyKey, unknown>)[path[i]];
  }
  const last = path[path.length - 1];
  if (!node || typeof node !== "object" || !(last in node)) return false;
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
  const data = structuredClone(input);
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
  const doc = parseConfigDocument(text, file);
  const warnings: ConfigWarning[] = [];
  let raw = (doc.toJS() ?? {}) as Record<string, unknown>;
  if (env) raw = expand(raw, env, [], warnings) as Record<string, unknown>;
  const validated = validateConfig(raw);
  return { config: validated.config, raw, warnings: [...warnings, ...validated.warnings] };
}
