/**
 * The JSON views of skills and bundles: what `herald skills ... --json`,
 * `herald bundles ... --json`, `/api/skills` and `/api/bundles` print. One
 * view per noun, shared by every surface, keys in snake_case.
 *
 * @example
 * ```ts
 * const snapshot = await catalog.snapshot();
 * const view = bundleView(snapshot.bundles[0], snapshot, createSlashRegistry().names());
 * view.missing; // skills the bundle names that are not installed
 * ```
 *
 * @module
 */

import { bundleLabel, type SkillBundle } from "./bundles.ts";
import { resolveBundle, type SkillCatalogSnapshot, slashConflict } from "./catalog.ts";
import type { SeedReport, TrackedSkillState } from "./library.ts";
import type { SkillDocument, SkillInfo } from "./skill.ts";

/** What a surface shows for one bundle. */
export interface BundleView {
  name: string;
  slug: string;
  command: string;
  description: string;
  /** Autocomplete label: `<description> (N skills)`. */
  label: string;
  skills: readonly string[];
  /** Slugs of the skills it loads, each once, in the bundle's order. */
  loaded: string[];
  /** References that match no installed skill (skipped when the bundle is used). */
  missing: string[];
  /** References to skills meant for another operating system (skipped here). */
  unavailable: string[];
  instruction: string | null;
  file: string;
  /** Set when a built-in command shadows the bundle. */
  note: string | null;
}

/**
 * The view of `bundle`, resolved against the installed skills; `builtins`
 * are the names of the built-in slash commands.
 */
export function bundleView(
  bundle: SkillBundle,
  snapshot: Pick<SkillCatalogSnapshot, "skills" | "hidden">,
  builtins: ReadonlySet<string>,
): BundleView {
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

/** Where a skill came from: a bundled skill as seeded, one the user changed, or the user's own. */
export type SkillOrigin = "bundled" | "bundled-modified" | "user";

/** One skill as the surfaces list it. */
export interface SkillView extends SkillFields {
  /** Folder relative to `skills/`, with `/`: `<category>/<name>` or `<name>`. */
  path: string;
  /** Absolute path of the skill folder. */
  dir: string;
  /** `/<slug>` when it works as a slash command, else null. */
  command: string | null;
  /** True when the skill is meant for this operating system. */
  available: boolean;
  origin: SkillOrigin;
  /** Why it is not a slash command (or not offered here), else null. */
  note: string | null;
}

/** One skill with its instructions and supporting files (`skills show`). */
export interface SkillDetailView extends SkillView {
  /** Absolute path of its `SKILL.md`. */
  file: string;
  /** Supporting files, relative to the skill folder. */
  files: string[];
  /** The whole frontmatter. */
  metadata: Record<string, unknown>;
  /** The Markdown instructions. */
  body: string;
}

/** What a skill's view depends on besides the skill. */
export interface SkillViewContext {
  /** False for a skill meant for another operating system. */
  available: boolean;
  /** Names of the built-in slash commands (they win over a skill). */
  builtins: ReadonlySet<string>;
  /** The profile's bundles (a bundle of the same name wins over a skill). */
  bundles: readonly Pick<SkillBundle, "slug">[];
  /** The state of the skill when it is a tracked bundled skill. */
  tracked?: TrackedSkillState;
}

/** The view of `skill`. */
export function skillView(skill: SkillInfo, context: SkillViewContext): SkillView {
  const conflict = context.available
    ? slashConflict(skill, context.builtins, context.bundles)
    : `only for ${skill.platforms?.join(", ")}; hidden here`;
  return {
    ...skillFields(skill),
    path: skill.relDir,
    dir: skill.dir,
    command: context.available && !conflict ? `/${skill.slug}` : null,
    available: context.available,
    origin: context.tracked === "unmodified"
      ? "bundled"
      : context.tracked === "modified"
      ? "bundled-modified"
      : "user",
    note: conflict ?? null,
  };
}

/** The view of a skill with its instructions and files. */
export function skillDetailView(
  document: SkillDocument,
  context: SkillViewContext,
): SkillDetailView {
  const { skill } = document;
  return {
    ...skillView(skill, context),
    file: skill.file,
    files: document.files,
    metadata: skill.metadata,
    body: document.body,
  };
}

/** What seeding the bundled skills did, as `--json` prints it (snake_case). */
export interface SeedReportView {
  opted_out: boolean;
  added: string[];
  updated: string[];
  kept_modified: string[];
  skipped_deleted: string[];
  skipped_opted_out: string[];
  kept_user_owned: string[];
  unchanged: string[];
  failed: string[];
  notes: string[];
}

/** The JSON view of a {@link SeedReport}. */
export function seedReportView(report: SeedReport): SeedReportView {
  return {
    opted_out: report.optedOut,
    added: report.added,
    updated: report.updated,
    kept_modified: report.keptModified,
    skipped_deleted: report.skippedDeleted,
    skipped_opted_out: report.skippedOptedOut,
    kept_user_owned: report.keptUserOwned,
    unchanged: report.unchanged,
    failed: report.failed,
    notes: report.notes,
  };
}
