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

/** The path segment of a key that any name may take (a record's `additionalProperties`). */
const ANY_NAME = "<name>";

/**
 * Keys whose values are credentials by where they sit, whatever their name:
 * an MCP server's `headers.*` and `env.*` (which `/api/config` hides as
 * credentials, core/config/redact.ts).
 */
const CREDENTIAL_MAPS = new RegExp(`^mcp_servers\\.${ANY_NAME}\\.(?:headers|env)\\.${ANY_NAME}$`);

/** Keywords whose schemas describe the same value as their parent (so the same path). */
const SAME_VALUE = ["anyOf", "oneOf", "allOf"] as const;

/** True when the value at `path` is a secret: its key names one, or it sits in a credential map. */
function isSecretSchemaPath(path: readonly string[]): boolean {
  const dotted = path.join(".");
  return CREDENTIAL_MAPS.test(dotted) || (path.length > 0 && isSecretKey(dotted));
}

/** The node a local `$ref` (`#/$defs/<name>`) points at, or undefined. */
function resolveRef(document: JsonSchemaNode, ref: string): JsonSchemaNode | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) return undefined;
  const defs = document[match[1]] as Record<string, JsonSchemaNode> | undefined;
  return defs?.[match[2].replaceAll("~1", "/").replaceAll("~0", "~")];
}

/**
 * Marks `writeOnly`, in place, every string leaf of the JSON Schema
 * `document` whose key path is a secret: keys named like secrets
 * (`api_key`, `bot_token`, ...) and every MCP server's `headers.*` and
 * `env.*`. It descends into properties, records (`additionalProperties`,
 * whose key is any name), array items, `anyOf`/`oneOf`/`allOf` and local
 * `$ref`s (`#/$defs/...`; a definition is not entered again inside itself,
 * so recursive ones end).
 *
 * @example
 * ```ts
 * const document = { type: "object", properties: { model: { anyOf: [{ type: "object",
 *   properties: { api_key: { type: "string" } } }, { type: "null" }] } } };
 * markSecretValues(document); // document...anyOf[0].properties.api_key.writeOnly === true
 * ```
 */
export function markSecretValues(document: JsonSchemaNode): void {
  markSecrets(document, document, [], new Set());
}

function markSecrets(
  document: JsonSchemaNode,
  node: JsonSchemaNode,
  path: readonly string[],
  outer: ReadonlySet<JsonSchemaNode>,
): void {
  const ancestors = new Set([...outer, node]);
  const walk = (child: unknown, at: readonly string[]) => {
    if (child && typeof child === "object" && !ancestors.has(child as JsonSchemaNode)) {
      markSecrets(document, child as JsonSchemaNode, at, ancestors);
    }
  };
  for (const [key, child] of Object.entries(node.properties ?? {})) walk(child, [...path, key]);
  if (typeof node.additionalProperties === "object") {
    walk(node.additionalProperties, [...path, ANY_NAME]);
  }
  if (node.items) walk(node.items, path);
  if (Array.isArray(node.prefixItems)) { for (const item of node.prefixItems) walk(item, path); }
  for (const keyword of SAME_VALUE) {
    const options = node[keyword];
    if (Array.isArray(options)) { for (const option of options) walk(option, path); }
  }
  if (typeof node.$ref === "string") walk(resolveRef(document, node.$ref), path);
  if (holdsText(node) && isSecretSchemaPath(path)) node.writeOnly = true;
}

/** True when the node's `type` is `string`, or a list of types that has it. */
function holdsText(node: JsonSchemaNode): boolean {
  const type: unknown = node.type;
  return type === "string" || (Array.isArray(type) && type.includes("string"));
}

/** Freezes `value` and everything in it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

let built: JsonSchemaNode | undefined;

/**
 * The config schema as JSON Schema (draft 2020-12), built on first use and
 * shared (frozen: changing it throws): the input side (what a person
 * writes, so a key with a default is not required), with the schema's
 * types, bounds, defaults and descriptions, and the values that are
 * secrets marked `writeOnly`: keys named like secrets (they go to `.env`)
 * and every MCP server's `headers.*` and `env.*`.
 *
 * @example
 * ```ts
 * configJsonSchema().properties?.agent.properties?.max_turns; // { type: "integer", default: 90, ... }
 * ```
 */
export function configJsonSchema(): JsonSchemaNode {
  if (!built) {
    const document = z.toJSONSchema(ConfigSchema, { io: "input" }) as JsonSchemaNode;
    markSecretValues(document);
    built = deepFreeze(document);
  }
  return built;
}
