/**
 * Reading a request for the API server: the JSON body within the size cap,
 * checked against the endpoint's zod schema, with every mistake a 400 in
 * OpenAI's error shape naming the field; and the ids the answers carry.
 *
 * @module
 */

import type { z } from "zod";
import { readCappedBody } from "../../http/capped_body.ts";
import { ApiRequestError } from "./errors.ts";
import { MAX_API_BODY_BYTES } from "./settings.ts";

const TOO_LARGE =
  `The request body is larger than the ${MAX_API_BODY_BYTES} bytes this server accepts`;

/**
 * The request's body as JSON, read at most {@link MAX_API_BODY_BYTES}
 * bytes whatever the Content-Length says.
 *
 * @throws ApiRequestError 413 past the cap, 400 when it is not a JSON object.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const bytes = await readCappedBody(request, MAX_API_BODY_BYTES);
  if (bytes === null) throw new ApiRequestError(413, "body_too_large", TOO_LARGE);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    body = undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiRequestError(
      400,
      "invalid_request",
      "The request body must be a JSON object (Content-Type: application/json)",
    );
  }
  return body;
}

/** `path` as OpenAI names a field: `messages[0].content`. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (name, key) =>
      typeof key === "number"
        ? `${name}[${key}]`
        : name === ""
        ? String(key)
        : `${name}.${String(key)}`,
    "",
  );
}

/**
 * `body` checked against `schema`.
 *
 * @throws ApiRequestError 400 naming the first field at fault.
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = fieldName(issue.path);
  throw new ApiRequestError(
    400,
    "invalid_request",
    field === "" ? issue.message : `${field}: ${issue.message}`,
    field === "" ? null : field,
  );
}

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `ms` since the epoch as whole seconds, as OpenAI's `created` fields are. */
export function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
