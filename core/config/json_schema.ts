/**
 * config.yaml's schema as JSON Schema, for clients that build a form from
 * it (the dashboard's Settings page, through `GET /api/config/schema`).
 *
 * @module
 */

import { z } from "zod";
import { ConfigSchema } from "./schema.ts";
import { isSecretKey } from "./secrets.ts";

/** One node of the JSON Schema, as far as {@link configJsonSchema} touches it. */
export interface JsonSchemaNode {
  type?: string;
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: JsonSchemaNode | boolean;
  items?: JsonSchemaNode;
  writeOnly?: boolean;
  [keyword: string]: unknown;
}

/** Marks every string leaf whose key names a secret (`isSecretKey`) `writeOnly`. */
function markSecrets(node: JsonSchemaNode, path: readonly string[]): void {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    markSecrets(child, [...path, key]);
  }
  if (typeof node.additionalProperties === "object") {
    markSecrets(node.additionalProperties, [...path, "<name>"]);
  }
  if (node.items) markSecrets(node.items, path);
  if (node.type === "string" && path.length > 0 && isSecretKey(path.join("."))) {
    node.writeOnly = true;
  }
}

let built: JsonSchemaNode | undefined;

/**
 * The config schema as JSON Schema (draft 2020-12), built on first use and
 * kept: the input side (what a person writes, so a key with a default is
 * not required), with the schema's types, bounds, defaults and
 * descriptions, and the keys whose values are secrets (they go to `.env`)
 * marked `writeOnly`. Callers must not change it.
 *
 * @example
 * ```ts
 * configJsonSchema().properties?.agent.properties?.max_turns; // { type: "integer", default: 90, ... }
 * ```
 */
export function configJsonSchema(): JsonSchemaNode {
  if (!built) {
    const document = z.toJSONSchema(ConfigSchema, { io: "input" }) as JsonSchemaNode;
    markSecrets(document, []);
    built = document;
  }
  return built;
}
