/**
 * `/api/skills` and `/api/bundles`: the profile's skills (from the skill
 * catalog) and its skill bundles (list, show, create, delete), the same
 * files `herald skills` and `herald bundles` manage.
 *
 * @module
 */

import type { Hono } from "hono";
import { createSlashRegistry } from "../../core/commands/mod.ts";
import {
  BundleNotFoundError,
  findBundle,
  skillFields,
  type SkillInfo,
  summarizeBundle,
} from "../../core/skills/mod.ts";
import {
  bundlesDir,
  createSkillCatalog,
  deleteBundle,
  saveBundle,
} from "../../adapters/skills/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { scopedProfile } from "../profile_scope.ts";
import {
  booleanField,
  jsonBody,
  optionalJsonBody,
  stringArrayField,
  stringField,
} from "../_input.ts";

function skillView(skill: SkillInfo, available: boolean) {
  return {
    ...skillFields(skill),
    command: `/${skill.slug}`,
    path: skill.relDir,
    available,
  };
}

/** Registers the skills routes. */
export function registerSkillsRoutes(app: Hono, deps: ServerDeps): void {
  const builtins = () => createSlashRegistry().names();

  app.get("/api/skills", async (c) => {
    const paths = await scopedProfile(c, deps);
    const snapshot = await createSkillCatalog(paths.home).snapshot();
    return c.json({
      profile: paths.name,
      skills: [
        ...snapshot.skills.map((skill) => skillView(skill, true)),
        ...snapshot.hidden.map((skill) => skillView(skill, false)),
      ],
      warnings: snapshot.warnings,
    });
  });

  app.get("/api/bundles", async (c) => {
    const paths = await scopedProfile(c, deps);
    const snapshot = await createSkillCatalog(paths.home).snapshot();
    const names = builtins();
    return c.json({
      profile: paths.name,
      bundles: snapshot.bundles.map((bundle) => summarizeBundle(bundle, snapshot, names)),
      warnings: snapshot.warnings.filter((w) => w.file.startsWith(bundlesDir(paths.home))),
    });
  });

  app.get("/api/bundles/:name", async (c) => {
    const paths = await scopedProfile(c, deps);
    const name = c.req.param("name");
    const snapshot = await createSkillCatalog(paths.home).snapshot();
    const bundle = findBundle(snapshot.bundles, name);
    if (!bundle) throw new BundleNotFoundError(name, bundlesDir(paths.home));
    return c.json({ profile: paths.name, bundle: summarizeBundle(bundle, snapshot, builtins()) });
  });

  app.post("/api/bundles", async (c) => {
    const body = await jsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const name = stringField(body, "name", true);
    const skills = stringArrayField(body, "skills") ?? [];
    const saved = await saveBundle(paths.home, {
      name,
      skills,
      description: stringField(body, "description"),
      instruction: stringField(body, "instruction"),
    }, { force: booleanField(body, "force") ?? false });
    const snapshot = await createSkillCatalog(paths.home).snapshot();
    const bundle = findBundle(snapshot.bundles, saved.slug);
    return c.json({
      ok: true,
      profile: paths.name,
      replaced: saved.replaced,
      bundle: bundle
        ? summarizeBundle(bundle, snapshot, builtins())
        : { slug: saved.slug, file: saved.file },
    }, saved.replaced ? 200 : 201);
  });

  app.delete("/api/bundles/:name", async (c) => {
    const body = await optionalJsonBody(c);
    const paths = await scopedProfile(c, deps, body);
    const name = c.req.param("name");
    const file = await deleteBundle(paths.home, name);
    return c.json({ ok: true, profile: paths.name, deleted: name, file });
  });
}
