/**
 * The skill catalog: what a surface needs to know about installed skills and
 * bundles. Core declares it; adapters/skills implements it by scanning a
 * profile home.
 *
 * @module
 */

import { isCommandSlug, slugify } from "./_slug.ts";
import { type SkillBundle, skillRefKey, uniqueSkillRefs } from "./bundles.ts";
import type { SkillDocument, SkillInfo } from "./skill.ts";

/** A file that was skipped while scanning, and why. */
export interface CatalogWarning {
  file: string;
  message: string;
}

/** The skills and bundles of a profile at one moment. */
export interface SkillCatalogSnapshot {
  /** Skills meant for this system, one per slug, sorted by slug. */
  skills: readonly SkillInfo[];
  /** Skills whose `platforms` exclude this system; not offered anywhere. */
  hidden: readonly SkillInfo[];
  /** Bundles, one per slug, sorted by slug. */
  bundles: readonly SkillBundle[];
  /** Broken or duplicate files that were skipped. */
  warnings: readonly CatalogWarning[];
}

/** Access to a profile's skills and bundles. Reading never throws for a broken file. */
export interface SkillCatalog {
  /** Scans the skills and bundles as they are now. */
  snapshot(): Promise<SkillCatalogSnapshot>;
  /**
   * Reads a skill's body and lists its supporting files.
   *
   * @throws when the skill's files cannot be read (for example deleted meanwhile).
   */
  read(skill: SkillInfo): Promise<SkillDocument>;
}

/**
 * The skill a reference names: by slug (`code_review` also finds
 * `code-review`), by name, or by folder path (`dev/code-review`).
 */
export function findSkill(skills: readonly SkillInfo[], ref: string): SkillInfo | undefined {
  const key = skillRefKey(ref);
  if (key === "") return undefined;
  if (key.includes("/")) return skills.find((skill) => skill.relDir.toLowerCase() === key);
  return skills.find((skill) => skill.slug === key);
}

/** The bundle a typed name resolves to (`my_bundle` also finds `my-bundle`). */
export function findBundle(
  bundles: readonly SkillBundle[],
  name: string,
): SkillBundle | undefined {
  const slug = slugify(name);
  return slug === "" ? undefined : bundles.find((bundle) => bundle.slug === slug);
}

/** How a bundle's references resolve against the installed skills. */
export interface BundleResolution {
  /** Skills to load, each once, in the bundle's order. */
  skills: SkillInfo[];
  /** References that match no installed skill. */
  missing: string[];
  /** References to skills meant for another operating system. */
  unavailable: string[];
}

/** Resolves a bundle's skill references; a skill listed twice is loaded once. */
export function resolveBundle(
  bundle: Pick<SkillBundle, "skills">,
  snapshot: Pick<SkillCatalogSnapshot, "skills" | "hidden">,
): BundleResolution {
  const result: BundleResolution = { skills: [], missing: [], unavailable: [] };
  const loaded = new Set<string>();
  for (const ref of uniqueSkillRefs(bundle)) {
    const skill = findSkill(snapshot.skills, ref);
    if (skill) {
      if (!loaded.has(skill.slug)) result.skills.push(skill);
      loaded.add(skill.slug);
    } else if (findSkill(snapshot.hidden, ref)) {
      result.unavailable.push(ref);
    } else {
      result.missing.push(ref);
    }
  }
  return result;
}

/** Why a skill is not offered as `/<slug>`, or undefined when it is. */
export function slashConflict(
  skill: Pick<SkillInfo, "slug">,
  builtinNames: ReadonlySet<string>,
  bundles: readonly Pick<SkillBundle, "slug">[],
): string | undefined {
  if (builtinNames.has(skill.slug)) {
    return `slash command /${skill.slug} unavailable: the name is taken by a built-in command`;
  }
  if (bundles.some((bundle) => bundle.slug === skill.slug)) {
    return `/${skill.slug} opens the bundle of the same name (bundles win)`;
  }
  if (!isCommandSlug(skill.slug)) {
    return `no slash command: "${skill.slug}" does not start with a letter`;
  }
  return undefined;
}
