/**
 * Profile scoping for management endpoints: an optional `profile` in the
 * query string or, on writes, in the JSON body (the body wins). Without it
 * the unscoped behaviour applies (the pinned profile, else the default).
 * An unknown or invalid profile is a 404, never a 200 or 500.
 *
 * @module
 */

import type { Context } from "hono";
import { DEFAULT_PROFILE, parseProfileSelector } from "../core/profiles/mod.ts";
import { profileExists, type ProfilePaths, profilePaths } from "../adapters/home/mod.ts";
import type { ProfileContext } from "../core/usecases/ports.ts";
import { openProfileContext } from "../adapters/runtime/profile_context.ts";
import type { ServerDeps } from "./deps.ts";
import type { z } from "zod";
import { parseInput } from "../core/validation.ts";
import { jsonBody } from "./_input.ts";
import { ApiError } from "./errors.ts";

/** The `profile` a request names: the JSON body's field wins over the query string. */
function requestedProfile(c: Context, body?: unknown): string | undefined {
  const fromBody = body && typeof body === "object"
    ? (body as Record<string, unknown>).profile
    : undefined;
  if (typeof fromBody === "string" && fromBody.trim() !== "") return fromBody;
  const fromQuery = c.req.query("profile");
  return fromQuery && fromQuery.trim() !== "" ? fromQuery : undefined;
}

/**
 * The profile a request is scoped to.
 *
 * @throws ApiError 404 for a profile that does not exist (or that a pinned server does not serve).
 */
export async function scopedProfile(
  c: Context,
  deps: ServerDeps,
  body?: unknown,
): Promise<ProfilePaths> {
  const requested = requestedProfile(c, body);
  const fallback = deps.pinnedProfile ?? DEFAULT_PROFILE;
  let name: string;
  try {
    name = requested === undefined ? fallback : parseProfileSelector(requested);
  } catch {
    throw new ApiError(404, "profile_not_found", `Profile ${JSON.stringify(requested)} not found`);
  }
  if (deps.pinnedProfile && name !== deps.pinnedProfile) {
    throw new ApiError(
      404,
      "profile_not_found",
      `Profile "${name}" is not served here (this dashboard is pinned to "${deps.pinnedProfile}")`,
    );
  }
  const paths = profilePaths(deps.root, name);
  if (name !== DEFAULT_PROFILE && !(await profileExists(paths))) {
    throw new ApiError(404, "profile_not_found", `Profile "${name}" not found`);
  }
  return paths;
}

/**
 * The profile a request is scoped to, as the use cases in core/usecases/
 * take it (see {@link scopedProfile} for how it is chosen).
 *
 * @throws ApiError 404 for a profile that does not exist (or that a pinned server does not serve).
 */
export async function scopedContext(
  c: Context,
  deps: ServerDeps,
  body?: unknown,
): Promise<ProfileContext> {
  return openProfileContext(await scopedProfile(c, deps, body), deps.env);
}

/**
 * A write's profile and its JSON body checked by `schema`, in that order:
 * an unknown profile is a 404 whatever else the body holds, then a body
 * that does not fit is a 400 naming each field. With `optional`, a request
 * without a body is checked as `{}`.
 *
 * @example
 * ```ts
 * const { profile, body } = await scopedBody(c, deps, z.looseObject({ key: z.string() }));
 * ```
 */
export async function scopedBody<S extends z.ZodType>(
  c: Context,
  deps: ServerDeps,
  schema: S,
  options: { optional?: boolean } = {},
): Promise<{ profile: ProfileContext; body: z.output<S> }> {
  const raw = await jsonBody(c, options);
  const profile = await scopedContext(c, deps, raw);
  return { profile, body: parseInput(schema, raw, "The request body") };
}

/**
 * The profile of a write that needs nothing else from its body (a delete,
 * a check): the body is optional, and when sent it must be a JSON object,
 * whose `profile` field wins over the query string.
 *
 * @throws ApiError 404 for a profile that does not exist, 400 for a body that is not a JSON object.
 */
export async function scopedWrite(c: Context, deps: ServerDeps): Promise<ProfileContext> {
  return scopedContext(c, deps, await jsonBody(c, { optional: true }));
}
