/**
 * The REST client: every call carries the session token and the selected
 * profile, and every failure arrives as an {@link ApiError} with the
 * server's code and message (`{"error": {code, message, details}}`).
 */

import { token } from "./token.ts";
import { tokenRefused } from "./auth_state.ts";
import { currentProfile } from "./profile.ts";

/** A failed API call, carrying what the server said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** Options of one call. */
export interface ApiOptions {
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** The profile to act on; defaults to the selected one. `null` sends none. */
  profile?: string | null;
  signal?: AbortSignal;
}

/** The URL of an API path with the selected profile (and `query`) applied. */
export function apiUrl(path: string, options: Pick<ApiOptions, "query" | "profile"> = {}): string {
  const url = new URL(path, location.origin);
  const profile = options.profile === undefined ? currentProfile() : options.profile;
  if (profile) url.searchParams.set("profile", profile);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.pathname + url.search;
}

/**
 * Calls the API and returns the parsed JSON answer.
 *
 * @example
 * const sessions = await api<{ sessions: Session[] }>("GET", "/api/sessions", { query: { limit: 50 } });
 */
export async function api<T>(method: string, path: string, options: ApiOptions = {}): Promise<T> {
  const headers: Record<string, string> = { "X-Herald-Session-Token": token };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options), {
      method,
      headers,
      body,
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(
      0,
      "unreachable",
      "The dashboard server did not answer. Is `herald dashboard` still running?",
    );
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: reported below when the status is an error.
  }
  if (!response.ok) {
    if (response.status === 401) tokenRefused();
    const error =
      (parsed as { error?: { code?: string; message?: string; details?: Record<string, unknown> } })
        ?.error;
    throw new ApiError(
      response.status,
      error?.code ?? `http_${response.status}`,
      error?.message ?? `${method} ${path} answered ${response.status}`,
      error?.details ?? {},
    );
  }
  return parsed as T;
}

/** The message to show for any error thrown by a call. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
