/**
 * Safe YAML reading for skills and bundles: the core schema only, no custom
 * tags (an unknown tag is an error, not a silently stringified value), the
 * shared cap on aliases (core/_util/yaml.ts), and nothing printed.
 *
 * @module
 */

import { readYaml } from "../_util/yaml.ts";

/** Parses `text`; never throws. The message ends with the line and column of the problem. */
export function parseYaml(
  text: string,
): { ok: true; value: unknown } | { ok: false; message: string } {
  const read = readYaml(text, { strictTags: true });
  if (!read.ok) {
    const { line, column, reason } = read.problem;
    return { ok: false, message: `${reason} at line ${line}, column ${column}` };
  }
  return { ok: true, value: read.value };
}
