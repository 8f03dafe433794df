/**
 * The shapes the Settings page reads from the REST API, as far as it reads
 * them (the server's views live in core/usecases; docs/dashboard.md lists
 * the endpoints).
 *
 * @module
 */

/** A problem in config.yaml that did not stop it loading. */
export interface ConfigWarning {
  path: string;
  message: string;
}

/** `GET /api/config`. */
export interface ConfigView {
  profile: string;
  file: string;
  config: Record<string, unknown>;
  warnings: ConfigWarning[];
}

/** `PUT /api/config`. */
export interface ConfigSaved {
  changed: string[];
  removed: string[];
  /** `.env` variables the edit stored secrets in. */
  secrets: string[];
  config: Record<string, unknown>;
  warnings: ConfigWarning[];
}

/** `GET /api/config/raw`. */
export interface RawConfig {
  file: string;
  text: string;
  redacted: string[];
  version: string;
}

/** `PUT /api/config/raw`. */
export interface RawConfigSaved {
  version: string;
  warnings: ConfigWarning[];
}

/** One node of `GET /api/config/schema` (JSON Schema, as far as the form reads it). */
export interface JsonSchema {
  type?: string;
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
  writeOnly?: boolean;
}

/** Where the key of an endpoint comes from; never the key. */
export interface CredentialView {
  env: string | null;
  present: boolean;
  source: "config" | "env_file" | "environment" | null;
  required: boolean;
}

/** `GET /api/model/info`. */
export interface ModelInfo {
  provider: string | null;
  provider_label: string | null;
  model: string | null;
  base_url: string | null;
  base_url_source: "config" | "provider_default" | null;
  credential: CredentialView;
  ready: boolean;
  problem: string | null;
}

/** One provider of `GET /api/model/options`. */
export interface ProviderOption {
  id: string;
  label: string;
  base_url: string | null;
  needs_base_url: boolean;
  key_env: string;
  keyless: boolean;
  key_present: boolean;
  current: boolean;
}

/** `GET /api/model/options`. */
export interface ModelOptions {
  current: { provider: string | null; model: string | null };
  providers: ProviderOption[];
}

/** One slot of `GET /api/model/auxiliary`. */
export interface AuxiliarySlot {
  task: string;
  configured: {
    provider: string | null;
    model: string | null;
    base_url: string | null;
    timeout: number | null;
    api_key_set: boolean;
  };
  resolved: { provider: string; model: string; base_url: string | null } | null;
  fallback: boolean;
  ready: boolean;
  note: string | null;
}

/** `POST /api/model/set`. */
export interface ModelSaved {
  provider: string | null;
  model: string | null;
  changed: string[];
  cleared: string[];
  secrets: string[];
}

/** One `.env` variable as listed: a redacted preview, never the value. */
export interface EnvVariable {
  name: string;
  preview: string;
  used_by: string[];
}

/** `GET /api/env`. */
export interface EnvList {
  file: string;
  variables: EnvVariable[];
  warnings: { line: number; message: string }[];
}

/** One configured MCP server (secrets hidden). */
export interface McpServer {
  name: string;
  transport: "stdio" | "http";
  command: string | null;
  args: string[];
  url: string | null;
  env: Record<string, string>;
  headers: Record<string, string>;
  timeout: number;
  enabled: boolean;
}

/** `POST /api/mcp/servers/:name/test`. */
export type McpTestResult =
  & { name: string; transport: string }
  & (
    | {
      ok: true;
      protocol_version: string;
      serverInfo: { name?: string; version?: string; title?: string };
      capabilities: Record<string, unknown>;
      elapsed_ms: number;
    }
    | { ok: false; error: { code: string; message: string }; stderr_tail?: string }
  );

/** One entry of `GET /api/mcp/catalog`. */
export interface McpCatalogEntry {
  name: string;
  label: string;
  description: string;
  command: string;
  args: string[];
  params: { name: string; description: string; required: boolean }[];
  requires: string;
  homepage: string;
  installed: boolean;
}

/** One variable a messaging platform reads: whether it is set, never its value. */
export interface PlatformEnv {
  name: string;
  label: string;
  required: boolean;
  hint: string;
  set: boolean;
  source: "env_file" | "environment" | null;
}

/** One platform of `GET /api/messaging/platforms`. */
export interface Platform {
  id: string;
  label: string;
  description: string;
  docs_url: string;
  env: PlatformEnv[];
  configured: boolean;
  well_formed: boolean;
  enabled: boolean;
}

/** `POST /api/messaging/platforms/:platform/test`. */
export type PlatformTest =
  & { platform: string; note: string }
  & (
    | { ok: true }
    | { ok: false; missing: string[]; malformed: { name: string; message: string }[] }
  );
