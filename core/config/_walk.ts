/**
 * Schema introspection: which keys the config schema knows, and the schema
 * that governs one dotted path.
 */

import type { z } from "zod";
import { isPrototypeKey } from "../_util/yaml.ts";

type AnySchema = z.ZodType;

interface Def {
  type: string;
  innerType?: AnySchema;
  valueType?: AnySchema;
  shape?: Record<string, AnySchema>;
}

function defOf(schema: AnySchema): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/**
 * The schema of `key` under a section, or `undefined`. Only the section's
 * own keys count: `constructor`, `toString` and the like are unknown keys,
 * and `__proto__` is unknown everywhere, records included.
 */
function childSchema(def: Def, key: string): AnySchema | undefined {
  if (isPrototypeKey(key)) return undefined;
  if (def.type === "object") {
    return def.shape && Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
  }
  if (def.type === "record") return def.valueType;
  return undefined;
}

/** Strips defaults, prefaults, optional and nullable wrappers. */
export function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.innerType && ["default", "prefault", "optional", "nullable"].includes(def.type)) {
      current = def.innerType;
    } else {
      return current;
    }
  }
}

/** The kind of a schema after unwrapping: `object`, `record`, `string`, `number`, ... */
export function kindOf(schema: AnySchema): string {
  return defOf(unwrap(schema)).type;
}

/** The schema governing `path`, or `undefined` when the schema has no such key. */
export function schemaAt(root: AnySchema, path: readonly string[]): AnySchema | undefined {
  let current: AnySchema | undefined = root;
  for (const segment of path) {
    if (!current) return undefined;
    current = childSchema(defOf(unwrap(current)), segment);
  }
  return current;
}

/** Dotted paths of keys in `value` that the schema does not describe. */
export function unknownKeyPaths(root: AnySchema, value: unknown, prefix: string[] = []): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const def = defOf(unwrap(root));
  if (def.type !== "object" && def.type !== "record") return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const schema = childSchema(def, key);
    if (!schema) found.push([...prefix, key].join("."));
    else found.push(...unknownKeyPaths(schema, child, [...prefix, key]));
  }
  return found;
}

/** Every leaf key path the schema names (records appear as `<name>`). */
export function knownKeyPaths(root: AnySchema, prefix: string[] = []): string[] {
  const def = defOf(unwrap(root));
  if (def.type === "object") {
    return Object.entries(def.shape ?? {}).flatMap(([key, child]) =>
      knownKeyPaths(child, [...prefix, key])
    );
  }
  if (def.type === "record" && def.valueType) {
    return knownKeyPaths(def.valueType, [...prefix, "<name>"]);
  }
  return [prefix.join(".")];
}
