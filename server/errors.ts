/**
 * The one place where errors become HTTP responses. Every error body has the
 * same envelope: `{ "error": { "code": "...", "message": "...", "details": {...} } }`,
 * `details` present when the error carries any.
 *
 * @module
 */

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type ErrorDetails, type ErrorKind, HeraldError } from "../core/errors.ts";

/** An error with an HTTP status and a machine-readable code, thrown by route handlers. */
export class ApiError extends Error {
  /** Creates the error. */
  constructor(readonly status: ContentfulStatusCode, readonly code: string, message: string) {
    super(message);
    this.name = "ApiError";
  }
}

/** The HTTP status of each {@link ErrorKind}: the whole error-to-status mapping. */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, ContentfulStatusCode>> = {
  usage: 400,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  parse: 422,
  unavailable: 503,
  state: 500,
  internal: 500,
};

/**
 * Kinds whose details are also spread beside `code` and `message`: a 422
 * has always carried `file`, `line`, `column` and `reason` there, and
 * clients read them.
 */
const FLAT_DETAILS: ReadonlySet<ErrorKind> = new Set(["parse"]);

/** A JSON error response in the common envelope; `details` only when there are some. */
export function errorResponse(
  c: Context,
  status: ContentfulStatusCode,
  code: string,
  message: string,
  details?: ErrorDetails,
): Response {
  const hasDetails = details !== undefined && Object.keys(details).length > 0;
  return c.json({ error: { code, message, ...(hasDetails ? { details } : {}) } }, status);
}

function heraldErrorResponse(c: Context, error: HeraldError): Response {
  const { code, message, details, kind } = error;
  const status = STATUS_OF_KIND[kind];
  if (!FLAT_DETAILS.has(kind) || Object.keys(details).length === 0) {
    return errorResponse(c, status, code, message, details);
  }
  return c.json({ error: { ...details, code, message, details } }, status);
}

/** Hono's onError handler: known errors keep their status and code; others are 500. */
export function handleError(error: Error, c: Context): Response {
  if (error instanceof ApiError) return errorResponse(c, error.status, error.code, error.message);
  if (error instanceof HeraldError) return heraldErrorResponse(c, error);
  if (error instanceof HTTPException) {
    return errorResponse(c, error.status as ContentfulStatusCode, "http_error", error.message);
  }
  return errorResponse(c, 500, "internal_error", error.message || "internal error");
}
