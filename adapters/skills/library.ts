/**
 * A profile's skills and bundles on disk, as core's {@link SkillLibrary}
 * port: the catalog, the bundled-skill seeding and opt-out marker, and the
 * bundle files. The skill and bundle use cases (core/usecases/skills.ts,
 * bundles.ts) run over it.
 *
 * @module
 */

import { join } from "node:path";
import type { SkillLibrary } from "../../core/usecases/ports_skills.ts";
import { deleteBundle, saveBundle, updateBundle } from "./bundle_files.ts";
import { bundlesDir, createSkillCatalog, readSkillDocument, skillsDir } from "./catalog.ts";
import {
  bundledSkillNames,
  bundledSkillStatus,
  isOptedOut,
  OPT_OUT_MARKER,
  removeOptOutMarker,
  removeUnmodifiedBundledSkills,
  restoreBundledSkill,
  seedBundledSkills,
  trackedSkills,
  writeOptOutMarker,
} from "./seed.ts";

/**
 * The skills and bundles of the profile `name` whose home is `home` (a
 * profile context or the profile's paths will do). Cheap to open:
 * nothing is read until a use case asks; every snapshot rescans.
 *
 * @example
 * ```ts
 * const library = openSkillLibrary(await ctx.profileContext());
 * const { skills } = await listSkills(library, { all: false });
 * ```
 */
export function openSkillLibrary(profile: { name: string; home: string }): SkillLibrary {
  const { home } = profile;
  const catalog = createSkillCatalog(home);
  return {
    profile: profile.name,
    skillsDir: skillsDir(home),
    bundlesDir: bundlesDir(home),
    optOutMarker: join(home, OPT_OUT_MARKER),
    snapshot: () => catalog.snapshot(),
    readSkill: readSkillDocument,
    trackedSkills: () => trackedSkills(home),
    removeBundledSkills: (names) => removeUnmodifiedBundledSkills(home, names),
    isOptedOut: () => isOptedOut(home),
    writeOptOut: () => writeOptOutMarker(home),
    removeOptOut: () => removeOptOutMarker(home),
    seedBundled: () => seedBundledSkills(home),
    bundledSkillNames: () => bundledSkillNames(),
    bundledSkillStatus: (name) => bundledSkillStatus(home, name),
    restoreBundledSkill: (name) => restoreBundledSkill(home, name),
    saveBundle: (input, options) => saveBundle(home, input, options),
    updateBundle: (name, input, shownDir) => updateBundle(home, name, input, shownDir),
    deleteBundle: (name, shownDir) => deleteBundle(home, name, shownDir),
  };
}
