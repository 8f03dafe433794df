/**
 * `/api/profiles`: the profiles of this Herald home with their
 * descriptions (list, create or clone, a person's description, a generated
 * one), the same work and the same JSON as `herald profile list|create|
 * describe --json`. The work is core's (core/usecases/profiles.ts).
 *
 * A pinned dashboard (`--isolated`) lists only its profile, answers 404 for
 * any other and refuses to create one (403 `profile_pinned`).
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { z } from "zod";
import { describeProfile, listProfiles, newProfile } from "../../core/usecases/profiles.ts";
import { openProfileHome } from "../../adapters/home/mod.ts";
import { parseInput } from "../../core/validation.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { absentAsUndefined, jsonBody, requiredString } from "../_input.ts";
import { scopedProfile } from "../profile_scope.ts";

/**
 * `POST /api/profiles`: a new profile, fresh or cloned from another. Only
 * the types are checked here; core checks the name, the description and
 * which clone options go together.
 */
const CreateProfileBody = z.looseObject({
  name: requiredString("name", { trim: true }),
  description: absentAsUndefined(z.string({ error: '"description" must be a string' })),
  clone_from: absentAsUndefined(requiredString("clone_from", { trim: true })),
  clone_mode: absentAsUndefined(
    z.enum(["config", "all"], { error: '"clone_mode" must be "config" or "all"' }),
  ),
  clone_channels: absentAsUndefined(
    z.boolean({ error: '"clone_channels" must be true or false' }),
  ),
  bundled_skills: absentAsUndefined(
    z.boolean({ error: '"bundled_skills" must be true or false' }),
  ),
});

/** `PATCH /api/profiles/:name`: a description a person wrote ("" clears it). */
const DescriptionBody = z.looseObject({
  description: z.string({ error: '"description" (a string) is required' }),
});

/** `POST /api/profiles/:name/describe`: whether to replace a description a person wrote. */
const DescribeBody = z.looseObject({
  overwrite: absentAsUndefined(z.boolean({ error: '"overwrite" must be true or false' })),
});

/** Registers the profiles routes. */
export function registerProfilesRoutes(app: Hono, deps: ServerDeps): void {
  const home = openProfileHome(deps.root, deps.env);
  /** The profile named in the path, checked as a scoped request's (404 when not served). */
  const named = async (c: Context) =>
    (await scopedProfile(c, deps, { profile: c.req.param("name") })).name;

  app.get("/api/profiles", async (c) => {
    const selected = (await scopedProfile(c, deps)).name;
    return c.json({
      profile: selected,
      pinned_profile: deps.pinnedProfile ?? null,
      profiles: await listProfiles(home, { active: selected, only: deps.pinnedProfile }),
    });
  });

  app.post("/api/profiles", async (c) => {
    const raw = await jsonBody(c);
    if (deps.pinnedProfile) {
      throw new ApiError(
        403,
        "profile_pinned",
        `This dashboard serves only profile "${deps.pinnedProfile}" (--isolated); create ` +
          "profiles with `herald profile create <name>` or from a dashboard started without --isolated",
      );
    }
    const selected = (await scopedProfile(c, deps, raw)).name;
    const body = parseInput(CreateProfileBody, raw, "The request body");
    const created = await newProfile(home, body.name, {
      description: body.description,
      bundledSkills: body.bundled_skills,
      active: selected,
      cloneFrom: body.clone_from,
      cloneMode: body.clone_mode,
      cloneChannels: body.clone_channels,
    });
    return c.json(created, 201);
  });

  app.patch("/api/profiles/:name", async (c) => {
    const name = await named(c);
    const { description } = parseInput(DescriptionBody, await jsonBody(c), "The request body");
    return c.json(await describeProfile(home, name, { mode: "set", text: description }));
  });

  app.post("/api/profiles/:name/describe", async (c) => {
    const name = await named(c);
    const raw = await jsonBody(c, { optional: true });
    const { overwrite } = parseInput(DescribeBody, raw, "The request body");
    return c.json(
      await describeProfile(home, name, { mode: "auto", overwrite: overwrite ?? false }),
    );
  });
}
