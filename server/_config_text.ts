/**
 * config.yaml as text for the dashboard: dotted-key edits with comments kept.
 * A parse error is answered by server/errors.ts (422 with file, line and
 * column). Hiding secrets on the way out and putting them back on the way
 * in is core's (`redactConfigText`, `restoreRedactedSecrets` in core/config/redact.ts).
 *
 * @module
 */

import {
  isEnvName,
  isSecretKey,
  parseConfigDocument,
  planConfigSet,
  resolveConfigKey,
} from "../core/config/mod.ts";
import { ApiError } from "./errors.ts";
import type { EnvWrite } from "./_profile_io.ts";

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
