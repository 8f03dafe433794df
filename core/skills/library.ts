/**
 * What the skill files of a profile report back when they are changed:
 * bundled-skill seeding, opting out and resetting, and saved bundles. Declared here so
 * the use cases (core/usecases/skills.ts, bundles.ts) can speak of them;
 * adapters/skills produces them.
 *
 * @module
 */

/** What seeding the bundled skills did, by skill name. */
export interface SeedReport {
  /** True when the profile has opted out (`.no-bundled-skills`); nothing was seeded. */
  optedOut: boolean;
  /** New bundled skills copied into the profile. */
  added: string[];
  /** Unmodified copies replaced by a newer bundled version. */
  updated: string[];
  /** Copies the user changed; left alone. */
  keptModified: string[];
  /** Bundled skills the user deleted; not re-added. */
  skippedDeleted: string[];
  /** Bundled skills not seeded because the profile opted out. */
  skippedOptedOut: string[];
  /** Same-named skills the user made themselves; kept, ours not copied. */
  keptUserOwned: string[];
  /** Copies already identical to the bundled version. */
  unchanged: string[];
  /** Skills that could not be copied (the reason is in `notes`); tried again next time. */
  failed: string[];
  /** One line per thing a person should know (kept user skills, failures). */
  notes: string[];
}

/** How a tracked bundled skill compares with the copy Herald seeded. */
export type TrackedSkillState = "unmodified" | "modified" | "deleted";

/** A bundled skill tracked in a profile, as found on disk now. */
export interface TrackedSkill {
  name: string;
  /** Where the copy lives (it may be gone). */
  dir: string;
  /** The hash recorded when it was seeded. */
  originHash: string;
  /** `unmodified`: byte-identical to its origin; `modified`: changed by the user; `deleted`: gone. */
  state: TrackedSkillState;
}

/** What saving a bundle wrote. */
export interface SavedBundle {
  slug: string;
  file: string;
  /** True when an existing bundle was replaced. */
  replaced: boolean;
}

/** What rewriting an existing bundle wrote. */
export interface RewrittenBundle {
  /** The bundle's slug now. */
  slug: string;
  /** The file that holds it now. */
  file: string;
  /** The slug it had before when the new name moved it to another file (the old file is gone). */
  renamedFrom: string | null;
}

/**
 * How a profile's copy of one bundled skill stands against the version this
 * Herald ships:
 *
 * - `current`: identical to the bundled version;
 * - `outdated`: unchanged since it was seeded, but the bundled version is newer;
 * - `modified`: changed by the user since it was seeded;
 * - `deleted`: seeded, then deleted by the user (seeding never re-adds it);
 * - `missing`: never seeded (the profile opted out, for example) and not there;
 * - `user_owned`: a skill of the user's own by the same name, not seeded by Herald.
 */
export type BundledSkillState =
  | "current"
  | "outdated"
  | "modified"
  | "deleted"
  | "missing"
  | "user_owned";

/** One bundled skill as found in a profile. */
export interface BundledSkillStatus {
  /** The bundled skill's name (its folder name). */
  name: string;
  /** Where the profile's copy is (or goes when restored). */
  dir: string;
  state: BundledSkillState;
}
