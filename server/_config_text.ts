/**
 * config.yaml as text for the dashboard: literal secrets hidden on the way
 * out and put back on the way in (so editing the raw file never writes a
 * redacted placeholder over a key), dotted-key edits with comments kept,
 * and the parse-error response with file, line and column.
 *
 * @module
 */

import type { Context } from "hono";
import YAML from "yaml";
import {
  checkConfigTextSize,
  isEnvName,
  isReference,
  isSecretKey,
  parseConfigDocument,
  planConfigSet,
  redact,
  redactSecrets,
  resolveConfigKey,
} from "../core/config/mod.ts";
import { isMcpSecretHeaderPath } from "../core/mcp/mod.ts";
import type { ConfigParseError } from "../core/errors.ts";
import { ApiError } from "./errors.ts";
import type { EnvWrite } from "./_profile_io.ts";

/** True for config paths whose values are secrets (including MCP credential headers). */
export function isSecretPath(path: string): boolean {
  return isSecretKey(path) || isMcpSecretHeaderPath(path);
}

/** A copy of a configuration with every literal secret redacted. */
export function redactConfig<T>(config: T): T {
  const redacted = redactSecrets(config) as Record<string, unknown>;
  const servers = redacted.mcp_servers as Record<string, { headers?: Record<string, string> }>;
  for (const [name, server] of Object.entries(servers ?? {})) {
    for (const [header, value] of Object.entries(server.headers ?? {})) {
      if (isMcpSecretHeaderPath(`mcp_servers.${name}.headers.${header}`) && !isReference(value)) {
        server.headers![header] = redact(value);
      }
    }
  }
  return redacted as T;
}

/** A scalar string at a secret key path, literal (not a `${NAME}` reference). */
interface SecretScalar {
  path: string;
  node: YAML.Scalar;
}

function literalSecrets(node: unknown, path: string[] = [], found: SecretScalar[] = []) {
  if (YAML.isMap(node)) {
    for (const pair of node.items) {
      const key = YAML.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      literalSecrets(pair.value, [...path, key], found);
    }
  } else if (YAML.isSeq(node)) {
    node.items.forEach((item, index) => literalSecrets(item, [...path, `${index}`], found));
  } else if (YAML.isScalar(node) && typeof node.value === "string") {
    const dotted = path.join(".");
    if (isSecretPath(dotted) && !isReference(node.value)) found.push({ path: dotted, node });
  }
  return found;
}

/**
 * The file text with literal secret values replaced by their redacted form.
 * Text without literal secrets comes back byte for byte.
 *
 * @throws ConfigParseError when the text is not YAML.
 */
export function redactConfigText(text: string, file: string): { text: string; redacted: string[] } {
  const doc = parseConfigDocument(text, file);
  const secrets = literalSecrets(doc.contents);
  if (secrets.length === 0) return { text, redacted: [] };
  for (const secret of secrets) secret.node.value = redact(String(secret.node.value));
  return { text: doc.toString(), redacted: secrets.map((secret) => secret.path) };
}

/**
 * Plans a whole-text write of config.yaml: puts back literal secrets that
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
      literalSecrets(parseConfigDocument(oldText, file).contents).map((s) => [
        s.path,
        String(s.node.value),
      ]),
    );
  } catch {
    return newText;
  }
  const doc = parseConfigDocument(newText, file);
  let restored = 0;
  for (const secret of literalSecrets(doc.contents)) {
    const previous = old.get(secret.path);
    if (previous !== undefined && secret.node.value === redact(previous)) {
      secret.node.value = previous;
      restored++;
    }
  }
  return restored === 0 ? newText : doc.toString();
}

/** The 422 answer for text that is not YAML: where the problem is, and nothing written. */
export function parseErrorResponse(c: Context, error: ConfigParseError): Response {
  return c.json({
    error: {
      code: error.code,
      message: error.message,
      file: error.file,
      line: error.line,
      column: error.column,
      reason: error.reason,
    },
  }, 422);
}

/** The outcome of applying dotted-key edits to config text. */
export interface ConfigEdits {
  /** The new text, or null when nothing in config.yaml changes. */
  text: string | null;
  secrets: EnvWrite[];
  /** Keys set in config.yaml. */
  changed: string[];
  /** Keys removed from config.yaml (their defaults apply again). */
  removed: string[];
}

function rawValue(key: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (isSecretKey(key) || isEnvName(key)) {
    throw new ApiError(400, "bad_request", `The value of "${key}" must be a string`);
  }
  return JSON.stringify(value);
}

/**
 * Applies `[dotted key, value]` edits in order, as `herald config set` does
 * (type-checked against the schema, comments kept, secrets routed to
 * `.env` with a `${NAME}` reference). A `null` value removes the key.
 *
 * @throws ConfigKeyError, ConfigValueError, ConfigParseError: nothing is written.
 */
export function applyConfigEdits(
  text: string,
  file: string,
  edits: readonly (readonly [string, unknown])[],
): ConfigEdits {
  let current = text;
  const result: ConfigEdits = { text: null, secrets: [], changed: [], removed: [] };
  for (const [key, value] of edits) {
    if (value === null) {
      const path = resolveConfigKey(key);
      const doc = parseConfigDocument(current, file);
      if (!doc.hasIn(path)) continue;
      doc.deleteIn(path);
      current = doc.toString();
      result.removed.push(key);
      continue;
    }
    const plan = planConfigSet(current, file, key, rawValue(key, value));
    if (plan.kind === "secret") {
      result.secrets.push({ name: plan.envName, value: plan.secret });
      if (plan.text !== null) current = plan.text;
      if (plan.path) result.changed.push(plan.path);
    } else {
      current = plan.text;
      result.changed.push(plan.path);
    }
  }
  result.text = current === text ? null : current;
  return result;
}
