/**
 * What the skill files of a profile report back when they are changed:
 * bundled-skill seeding and opting out, and saved bundles. Declared here so
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
