/**
 * The skills installed in a profile, as far as profiles need to know them
 * (name and description), read through the same catalog the chat uses.
 *
 * @module
 */

import type { ProfileSkill } from "../../core/profiles/mod.ts";
import { createSkillCatalog } from "../skills/mod.ts";

/**
 * The skills offered in the profile at `home`, sorted by name; a profile
 * without a skills folder has none. Broken skill files are skipped.
 *
 * @example
 * ```ts
 * const skills = await listInstalledSkills(paths.home);
 * ```
 */
export async function listInstalledSkills(home: string): Promise<ProfileSkill[]> {
  const { skills } = await createSkillCatalog(home).snapshot();
  return skills
    .map((skill) => ({ name: skill.name, description: skill.description }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
