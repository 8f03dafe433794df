/**
 * The port of a profile's skills and bundles, as the skill and bundle use
 * cases (core/usecases/skills.ts, bundles.ts) see them: the catalog, the
 * bundled skills Herald seeds and the opt-out marker, and the bundle files.
 * `adapters/skills/library.ts` implements it over a profile home.
 *
 * @module
 */

import type {
  BundledSkillStatus,
  BundleInput,
  RewrittenBundle,
  SavedBundle,
  SeedReport,
  SkillCatalogSnapshot,
  SkillDocument,
  SkillInfo,
  TrackedSkill,
} from "../skills/mod.ts";

/** One profile's skills and skill bundles. */
export interface SkillLibrary {
  /** The profile's name (`default` for the root home). */
  readonly profile: string;
  /** The `skills/` folder. */
  readonly skillsDir: string;
  /** The `skill-bundles/` folder. */
  readonly bundlesDir: string;
  /** The opt-out marker (`.no-bundled-skills`); while it exists nothing is seeded. */
  readonly optOutMarker: string;
  /** The skills and bundles as they are now; broken files are warnings, never errors. */
  snapshot(): Promise<SkillCatalogSnapshot>;
  /** A skill's instructions and supporting files. */
  readSkill(skill: SkillInfo): Promise<SkillDocument>;
  /** The bundled skills recorded as seeded, with their state on disk now, sorted by name. */
  trackedSkills(): Promise<TrackedSkill[]>;
  /**
   * Deletes those of `names` that are unmodified bundled skills and forgets
   * them (so opting in again re-adds them). Returns the names removed.
   */
  removeBundledSkills(names: readonly string[]): Promise<string[]>;
  /** True while the opt-out marker exists. */
  isOptedOut(): Promise<boolean>;
  /** Writes the opt-out marker; true when it was not there before. */
  writeOptOut(): Promise<boolean>;
  /** Removes the opt-out marker; true when it was there. */
  removeOptOut(): Promise<boolean>;
  /** Seeds the bundled skills (nothing while opted out). */
  seedBundled(): Promise<SeedReport>;
  /** The names of the bundled skills this Herald ships, sorted. */
  bundledSkillNames(): Promise<string[]>;
  /** How the profile's copy of bundled skill `name` stands; undefined when none has that name. */
  bundledSkillStatus(name: string): Promise<BundledSkillStatus | undefined>;
  /**
   * Puts the bundled version of `name` into the profile, replacing any copy,
   * and records it as seeded; undefined when no bundled skill has that name.
   */
  restoreBundledSkill(name: string): Promise<{ name: string; dir: string } | undefined>;
  /**
   * Writes a bundle file.
   *
   * @throws BundleInvalidError for a name without letters or digits, or no skills.
   * @throws BundleExistsError when the bundle exists and `force` is not set.
   */
  saveBundle(input: BundleInput, options: { force: boolean }): Promise<SavedBundle>;
  /**
   * Rewrites the existing bundle `name` with `input`, moving it to another
   * file when the new name has another slug. The old bundle is looked up,
   * and the new name checked, inside the locks of both slugs, so requests
   * at once end as if one ran after the other.
   *
   * @throws BundleInvalidError for a name without letters or digits, or no skills.
   * @throws BundleNotFoundError naming `shownDir` when no bundle is named `name`.
   * @throws BundleExistsError when the new name is another bundle's.
   */
  updateBundle(name: string, input: BundleInput, shownDir: string): Promise<RewrittenBundle>;
  /**
   * Deletes the file of bundle `name`, even a broken one; returns the file.
   *
   * @throws BundleNotFoundError naming `shownDir` when no file defines it.
   */
  deleteBundle(name: string, shownDir: string): Promise<string>;
}
