/**
 * Safe YAML reading for skills and bundles: the core schema only, no custom
 * tags (an unknown tag is an error, not a silently stringified value), a
 * cap on alias expansion, and nothing printed.
 *
 * @module
 */

import YAML from "yaml";

/** Parses `text`; never throws. */
export function parseYaml(
  text: string,
): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    const doc = YAML.parseDocument(text, { schema: "core", uniqueKeys: true, prettyErrors: true });
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) return { ok: false, message: problem.message.split("\n")[0] };
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { ok: false, message: (error as Error).message.split("\n")[0] };
  }
}
