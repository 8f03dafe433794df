/**
 * The API server's settings: whether it is on, its bearer key, where it
 * listens and the model name it answers as. Each comes from the profile's
 * environment (`.env`, then the process environment) first, then from
 * `platforms.api_server` in config.yaml, then from a default.
 *
 * | what | env | config.yaml | default |
 * | --- | --- | --- | --- |
 * | enabled | `API_SERVER_ENABLED=true` | `platforms.api_server.enabled` | off |
 * | bearer key | `API_SERVER_KEY` | (never: a secret lives in `.env`) | required |
 * | host | `API_SERVER_HOST` | `platforms.api_server.host` | `127.0.0.1` |
 * | port | `API_SERVER_PORT` | `platforms.api_server.port` | `8642` (0: any free port) |
 * | model name | `API_SERVER_MODEL_NAME` | `platforms.api_server.model_name` | `herald` (default profile), `herald-<profile>` |
 *
 * @module
 */

import { platformEnabled } from "../../../core/messaging/platforms.ts";
import type { EnvLookup } from "../../../core/config/load.ts";
import { HeraldError } from "../../../core/errors.ts";

/** The platform id. */
export const API_SERVER_ID = "api_server";

/** Where the server listens unless told otherwise: loopback only. */
export const DEFAULT_API_SERVER_HOST = "127.0.0.1";

/** The port the server listens on unless told otherwise. */
export const DEFAULT_API_SERVER_PORT = 8642;

/**
 * The largest request body the server reads, in bytes (4 MiB): room for a
 * long chat history sent as JSON. A larger body is answered 413 (a larger
 * Content-Length before anything is read).
 */
export const MAX_API_BODY_BYTES = 4 * 1024 * 1024;

/** The settings the server runs with. */
export interface ApiServerSettings {
  /** The bearer key every request must carry (never printed or logged). */
  key: string;
  host: string;
  /** The port to listen on; 0 lets the system pick a free one. */
  port: number;
  /** The one model `GET /v1/models` lists and every answer names. */
  modelName: string;
}

function text(value: unknown): string | undefined {
  if (typeof value === "number") return String(value);
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** True for `true`, `1`, `yes`, `on` (any case). */
/**
 * Whether the API server is enabled for a profile: `API_SERVER_ENABLED`
 * (`true`, `1`, `yes`, `on`) in its environment, or
 * `platforms.api_server.enabled: true` in its config.yaml.
 *
 * @example
 * ```ts
 * apiServerEnabled((name) => ({ API_SERVER_ENABLED: "true" })[name], {}); // true
 * ```
 */
export function apiServerEnabled(
  env: EnvLookup,
  settings: Readonly<Record<string, unknown>>,
): boolean {
  return platformEnabled(API_SERVER_ID, env, settings);
}

/**
 * The model name the server answers as for `profile`: `herald` for the
 * default profile, `herald-<profile>` for a named one.
 */
export function defaultModelName(profile: string): string {
  return profile === "default" ? "herald" : `herald-${profile}`;
}

function parsePort(raw: string, source: string): number {
  const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(port) || port > 65535) {
    throw new HeraldError(
      "platform_not_configured",
      "usage",
      `${source} "${raw}" is not a port; give a number from 0 to 65535 (0 picks a free port)`,
      { details: { platform: API_SERVER_ID, setting: source } },
    );
  }
  return port;
}

/**
 * Reads the server's settings for `profile`.
 *
 * @throws HeraldError `platform_not_configured` when `API_SERVER_KEY` is
 * missing (it is required even on loopback) or the port is not a number.
 */
export function readApiServerSettings(
  profile: string,
  env: EnvLookup,
  settings: Readonly<Record<string, unknown>>,
): ApiServerSettings {
  const key = env("API_SERVER_KEY");
  if (key === undefined || key.trim() === "") {
    throw new HeraldError(
      "platform_not_configured",
      "usage",
      "The API server needs a key, even on loopback: set API_SERVER_KEY in the profile's .env " +
        "(clients send it as `Authorization: Bearer <key>`)",
      { details: { platform: API_SERVER_ID, missing: "API_SERVER_KEY" } },
    );
  }
  const envPort = text(env("API_SERVER_PORT"));
  const configPort = text(settings.port);
  const port = envPort !== undefined
    ? parsePort(envPort, "API_SERVER_PORT")
    : configPort !== undefined
    ? parsePort(configPort, "platforms.api_server.port")
    : DEFAULT_API_SERVER_PORT;
  return {
    key: key.trim(),
    host: text(env("API_SERVER_HOST")) ?? text(settings.host) ?? DEFAULT_API_SERVER_HOST,
    port,
    modelName: text(env("API_SERVER_MODEL_NAME")) ?? text(settings.model_name) ??
      defaultModelName(profile),
  };
}
