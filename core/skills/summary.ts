/**
 * A bundle as the surfaces show it (`herald bundles --json`, `/api/bundles`):
 * its fields, which of its skills load and which are missing.
 *
 * @module
 */

import { bundleLabel, type SkillBundle } from "./bundles.ts";
import { resolveBundle, type SkillCatalogSnapshot } from "./catalog.ts";
import type { SkillInfo } from "./skill.ts";

/** What a surface shows for one bundle. */
export interface BundleSummary {
  name: string;
  slug: string;
  command: string;
  description: string;
  /** Autocomplete label: `<description> (N skills)`. */
  label: string;
  skills: readonly string[];
  loaded: string[];
  missing: string[];
  unavailable: string[];
  instruction: string | null;
  file: string;
  /** Set when a built-in command shadows the bundle. */
  note: string | null;
}

/** Summarises `bundle` against the installed skills; `builtins` are the built-in command names. */
export function summarizeBundle(
  bundle: SkillBundle,
  snapshot: SkillCatalogSnapshot,
  builtins: ReadonlySet<string>,
): BundleSummary {
  const resolution = resolveBundle(bundle, snapshot);
  return {
    name: bundle.name,
    slug: bundle.slug,
    command: `/${bundle.slug}`,
    description: bundle.description,
    label: bundleLabel(bundle),
    skills: bundle.skills,
    loaded: resolution.skills.map((skill) => skill.slug),
    missing: resolution.missing,
    unavailable: resolution.unavailable,
    instruction: bundle.instruction ?? null,
    file: bundle.file,
    note: builtins.has(bundle.slug)
      ? `/${bundle.slug} is a built-in command; this bundle cannot be invoked`
      : null,
  };
}

/** The descriptive fields every surface shows for a skill. */
export interface SkillFields {
  name: string;
  slug: string;
  description: string;
  category: string | null;
  version: string | null;
  platforms: string[] | null;
}

/** The descriptive fields of `skill`, with absent ones as null. */
export function skillFields(skill: SkillInfo): SkillFields {
  return {
    name: skill.name,
    slug: skill.slug,
    description: skill.description,
    category: skill.category ?? null,
    version: skill.version ?? null,
    platforms: skill.platforms ? [...skill.platforms] : null,
  };
}
