/**
 * Checking input against a zod schema, the same way on every surface: a
 * JSON-RPC method's params, an API request body, a channel's command. The
 * message names each field that does not fit and says why.
 *
 * @module
 */

import type { z } from "zod";
import { HeraldError } from "./errors.ts";

/** The issues of a failed parse as one line: `field: why; other.field: why`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`)
    .join("; ");
}

/** Input that does not fit its schema (a `usage` error: HTTP 400, exit 2). */
export class InvalidInputError extends HeraldError {
  /** Creates the error; `what` names the input, for example `The request body`. */
  constructor(what: string, issues: string) {
    super("bad_request", "usage", `${what} is not valid: ${issues}`, {
      details: { issues },
    });
  }
}

/**
 * `value` parsed by `schema`.
 *
 * @throws InvalidInputError naming every field that does not fit.
 *
 * @example
 * ```ts
 * const body = parseInput(z.object({ key: z.string() }), await c.req.json(), "The request body");
 * ```
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidInputError(what, describeIssues(parsed.error));
  return parsed.data;
}
