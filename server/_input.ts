/**
 * Reading request input: JSON bodies, the zod schemas of common body
 * fields and numeric query parameters. Every mistake is a 400 in the error
 * envelope that names the field (a body over the size limit: 413).
 *
 * @module
 */

import type { Context } from "hono";
import { z } from "zod";
import { readCappedBody } from "../adapters/http/capped_body.ts";
import { ApiError } from "./errors.ts";
import { BODY_TOO_LARGE_MESSAGE, MAX_REQUEST_BODY_BYTES } from "./limits.ts";

type Body = Record<string, unknown>;

function bad(message: string): ApiError {
  return new ApiError(400, "bad_request", message);
}

/**
 * The request body as UTF-8 text, read at most {@link MAX_REQUEST_BODY_BYTES}
 * bytes whatever the Content-Length says (a chunked body has none).
 *
 * @throws ApiError 413 past the limit, 400 when the body is not UTF-8.
 */
async function bodyText(c: Context): Promise<string> {
  const bytes = await readCappedBody(c.req.raw, MAX_REQUEST_BODY_BYTES);
  if (bytes === null) throw new ApiError(413, "body_too_large", BODY_TOO_LARGE_MESSAGE);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw bad("The request body must be UTF-8 text");
  }
}

/**
 * The JSON object body; anything else (not JSON, not an object) is a 400,
 * and so is a request without a body unless `optional`, when it reads as `{}`.
 */
export async function jsonBody(
  c: Context,
  options: { optional?: boolean } = {},
): Promise<Body> {
  const text = await bodyText(c);
  if (options.optional && text.trim() === "") return {};
  return parseJsonObject(text);
}

function parseJsonObject(text: string): Body {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw bad("The request body must be a JSON object");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw bad("The request body must be a JSON object");
  }
  return body as Body;
}

/** A whole-number query parameter within bounds, or `fallback` when absent. */
export function intQuery(
  c: Context,
  name: string,
  fallback: number,
  bounds: { min: number; max: number },
): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw bad(`?${name} must be a whole number from ${bounds.min} to ${bounds.max}; got "${raw}"`);
  }
  return value;
}

function isPlainObject(value: unknown): value is Body {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A body field that is a JSON object, kept exactly as sent: nested values
 * untouched and own `__proto__` keys kept (`z.record` drops them, and a
 * key the config schema does not know must reach the use case to be named).
 */
export function jsonObjectField(message: string): z.ZodType<Body> {
  return z.custom<Body>(isPlainObject, { message });
}

/**
 * `schema` for an optional body field, with `null` read as absent.
 *
 * @example
 * ```ts
 * z.looseObject({ enabled: absentAsUndefined(z.boolean()) });
 * ```
 */
export function absentAsUndefined<T extends z.ZodType>(
  schema: T,
): z.ZodType<z.output<T> | undefined, z.input<T> | null | undefined> {
  return schema.nullish().transform((value) => value ?? undefined) as z.ZodType<
    z.output<T> | undefined,
    z.input<T> | null | undefined
  >;
}

/**
 * A required string field that must not be blank: `"name" is required` when
 * it is absent or not a string, `"name" must not be empty` when it is blank,
 * or `message` for both. With `trim`, the value comes back trimmed.
 *
 * @example
 * ```ts
 * z.looseObject({ name: requiredString("name", { trim: true }) });
 * ```
 */
export function requiredString(
  name: string,
  options: { message?: string; trim?: boolean } = {},
): z.ZodType<string, string> {
  const checked = z.string({ error: options.message ?? `"${name}" is required` }).refine(
    (value) => value.trim() !== "",
    options.message ?? `"${name}" must not be empty`,
  );
  return options.trim ? checked.transform((value) => value.trim()) : checked;
}

/** An optional field holding an object of string values (`{NAME: "value"}`); `null` reads as absent. */
export function stringRecord(
  name: string,
): z.ZodType<Record<string, string> | undefined, Record<string, string> | null | undefined> {
  return absentAsUndefined(
    z.record(z.string(), z.string(), { error: `"${name}" must be an object of string values` }),
  );
}
