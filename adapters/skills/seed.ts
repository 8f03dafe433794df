/**
 * Bundled skills: the skills that ship with Herald (in `bundled/` beside
 * this file) and their seeding into a profile's `skills/` folder.
 *
 * The manifest `skills/.bundled_manifest` records, per bundled skill, the
 * hash of the copy we last wrote (its origin hash). A copy whose hash still
 * equals that record is ours to update; one that differs was changed by the
 * user and is never overwritten; one recorded but gone was deleted by the
 * user and is never re-added. While `<home>/.no-bundled-skills` exists,
 * nothing is seeded.
 *
 * `skills/.bundled_set` records the hash of the whole bundled set last seeded
 * without a failure. {@link syncBundledSkills} (run each time a profile is
 * used) seeds when it differs: a profile never seeded, or one seeded by an
 * older release, whose unmodified bundled skills then update.
 * {@link restoreBundledSkill} brings one bundled skill back on request
 * (`herald skills reset`).
 *
 * Seeding and removal run under the lock of the manifest
 * (`skills/.bundled_manifest.lock`, see withFileLock), re-reading it inside,
 * so two processes seeding the same profile never lose each other's records.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BundledSkillStatus, SeedReport, TrackedSkill } from "../../core/skills/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { readTextOrEmpty } from "../fs/read.ts";
import { entryIsDirectory, isDirectory, isFile, listFiles, readDirSorted } from "./_fs.ts";
import { skillsDir } from "./catalog.ts";

/** The marker file in a profile home that turns bundled-skill seeding off. */
export const OPT_OUT_MARKER = ".no-bundled-skills";

/** The manifest file inside `skills/`. */
export const MANIFEST_FILE = ".bundled_manifest";

/** The file inside `skills/` holding the hash of the bundled set last seeded in full. */
export const SEEDED_SET_FILE = ".bundled_set";

/**
 * Where the bundled skills ship: `adapters/skills/bundled/<category>/<name>/SKILL.md`
 * beside this module (a compiled binary needs `--include adapters/skills/bundled`).
 */
export function bundledSkillsDir(): string {
  return fileURLToPath(new URL("./bundled/", import.meta.url));
}

export type { BundledSkillStatus, SeedReport, TrackedSkill } from "../../core/skills/mod.ts";

const MANIFEST_HEADER =
  "# Bundled skills seeded by Herald: <name>:<sha256 of the copy as seeded>\n";

/** One skill of a bundled set. */
export interface BundledSkill {
  /** Folder name, also the manifest key. */
  name: string;
  /** Folder relative to the set's root, with `/`: `<category>/<name>`. */
  relDir: string;
  /** Absolute folder path. */
  dir: string;
}

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * SHA-256 of a skill folder: over its files in sorted relative-path order,
 * each as its path, a NUL, its byte length, a NUL and its bytes. Caches and
 * OS litter (`.DS_Store`, `__pycache__`, `*.pyc`) are ignored.
 */
export async function hashSkillDir(dir: string): Promise<string> {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const rel of await listFiles(dir)) {
    const bytes = await Deno.readFile(join(dir, rel));
    chunks.push(encoder.encode(`${rel}\0${bytes.length}\0`), bytes);
  }
  const total = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    total.set(chunk, offset);
    offset += chunk.length;
  }
  return hex(await crypto.subtle.digest("SHA-256", total));
}

/** The skills of a bundled set: `<root>/<category>/<name>/SKILL.md` (or `<root>/<name>/SKILL.md`). */
export async function listBundledSkills(
  root: string = bundledSkillsDir(),
): Promise<BundledSkill[]> {
  const skills: BundledSkill[] = [];
  for (const entry of await readDirSorted(root)) {
    if (entry.name.startsWith(".") || !(await entryIsDirectory(root, entry))) continue;
    const dir = join(root, entry.name);
    if (await isFile(join(dir, "SKILL.md"))) {
      skills.push({ name: entry.name, relDir: entry.name, dir });
      continue;
    }
    for (const child of await readDirSorted(dir)) {
      const skillDir = join(dir, child.name);
      if (child.name.startsWith(".") || !(await isFile(join(skillDir, "SKILL.md")))) continue;
      skills.push({ name: child.name, relDir: `${entry.name}/${child.name}`, dir: skillDir });
    }
  }
  return skills;
}

/** The manifest of a profile: skill name to origin hash. A missing file is empty. */
export async function readManifest(home: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  let text = "";
  try {
    text = await Deno.readTextFile(manifestPath(home));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const colon = line.lastIndexOf(":");
    if (colon <= 0) continue;
    entries.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return entries;
}

function manifestPath(home: string): string {
  return join(skillsDir(home), MANIFEST_FILE);
}

/**
 * Runs `fn` under the manifest's lock (creating `skills/` for the lock file).
 * Read the manifest inside `fn` and write it with {@link writeManifestHeld}.
 */
async function withManifestLock<T>(home: string, fn: () => Promise<T>): Promise<T> {
  await Deno.mkdir(skillsDir(home), { recursive: true, mode: 0o700 });
  return withFileLock(manifestPath(home), fn);
}

/** Replaces the manifest atomically, sorted by name, under its lock. */
export function writeManifest(home: string, entries: Map<string, string>): Promise<void> {
  return withManifestLock(home, () => writeManifestHeld(home, entries));
}

/** Writes the manifest atomically, sorted by name; the caller holds the manifest lock. */
async function writeManifestHeld(home: string, entries: Map<string, string>): Promise<void> {
  const lines = [...entries].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([name, hash]) => `${name}:${hash}\n`);
  await writeFileAtomic(manifestPath(home), MANIFEST_HEADER + lines.join(""), { mode: 0o600 });
}

/** True while the profile at `home` has opted out of bundled skills. */
export function isOptedOut(home: string): Promise<boolean> {
  return isFile(join(home, OPT_OUT_MARKER));
}

/** Writes the opt-out marker; true when it was not there before. */
export async function writeOptOutMarker(home: string): Promise<boolean> {
  const path = join(home, OPT_OUT_MARKER);
  if (await isFile(path)) return false;
  await Deno.mkdir(home, { recursive: true, mode: 0o700 });
  await writeFileAtomic(
    path,
    "Bundled skills are not seeded into this profile. Remove this file or run `herald skills opt-in`.\n",
  );
  return true;
}

/**
 * Removes the opt-out marker; true when it was there. It also forgets which
 * bundled set was seeded, so the next use of the profile seeds again.
 */
export async function removeOptOutMarker(home: string): Promise<boolean> {
  try {
    await Deno.remove(join(home, OPT_OUT_MARKER));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  await Deno.remove(join(skillsDir(home), SEEDED_SET_FILE)).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  return true;
}

function suffix(): string {
  return crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
}

/**
 * The permission bits of a seeded copy of a bundled file whose `stat` gave
 * `mode`: its own bits, or 0o644 when it has none. A compiled binary's
 * embedded files report mode 0 (and Windows none), which copied as they are
 * would make the skill unreadable.
 */
export function seededFileMode(mode: number | null): number {
  const bits = (mode ?? 0) & 0o777;
  return bits === 0 ? 0o644 : bits;
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true, mode: 0o700 });
  for (const rel of await listFiles(from)) {
    const target = join(to, rel);
    await Deno.mkdir(dirname(target), { recursive: true, mode: 0o700 });
    const source = join(from, rel);
    await Deno.writeFile(target, await Deno.readFile(source), {
      mode: seededFileMode((await Deno.stat(source)).mode),
    });
  }
}

/**
 * Puts a copy of `from` at `to`: built in a hidden folder beside it, then
 * renamed into place (an existing folder is moved aside first and removed
 * after), so a reader never sees half a skill.
 */
async function installCopy(from: string, to: string): Promise<void> {
  const parent = dirname(to);
  await Deno.mkdir(parent, { recursive: true, mode: 0o700 });
  const name = to.slice(parent.length + 1);
  const staging = join(parent, `.${name}.seed-${suffix()}`);
  const aside = join(parent, `.${name}.old-${suffix()}`);
  try {
    await copyTree(from, staging);
    const replacing = await isDirectory(to);
    if (replacing) await Deno.rename(to, aside);
    try {
      await Deno.rename(staging, to);
    } catch (error) {
      if (replacing) await Deno.rename(aside, to).catch(() => {});
      throw error;
    }
    if (replacing) await Deno.remove(aside, { recursive: true });
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

/** Every skill folder name under a skills root (`<name>` and `<category>/<name>`), lowercase. */
async function localSkillNames(root: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const entry of await readDirSorted(root)) {
    if (entry.name.startsWith(".") || !(await entryIsDirectory(root, entry))) continue;
    const dir = join(root, entry.name);
    if (await isFile(join(dir, "SKILL.md"))) {
      if (!names.has(entry.name.toLowerCase())) names.set(entry.name.toLowerCase(), dir);
      continue;
    }
    for (const child of await readDirSorted(dir)) {
      const skillDir = join(dir, child.name);
      if (child.name.startsWith(".") || !(await isFile(join(skillDir, "SKILL.md")))) continue;
      if (!names.has(child.name.toLowerCase())) names.set(child.name.toLowerCase(), skillDir);
    }
  }
  return names;
}

/** Installs one skill; a failure is noted in the report instead of stopping the seeding. */
async function tryInstall(
  report: SeedReport,
  skill: BundledSkill,
  target: string,
): Promise<boolean> {
  try {
    await installCopy(skill.dir, target);
    return true;
  } catch (error) {
    report.failed.push(skill.name);
    report.notes.push(
      `Could not copy the bundled skill "${skill.name}" to ${target}: ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
    return false;
  }
}

function emptyReport(optedOut: boolean): SeedReport {
  return {
    optedOut,
    added: [],
    updated: [],
    keptModified: [],
    skippedDeleted: [],
    skippedOptedOut: [],
    keptUserOwned: [],
    unchanged: [],
    failed: [],
    notes: [],
  };
}

/**
 * Seeds the skills of the bundled set at `source` into `<home>/skills/`
 * (see {@link seedBundledSkills}); tests pass a set of their own.
 */
export async function seedSkillsFrom(home: string, source: string): Promise<SeedReport> {
  const bundled = await listBundledSkills(source);
  if (await isOptedOut(home)) {
    const report = emptyReport(true);
    report.skippedOptedOut.push(...bundled.map((skill) => skill.name));
    return report;
  }
  return withManifestLock(home, () => seedUnderLock(home, bundled));
}

async function seedUnderLock(home: string, bundled: BundledSkill[]): Promise<SeedReport> {
  const report = emptyReport(false);
  const root = skillsDir(home);
  const manifest = await readManifest(home);
  const before = new Map(manifest);
  const setHashes: [string, string][] = [];
  let local: Map<string, string> | undefined;
  for (const skill of bundled) {
    const target = join(root, ...skill.relDir.split("/"));
    const bundledHash = await hashSkillDir(skill.dir);
    setHashes.push([skill.name, bundledHash]);
    const recorded = manifest.get(skill.name);
    if (recorded !== undefined) {
      if (!(await isFile(join(target, "SKILL.md")))) {
        report.skippedDeleted.push(skill.name);
        continue;
      }
      const localHash = await hashSkillDir(target);
      if (localHash === bundledHash) {
        manifest.set(skill.name, bundledHash);
        report.unchanged.push(skill.name);
      } else if (localHash === recorded) {
        if (await tryInstall(report, skill, target)) {
          manifest.set(skill.name, bundledHash);
          report.updated.push(skill.name);
        }
      } else {
        report.keptModified.push(skill.name);
      }
      continue;
    }
    local ??= await localSkillNames(root);
    const existing = local.get(skill.name.toLowerCase());
    if (existing !== undefined) {
      if (existing === target && (await hashSkillDir(target)) === bundledHash) {
        manifest.set(skill.name, bundledHash);
        report.unchanged.push(skill.name);
      } else {
        report.keptUserOwned.push(skill.name);
        report.notes.push(
          `A bundled skill "${skill.name}" ships with Herald, but you already have a skill by ` +
            `that name at ${existing}; yours was kept.`,
        );
      }
      continue;
    }
    if (await tryInstall(report, skill, target)) {
      manifest.set(skill.name, bundledHash);
      report.added.push(skill.name);
    }
  }
  const changed = manifest.size !== before.size ||
    [...manifest].some(([name, hash]) => before.get(name) !== hash);
  if (changed) await writeManifestHeld(home, manifest);
  // A failed copy is tried again the next time the profile is used.
  if (report.failed.length === 0) await writeSeededSet(home, await setHashOf(setHashes));
  return report;
}

/** The hash of a bundled set from its skills' names and folder hashes. */
async function setHashOf(skills: readonly [string, string][]): Promise<string> {
  const lines = [...skills].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([name, hash]) => `${name}:${hash}\n`).join("");
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(lines)));
}

const shippedSetHash: { value?: Promise<string> } = {};

/**
 * The hash of the bundled set at `source`: of its skills' names and folder
 * hashes. The set Herald ships cannot change while it runs, so its hash is
 * computed once per process.
 */
export function bundledSetHash(source: string = bundledSkillsDir()): Promise<string> {
  const compute = async () => {
    const skills = await listBundledSkills(source);
    return setHashOf(
      await Promise.all(
        skills.map(async (skill): Promise<[string, string]> => [
          skill.name,
          await hashSkillDir(skill.dir),
        ]),
      ),
    );
  };
  if (source !== bundledSkillsDir()) return compute();
  shippedSetHash.value ??= compute();
  return shippedSetHash.value;
}

/** The hash recorded in `skills/.bundled_set`, or undefined when there is none. */
export async function readSeededSet(home: string): Promise<string | undefined> {
  return (await readTextOrEmpty(join(skillsDir(home), SEEDED_SET_FILE))).trim() || undefined;
}

async function writeSeededSet(home: string, hash: string): Promise<void> {
  if ((await readSeededSet(home)) === hash) return;
  await writeFileAtomic(join(skillsDir(home), SEEDED_SET_FILE), `${hash}\n`, { mode: 0o600 });
}

/**
 * Seeds the bundled set at `source` into the profile at `home` when the
 * profile has not seen that set yet: a home that was never seeded, or one
 * seeded by another release (its unmodified bundled skills update, changed
 * and deleted ones stay as they are). Returns what seeding did, or
 * undefined when nothing needed doing (up to date, or opted out).
 *
 * @example
 * ```ts
 * const report = await syncBundledSkills(paths.home); // undefined when up to date
 * ```
 */
export async function syncBundledSkills(
  home: string,
  source: string = bundledSkillsDir(),
): Promise<SeedReport | undefined> {
  if (await isOptedOut(home)) return undefined;
  const wanted = await bundledSetHash(source);
  if ((await readSeededSet(home)) === wanted) return undefined;
  return await seedSkillsFrom(home, source);
}

/**
 * Seeds the bundled skills into `<home>/skills/`, recording origin hashes in
 * `skills/.bundled_manifest`: a new skill is copied and recorded; an
 * unmodified copy of an older version is replaced; a copy the user changed
 * is kept; one the user deleted is not re-added; a same-named skill of the
 * user's own is kept (with a note). Does nothing while
 * `<home>/.no-bundled-skills` exists.
 *
 * @example
 * ```ts
 * const report = await seedBundledSkills(paths.home);
 * report.added; // ["code-review", "kanban-worker", ...] on a new profile
 * ```
 */
export function seedBundledSkills(home: string): Promise<SeedReport> {
  return seedSkillsFrom(home, bundledSkillsDir());
}

/** The bundled skills tracked in a profile's manifest, with their state on disk. */
export async function trackedSkills(
  home: string,
  source: string = bundledSkillsDir(),
): Promise<TrackedSkill[]> {
  const manifest = await readManifest(home);
  const bundled = new Map((await listBundledSkills(source)).map((skill) => [skill.name, skill]));
  const root = skillsDir(home);
  const local = await localSkillNames(root);
  const tracked: TrackedSkill[] = [];
  for (const [name, originHash] of manifest) {
    const relDir = bundled.get(name)?.relDir;
    const dir = relDir ? join(root, ...relDir.split("/")) : local.get(name.toLowerCase());
    if (!dir || !(await isFile(join(dir, "SKILL.md")))) {
      tracked.push({ name, dir: dir ?? join(root, name), originHash, state: "deleted" });
      continue;
    }
    const state = (await hashSkillDir(dir)) === originHash ? "unmodified" : "modified";
    tracked.push({ name, dir, originHash, state });
  }
  return tracked.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * Deletes tracked bundled skills that are still byte-identical to their
 * origin hash and forgets them in the manifest (so opting in again re-adds
 * them). A modified copy is never deleted. Returns the names removed.
 */
export async function removeUnmodifiedBundledSkills(
  home: string,
  names: readonly string[],
  source: string = bundledSkillsDir(),
): Promise<string[]> {
  const wanted = new Set(names);
  if (wanted.size === 0 || !(await isDirectory(skillsDir(home)))) return [];
  return withManifestLock(home, async () => {
    const manifest = await readManifest(home);
    const removed: string[] = [];
    for (const skill of await trackedSkills(home, source)) {
      if (!wanted.has(skill.name) || skill.state !== "unmodified") continue;
      await Deno.remove(skill.dir, { recursive: true });
      manifest.delete(skill.name);
      removed.push(skill.name);
      const parent = dirname(skill.dir);
      if (parent !== skillsDir(home) && (await readDirSorted(parent)).length === 0) {
        await Deno.remove(parent).catch(() => {});
      }
    }
    if (removed.length > 0) await writeManifestHeld(home, manifest);
    return removed;
  });
}

/** The bundled skill of the set at `source` named `name` (ignoring case; `_` finds `-`), if any. */
async function findBundled(name: string, source: string): Promise<BundledSkill | undefined> {
  const key = (text: string) => text.trim().toLowerCase().replaceAll("_", "-");
  return (await listBundledSkills(source)).find((skill) => key(skill.name) === key(name));
}

/** The names of the bundled skills of the set at `source`, sorted. */
export async function bundledSkillNames(source: string = bundledSkillsDir()): Promise<string[]> {
  return (await listBundledSkills(source)).map((skill) => skill.name).sort();
}

/**
 * How the profile's copy of the bundled skill `name` stands (see
 * {@link BundledSkillStatus}); undefined when no bundled skill has that name.
 */
export async function bundledSkillStatus(
  home: string,
  name: string,
  source: string = bundledSkillsDir(),
): Promise<BundledSkillStatus | undefined> {
  const skill = await findBundled(name, source);
  if (!skill) return undefined;
  const root = skillsDir(home);
  const target = join(root, ...skill.relDir.split("/"));
  const recorded = (await readManifest(home)).get(skill.name);
  if (!(await isFile(join(target, "SKILL.md")))) {
    const elsewhere = (await localSkillNames(root)).get(skill.name.toLowerCase());
    if (elsewhere !== undefined && recorded === undefined) {
      return { name: skill.name, dir: elsewhere, state: "user_owned" };
    }
    return { name: skill.name, dir: target, state: recorded === undefined ? "missing" : "deleted" };
  }
  const local = await hashSkillDir(target);
  const state = local === (await hashSkillDir(skill.dir))
    ? "current"
    : recorded === undefined
    ? "user_owned"
    : local === recorded
    ? "outdated"
    : "modified";
  return { name: skill.name, dir: target, state };
}

/**
 * Puts the bundled version of `name` into the profile, replacing whatever
 * copy is there (a changed one, or a same-named skill of the user's in
 * another folder), and records it as seeded. Returns where it went, or
 * undefined when no bundled skill has that name.
 */
export async function restoreBundledSkill(
  home: string,
  name: string,
  source: string = bundledSkillsDir(),
): Promise<{ name: string; dir: string } | undefined> {
  const skill = await findBundled(name, source);
  if (!skill) return undefined;
  const root = skillsDir(home);
  const target = join(root, ...skill.relDir.split("/"));
  return await withManifestLock(home, async () => {
    // A same-named skill in another folder is replaced only when ours is not there.
    const elsewhere = (await isFile(join(target, "SKILL.md")))
      ? undefined
      : (await localSkillNames(root)).get(skill.name.toLowerCase());
    await installCopy(skill.dir, target);
    if (elsewhere !== undefined) await Deno.remove(elsewhere, { recursive: true });
    const manifest = await readManifest(home);
    manifest.set(skill.name, await hashSkillDir(skill.dir));
    await writeManifestHeld(home, manifest);
    return { name: skill.name, dir: target };
  });
}
