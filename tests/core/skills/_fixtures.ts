/**
 * In-memory skills and an in-memory catalog for the pure skill tests.
 *
 * @module
 */

import type {
  SkillBundle,
  SkillCatalog,
  SkillCatalogSnapshot,
  SkillDocument,
  SkillInfo,
} from "../../../core/skills/mod.ts";

/** A skill at `/h/skills/<relDir>` with the given fields. */
export function skill(slug: string, extra: Partial<SkillInfo> = {}): SkillInfo {
  const relDir = extra.relDir ?? slug;
  return {
    slug,
    name: slug,
    description: `The ${slug} skill`,
    dir: `/h/skills/${relDir}`,
    file: `/h/skills/${relDir}/SKILL.md`,
    relDir,
    metadata: {},
    ...extra,
  };
}

/** A bundle file `/h/skill-bundles/<slug>.yaml`. */
export function bundle(
  slug: string,
  skills: string[],
  extra: Partial<SkillBundle> = {},
): SkillBundle {
  return {
    slug,
    name: slug,
    description: `The ${slug} bundle`,
    skills,
    file: `/h/skill-bundles/${slug}.yaml`,
    ...extra,
  };
}

/** A catalog over fixed data; each skill's body is `BODY OF <slug>`. */
export function memoryCatalog(snapshot: Partial<SkillCatalogSnapshot>): SkillCatalog {
  const full: SkillCatalogSnapshot = {
    skills: [],
    hidden: [],
    bundles: [],
    warnings: [],
    ...snapshot,
  };
  return {
    snapshot: () => Promise.resolve(full),
    read: (info: SkillInfo): Promise<SkillDocument> =>
      Promise.resolve({ skill: info, body: `BODY OF ${info.slug}\n`, files: [] }),
  };
}
