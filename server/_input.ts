/**
 * Reading request input: optional JSON bodies, typed body fields and
 * numeric query parameters. Every mistake is a 400 in the error envelope
 * that names the field.
 *
 * @module
 */

import type { Context } from "hono";
import { z } from "zod";
import { parseInput } from "../core/validation.ts";
import { ApiError } from "./errors.ts";
import { MAX_REQUEST_BODY_BYTES } from "./limits.ts";

type Body = Record<string, unknown>;

function bad(message: string): ApiError {
  return new ApiError(400, "bad_request", message);
}

function tooLarge(): ApiError {
  return new ApiError(
    413,
    "body_too_large",
    `The request body is larger than the ${MAX_REQUEST_BODY_BYTES} bytes this dashboard accepts`,
  );
}

/**
 * The request body as UTF-8 text, read at most {@link MAX_REQUEST_BODY_BYTES}
 * bytes whatever the Content-Length says (a chunked body has none).
 *
 * @throws ApiError 413 past the limit, 400 when the body is not UTF-8.
 */
export async function bodyText(c: Context): Promise<string> {
  const stream = c.req.raw.body;
  if (stream === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > MAX_REQUEST_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw bad("The request body must be UTF-8 text");
  }
}

/** A JSON object body, or `{}` when the request has none. */
export async function optionalJsonBody(c: Context): Promise<Body> {
  const text = await bodyText(c);
  if (text.trim() === "") return {};
  return parseJsonObject(text);
}

/** A JSON object body; anything else (none, not JSON, not an object) is a 400. */
export async function jsonBody(c: Context): Promise<Body> {
  return parseJsonObject(await bodyText(c));
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

/** A string field; `required` makes a missing or blank one a 400. */
export function stringField(body: Body, key: string, required: true): string;
export function stringField(body: Body, key: string, required?: false): string | undefined;
export function stringField(body: Body, key: string, required = false): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) {
    if (required) throw bad(`"${key}" is required`);
    return undefined;
  }
  if (typeof value !== "string") throw bad(`"${key}" must be a string`);
  if (required && value.trim() === "") throw bad(`"${key}" must not be empty`);
  return value;
}

/** A boolean field, or undefined when absent. */
export function booleanField(body: Body, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw bad(`"${key}" must be true or false`);
  return value;
}

/** A finite number field, or undefined when absent. */
export function numberField(body: Body, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw bad(`"${key}" must be a number`);
  return value;
}

/** An array-of-strings field, or undefined when absent. */
export function stringArrayField(body: Body, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw bad(`"${key}" must be a list of strings`);
  }
  return value as string[];
}

/** An object-of-strings field (`{NAME: "value"}`), or undefined when absent. */
export function stringRecordField(body: Body, key: string): Record<string, string> | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== "object" || Array.isArray(value) ||
    Object.values(value).some((item) => typeof item !== "string")
  ) {
    throw bad(`"${key}" must be an object of string values`);
  }
  return value as Record<string, string>;
}

/** An object field, or undefined when absent. */
export function objectField(body: Body, key: string): Body | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw bad(`"${key}" must be an object`);
  return value as Body;
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

/**
 * The JSON body checked by `schema` (a zod object schema): a body that is
 * missing, not a JSON object or does not fit is a 400 naming each field.
 * With `optional`, a request without a body is checked as `{}`.
 *
 * @example
 * ```ts
 * const body = await parseBody(c, z.object({ key: z.string(), value: z.string() }));
 * ```
 */
export async function parseBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  options: { optional?: boolean } = {},
): Promise<z.output<S>> {
  const body = options.optional ? await optionalJsonBody(c) : await jsonBody(c);
  return parseInput(schema, body, "The request body");
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
 * `schema` for an optional body field, with `null` read as absent (as
 * the field readers above always have).
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
