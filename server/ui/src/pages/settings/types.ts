/**
 * The answers of the Settings page's endpoints that core does not declare
 * (the server builds them in its routes); every other shape is imported
 * from core (core/usecases, core/config).
 *
 * @module
 */

import type { ConfigWarning } from "../../../../../core/config/load.ts";
import type { JsonSchemaNode } from "../../../../../core/config/json_schema.ts";

/** `PUT /api/config` (server/routes/config.ts). */
export interface ConfigSaved {
  profile: string;
  file: string;
  changed: string[];
  removed: string[];
  /** `.env` variables the edit stored secrets in. */
  secrets: string[];
  config: Record<string, unknown>;
  warnings: ConfigWarning[];
}

/**
 * One node of `GET /api/config/schema`: core's node with the standard
 * keywords the form reads typed.
 */
export interface JsonSchema extends JsonSchemaNode {
  description?: string;
  default?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** `POST /api/mcp/servers/:name/test` (server/routes/mcp.ts). */
export type McpTestResult =
  & { profile: string; name: string; transport: string }
  & (
    | {
      ok: true;
      protocol_version: string;
      serverInfo: { name?: string; version?: string; title?: string };
      capabilities: Record<string, unknown>;
      elapsed_ms: number;
      /** The tools it lists, each with the name the model calls it by. */
      tools?: { name: string; model_name: string; description?: string }[];
      tools_error?: string;
    }
    | { ok: false; error: { code: string; message: string }; stderr_tail?: string }
  );
