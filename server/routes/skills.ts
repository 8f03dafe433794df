/**
 * `/api/skills` and `/api/bundles`: the profile's skills (from the skill
 * catalog; one with its SKILL.md) and its skill bundles (list, show,
 * create, update, delete), the same
 * files `herald skills` and `herald bundles` manage. The work is core's
 * (core/usecases/skills.ts, bundles.ts).
 *
 * @module
 */

import type { Context, Hono } from "hono";
import {
  BundleUpdate,
  createBundle,
  deleteBundle,
  listBundles,
  NewBundle,
  showBundle,
  updateBundle,
} from "../../core/usecases/bundles.ts";
import { listSkills, showSkill } from "../../core/usecases/skills.ts";
import { openSkillLibrary } from "../../adapters/skills/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedBody, scopedContext, scopedWrite } from "../profile_scope.ts";

/** `POST /api/bundles`: a new bundle, which may name the profile. */
const CreateBundleBody = NewBundle.loose();

/** `PUT /api/bundles/:name`: the bundle's new definition, which may name the profile. */
const UpdateBundleBody = BundleUpdate.loose();

/** Registers the skills routes. */
export function registerSkillsRoutes(app: Hono, deps: ServerDeps): void {
  const library = async (c: Context) => openSkillLibrary(await scopedContext(c, deps));

  app.get("/api/skills", async (c) => {
    const lib = await library(c);
    return c.json({ profile: lib.profile, ...await listSkills(lib, { all: true }) });
  });

  app.get("/api/skills/:name", async (c) => {
    const lib = await library(c);
    const { skill, warnings } = await showSkill(lib, c.req.param("name"));
    return c.json({ profile: lib.profile, skill, warnings });
  });

  app.get("/api/bundles", async (c) => {
    const lib = await library(c);
    return c.json({ profile: lib.profile, ...await listBundles(lib) });
  });

  app.get("/api/bundles/:name", async (c) => {
    const lib = await library(c);
    const { bundle } = await showBundle(lib, c.req.param("name"));
    return c.json({ profile: lib.profile, bundle });
  });

  app.post("/api/bundles", async (c) => {
    const { profile, body } = await scopedBody(c, deps, CreateBundleBody);
    const lib = openSkillLibrary(profile);
    const { replaced, bundle } = await createBundle(lib, body);
    return c.json({ ok: true, profile: lib.profile, replaced, bundle }, replaced ? 200 : 201);
  });

  app.put("/api/bundles/:name", async (c) => {
    const { profile, body } = await scopedBody(c, deps, UpdateBundleBody);
    const lib = openSkillLibrary(profile);
    const updated = await updateBundle(lib, c.req.param("name"), body);
    return c.json({ ok: true, profile: lib.profile, ...updated });
  });

  app.delete("/api/bundles/:name", async (c) => {
    const profile = await scopedWrite(c, deps);
    const lib = openSkillLibrary(profile);
    const { name, file } = await deleteBundle(lib, c.req.param("name"));
    return c.json({ ok: true, profile: lib.profile, deleted: name, file });
  });
}
