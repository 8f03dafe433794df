/**
 * Schema introspection: which keys the config schema knows, and the schema
 * that governs one dotted path.
 */

import type { z } from "zod";

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
    const def = defOf(unwrap(current));
    if (def.type === "object") current = def.shape?.[segment];
    else if (def.type === "record") current = def.valueType;
    else return undefined;
  }
  return current;
}

/** Dotted paths of keys in `value` that the schema does not describe. */
export function unknownKeyPaths(root: AnySchema, value: unknown, prefix: string[] = []): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const def = defOf(unwrap(root));
  const found: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    let childSchema: AnySchema | undefined;
    if (def.type === "object") childSchema = def.shape?.[key];
    else if (def.type === "record") childSchema = def.valueType;
    else return [];
    if (!childSchema) found.push([...prefix, key].join("."));
    else found.push(...unknownKeyPaths(childSchema, child, [...prefix, key]));
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
