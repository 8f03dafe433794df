/**
 * Errors in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`,
 * so the official SDKs raise them as the matching `APIError` subclass. One
 * table maps Herald's error kinds to statuses; a secret never reaches a
 * message (the key is never put in one).
 *
 * @module
 */

import { HeraldError, ModelError } from "../../../core/errors.ts";

/** The `error` object of an OpenAI error body. */
export interface OpenAiErrorObject {
  message: string;
  /** `invalid_request_error`, `authentication_error`, `not_found_error`, `server_error`, ... */
  type: string;
  /** The request field at fault, when one is. */
  param: string | null;
  /** Machine-readable code (`invalid_api_key`, `unsupported_content_type`, ...). */
  code: string | null;
}

/** A request the server answers with an error status in OpenAI's shape. */
export class ApiRequestError extends Error {
  /** Creates the error; `param` names the request field at fault. */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = "ApiRequestError";
  }

  /** The OpenAI error type of {@link status}. */
  get type(): string {
    return errorType(this.status);
  }
}

function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "invalid_request_error";
  if (status === 429) return "rate_limit_error";
  if (status < 500) return "invalid_request_error";
  return "server_error";
}

const KIND_STATUS: Record<HeraldError["kind"], number> = {
  usage: 400,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  parse: 400,
  unavailable: 503,
  state: 500,
  internal: 500,
};

/**
 * The status and error object for anything a handler threw: an
 * {@link ApiRequestError} as it is, a model failure as 502 (the model
 * behind the agent failed, not the request), another Herald error by its
 * kind, anything else as a 500 that says only that the server failed.
 */
export function toOpenAiError(error: unknown): { status: number; error: OpenAiErrorObject } {
  if (error instanceof ApiRequestError) {
    return {
      status: error.status,
      error: { message: error.message, type: error.type, param: error.param, code: error.code },
    };
  }
  if (error instanceof ModelError) {
    return {
      status: 502,
      error: { message: error.message, type: "server_error", param: null, code: error.code },
    };
  }
  if (error instanceof HeraldError) {
    const status = KIND_STATUS[error.kind];
    return {
      status,
      error: { message: error.message, type: errorType(status), param: null, code: error.code },
    };
  }
  return {
    status: 500,
    error: {
      message: "The server failed to answer; see the gateway's log",
      type: "server_error",
      param: null,
      code: "internal_error",
    },
  };
}

/** A JSON response in OpenAI's error shape for `error`. */
export function errorResponse(error: unknown): Response {
  const { status, error: body } = toOpenAiError(error);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="herald"';
  return new Response(JSON.stringify({ error: body }), { status, headers });
}
