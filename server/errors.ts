/**
 * The one place where errors become HTTP responses. Every error body has the
 * same envelope: `{ "error": { "code": "...", "message": "..." } }`.
 *
 * @module
 */

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  ConfigKeyError,
  ConfigParseError,
  ConfigValueError,
  FileLockTimeoutError,
  HeraldError,
  NotFoundError,
  ProfileNameError,
  ProfileNotFoundError,
  ValueTooLargeError,
} from "../core/errors.ts";

/** An error with an HTTP status and a machine-readable code, thrown by route handlers. */
export class ApiError extends Error {
  /** Creates the error. */
  constructor(readonly status: ContentfulStatusCode, readonly code: string, message: string) {
    super(message);
    this.name = "ApiError";
  }
}

/** A JSON error response in the common envelope. */
export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
): Response {
  return c.json({ error: { code, message } }, status);
}

function statusOf(error: HeraldError): ContentfulStatusCode {
  if (error instanceof ProfileNotFoundError || error instanceof NotFoundError) return 404;
  if (error instanceof ProfileNameError) return 404;
  if (error instanceof ConfigParseError) return 422;
  if (error instanceof FileLockTimeoutError) return 503;
  if (error instanceof ConfigKeyError || error instanceof ConfigValueError) return 400;
  if (error instanceof ValueTooLargeError) return 413;
  return error.kind === "usage" ? 400 : 500;
}

/** Hono's onError handler: known errors keep their status and code; others are 500. */
export function handleError(error: Error, c: Context): Response {
  if (error instanceof ApiError) return errorResponse(c, error.status, error.code, error.message);
  if (error instanceof HeraldError) {
    return errorResponse(c, statusOf(error), error.code, error.message);
  }
  if (error instanceof HTTPException) {
    return errorResponse(c, error.status as ContentfulStatusCode, "http_error", error.message);
  }
  return errorResponse(c, 500, "internal_error", error.message || "internal error");
}
