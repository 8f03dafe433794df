/**
 * The skills installed in a profile, as far as profiles need to know them:
 * every `SKILL.md` under `skills/` (at any depth) with the name and description of its
 * frontmatter. Hidden folders (`.archive`, `.hub`, ...) are skipped, and the
 * folders inside a skill are not searched for more skills.
 *
 * @module
 */

import { basename, join } from "node:path";
import { parseSkillFrontmatter, type ProfileSkill } from "../../core/profiles/mod.ts";

const MAX_DEPTH = 4;

/**
 * The skills under `skillsDir`, sorted by name; a missing folder has none.
 * A skill without a frontmatter name is named after its folder.
 *
 * @example
 * ```ts
 * const skills = await listInstalledSkills(paths.skills);
 * ```
 */
export async function listInstalledSkills(skillsDir: string): Promise<ProfileSkill[]> {
  const skills: ProfileSkill[] = [];
  await walk(skillsDir, 0, skills);
  return skills.sort((a, b) => a.name.localeCompare(b.name));
}

async function walk(dir: string, depth: number, into: ProfileSkill[]): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return;
    }
    throw error;
  }
  if (depth > 0 && entries.some((entry) => entry.isFile && entry.name === "SKILL.md")) {
    const text = await Deno.readTextFile(join(dir, "SKILL.md")).catch(() => "");
    const front = parseSkillFrontmatter(text);
    into.push({ name: front.name ?? basename(dir), description: front.description ?? "" });
    return;
  }
  if (depth >= MAX_DEPTH) return;
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory || (entry.isSymlink && (await isDirectory(path)))) {
      await walk(path, depth + 1, into);
    }
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
