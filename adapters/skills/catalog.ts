/**
 * The skill catalog of a profile home, read from disk: skills under
 * `skills/[<category>/]<name>/SKILL.md` and bundles in
 * `skill-bundles/*.yaml`. Every call rescans, so edits show up at once; a
 * broken file is a warning and is skipped, never an exception.
 *
 * @module
 */

import { join } from "node:path";
import {
  type CatalogWarning,
  parseBundle,
  parseSkill,
  platformOf,
  SKILL_FILE,
  type SkillBundle,
  type SkillCatalog,
  type SkillCatalogSnapshot,
  type SkillDocument,
  type SkillInfo,
  skillRunsOn,
} from "../../core/skills/mod.ts";
import { entryIsDirectory, isFile, listFiles, readDirSorted } from "./_fs.ts";

/** The skills folder of a profile home. */
export function skillsDir(home: string): string {
  return join(home, "skills");
}

/** The bundles folder of a profile home. */
export function bundlesDir(home: string): string {
  return join(home, "skill-bundles");
}

/** Options of {@link createSkillCatalog}. */
export interface SkillCatalogOptions {
  /** Platform skills are filtered for (`linux`, `macos`, `windows`); defaults to this system. */
  platform?: string;
  /** Told about each distinct broken or duplicate file once per catalog. */
  onWarning?: (warning: CatalogWarning) => void;
}

/** What a skills scan found. */
export interface SkillScan {
  skills: SkillInfo[];
  hidden: SkillInfo[];
  warnings: CatalogWarning[];
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function readSkillAt(
  dir: string,
  relDir: string,
  category: string | undefined,
  found: SkillInfo[],
  warnings: CatalogWarning[],
): Promise<void> {
  const file = join(dir, SKILL_FILE);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    warnings.push({ file, message: `cannot be read: ${message(error)}` });
    return;
  }
  const parsed = parseSkill(text, { dir, file, relDir, ...(category ? { category } : {}) });
  if (parsed.ok) found.push(parsed.skill);
  else warnings.push({ file, message: `skipped: ${parsed.message}` });
}

/**
 * Scans a skills folder: `<name>/SKILL.md` and `<category>/<name>/SKILL.md`.
 * Hidden folders are skipped. Skills for another platform go to `hidden`;
 * of two skills with the same slug the first by folder path is kept.
 */
export async function scanSkills(root: string, platform: string): Promise<SkillScan> {
  const found: SkillInfo[] = [];
  const warnings: CatalogWarning[] = [];
  let top: Deno.DirEntry[];
  try {
    top = await readDirSorted(root);
  } catch (error) {
    return { skills: [], hidden: [], warnings: [{ file: root, message: message(error) }] };
  }
  for (const entry of top) {
    if (entry.name.startsWith(".") || !(await entryIsDirectory(root, entry))) continue;
    const dir = join(root, entry.name);
    if (await isFile(join(dir, SKILL_FILE))) {
      await readSkillAt(dir, entry.name, undefined, found, warnings);
      continue;
    }
    let inner: Deno.DirEntry[] = [];
    try {
      inner = await readDirSorted(dir);
    } catch (error) {
      warnings.push({ file: dir, message: `cannot be read: ${message(error)}` });
    }
    for (const child of inner) {
      if (child.name.startsWith(".") || !(await entryIsDirectory(dir, child))) continue;
      const skillDir = join(dir, child.name);
      if (!(await isFile(join(skillDir, SKILL_FILE)))) continue;
      await readSkillAt(skillDir, `${entry.name}/${child.name}`, entry.name, found, warnings);
    }
  }
  const skills: SkillInfo[] = [];
  const hidden: SkillInfo[] = [];
  const bySlug = new Map<string, SkillInfo>();
  for (const skill of found) {
    if (!skillRunsOn(skill, platform)) {
      hidden.push(skill);
      continue;
    }
    const first = bySlug.get(skill.slug);
    if (first) {
      warnings.push({
        file: skill.file,
        message: `skipped: another skill is also called /${skill.slug} (${first.file} is used)`,
      });
      continue;
    }
    bySlug.set(skill.slug, skill);
    skills.push(skill);
  }
  skills.sort((a, b) => a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
  return { skills, hidden, warnings };
}

/**
 * Loads every `*.yaml` and `*.yml` file of a bundles folder, sorted by file
 * name. A broken file and a repeated slug are warnings; never throws.
 */
export async function loadBundles(
  dir: string,
): Promise<{ bundles: SkillBundle[]; warnings: CatalogWarning[] }> {
  const bundles: SkillBundle[] = [];
  const warnings: CatalogWarning[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await readDirSorted(dir);
  } catch (error) {
    return { bundles, warnings: [{ file: dir, message: `cannot be read: ${message(error)}` }] };
  }
  const bySlug = new Map<string, SkillBundle>();
  for (const entry of entries) {
    if (entry.name.startsWith(".") || !/\.ya?ml$/i.test(entry.name)) continue;
    const file = join(dir, entry.name);
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (error) {
      warnings.push({ file, message: `bundle skipped: cannot be read: ${message(error)}` });
      continue;
    }
    const parsed = parseBundle(text, file);
    if (!parsed.ok) {
      warnings.push({ file, message: `bundle skipped: ${parsed.message}` });
      continue;
    }
    const first = bySlug.get(parsed.bundle.slug);
    if (first) {
      warnings.push({
        file,
        message: `bundle skipped: /${parsed.bundle.slug} is already defined by ${first.file}`,
      });
      continue;
    }
    bySlug.set(parsed.bundle.slug, parsed.bundle);
    bundles.push(parsed.bundle);
  }
  bundles.sort((a, b) => a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
  return { bundles, warnings };
}

/** Reads a skill's body and lists its supporting files (at most 200). */
export async function readSkillDocument(skill: SkillInfo): Promise<SkillDocument> {
  const parsed = parseSkill(await Deno.readTextFile(skill.file), skill);
  if (!parsed.ok) throw new Error(`${skill.file}: ${parsed.message}`);
  const files = (await listFiles(skill.dir, { skipHidden: true, limit: 201 }))
    .filter((file) => file !== SKILL_FILE).slice(0, 200);
  return { skill, body: parsed.body, files };
}

/**
 * The catalog of the profile at `home`.
 *
 * @example
 * ```ts
 * const catalog = createSkillCatalog(paths.home, { onWarning: (w) => console.warn(w.file, w.message) });
 * const { skills, bundles } = await catalog.snapshot();
 * ```
 */
export function createSkillCatalog(home: string, options: SkillCatalogOptions = {}): SkillCatalog {
  const platform = options.platform ?? platformOf(Deno.build.os);
  const told = new Set<string>();
  return {
    async snapshot(): Promise<SkillCatalogSnapshot> {
      const [scan, loaded] = await Promise.all([
        scanSkills(skillsDir(home), platform),
        loadBundles(bundlesDir(home)),
      ]);
      const warnings = [...scan.warnings, ...loaded.warnings];
      if (options.onWarning) {
        for (const warning of warnings) {
          const key = `${warning.file}\0${warning.message}`;
          if (told.has(key)) continue;
          told.add(key);
          options.onWarning(warning);
        }
      }
      return { skills: scan.skills, hidden: scan.hidden, bundles: loaded.bundles, warnings };
    },
    read: readSkillDocument,
  };
}
