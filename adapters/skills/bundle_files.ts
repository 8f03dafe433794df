/**
 * Writing, rewriting and deleting bundle files (`skill-bundles/<slug>.yaml`).
 * Writes are atomic; reading goes through {@link loadBundles}.
 *
 * Every change to bundle `<slug>` holds the file lock of
 * `skill-bundles/<slug>.yaml` ({@link withFileLock}, across processes),
 * and checks what is on disk inside it: a save, a delete, and an update
 * (which holds the locks of its old and its new slug, taken in sorted
 * order so two updates never wait on each other). So two requests at once
 * end as if one ran after the other: each change is kept, or refused with
 * a clear error and nothing written.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import {
  BundleExistsError,
  type BundleInput,
  BundleInvalidError,
  BundleNotFoundError,
  bundleSlug,
  findBundle,
  renderBundle,
  type RewrittenBundle,
  type SavedBundle,
  uniqueSkillRefs,
} from "../../core/skills/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { isDirectory, isFile } from "./_fs.ts";
import { bundlesDir, loadBundles } from "./catalog.ts";

/** Options of {@link saveBundle}. */
export interface SaveBundleOptions {
  /** Replace an existing bundle of the same slug. */
  force?: boolean;
}

export type { RewrittenBundle, SavedBundle } from "../../core/skills/mod.ts";

/** Mode of a bundle file Herald writes. */
const FILE_MODE = 0o600;

/** A bundle definition checked for writing: trimmed name, its slug, skills named once. */
interface CheckedBundle {
  name: string;
  slug: string;
  text: string;
}

/**
 * Checks `input` as every write does and renders its file text.
 *
 * @throws BundleInvalidError for a name without letters or digits, or no skills.
 */
function checkBundle(input: BundleInput): CheckedBundle {
  const name = input.name.trim();
  const slug = bundleSlug(name);
  if (slug === "") {
    throw new BundleInvalidError(
      `Bundle name "${input.name}" needs letters or digits (it becomes /<name>)`,
      "name",
    );
  }
  const skills = uniqueSkillRefs({ skills: input.skills.map((s) => s.trim()).filter(Boolean) });
  if (skills.length === 0) {
    throw new BundleInvalidError(
      `Bundle "${name}" needs at least one skill; pass --skill <name> (repeat for more)`,
      "skills",
    );
  }
  return { name, slug, text: renderBundle({ ...input, name, skills }) };
}

/** The files that may hold bundle `slug`: `<slug>.yaml`, `<slug>.yml`, or another file naming it. */
async function existingFile(home: string, slug: string): Promise<string | undefined> {
  for (const ext of ["yaml", "yml"]) {
    const file = join(bundlesDir(home), `${slug}.${ext}`);
    if (await isFile(file)) return file;
  }
  return findBundle((await loadBundles(bundlesDir(home))).bundles, slug)?.file;
}

/**
 * Runs `fn` holding the lock of every slug in `slugs` (the lock of
 * `skill-bundles/<slug>.yaml`), taken in sorted order so two callers that
 * need the same two locks never wait on each other. The folder must exist.
 */
function withBundleLocks<T>(home: string, slugs: readonly string[], fn: () => Promise<T>) {
  const sorted = [...new Set(slugs)].sort();
  const hold = (index: number): Promise<T> =>
    index === sorted.length
      ? fn()
      : withFileLock(join(bundlesDir(home), `${sorted[index]}.yaml`), () => hold(index + 1));
  return hold(0);
}

/**
 * Writes `text` to `file`, which must not exist: written beside it first,
 * then linked into place, so a reader never sees half of it and an
 * existing file is never replaced.
 *
 * @throws Deno.errors.AlreadyExists when `file` exists.
 */
async function createFileAtomic(file: string, text: string): Promise<void> {
  const suffix = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
  const temp = join(dirname(file), `.${basename(file)}.${suffix}.new`);
  await writeFileAtomic(temp, text, { mode: FILE_MODE });
  try {
    await Deno.link(temp, file);
  } finally {
    await Deno.remove(temp).catch(() => {});
  }
}

/**
 * Writes a bundle to `skill-bundles/<slug>.yaml` (a skill named twice is
 * written once).
 *
 * @throws BundleInvalidError for a name without letters or digits, or no skills.
 * @throws BundleExistsError when the bundle exists and `force` is not set.
 */
export async function saveBundle(
  home: string,
  input: BundleInput,
  options: SaveBundleOptions = {},
): Promise<SavedBundle> {
  const { slug, text } = checkBundle(input);
  await Deno.mkdir(bundlesDir(home), { recursive: true, mode: 0o700 });
  // Checked and written under the slug's lock, so two saves of a new bundle at once
  // give one write and one BundleExistsError instead of one silently replacing the other.
  return withBundleLocks(home, [slug], async () => {
    const existing = await existingFile(home, slug);
    if (existing && !options.force) throw new BundleExistsError(slug, existing);
    const file = existing ?? join(bundlesDir(home), `${slug}.yaml`);
    await writeFileAtomic(file, text, { mode: FILE_MODE });
    return { slug, file, replaced: existing !== undefined };
  });
}

/**
 * Rewrites the existing bundle `name` (`my_bundle` also finds `my-bundle`)
 * with a new definition. When the new name has another slug the bundle
 * moves: the new file is created (never replacing one), then the old one
 * is deleted (and the new one removed again if that fails). Both slugs'
 * locks are held throughout and the old bundle is looked up inside them,
 * so an update never re-creates a bundle another request just renamed or
 * deleted, and two renames of one bundle give one move and one
 * BundleNotFoundError.
 *
 * @example
 * ```ts
 * const { file, renamedFrom } = await updateBundle(home, "backend", { name: "Server", skills: ["review"] });
 * // file ends in skill-bundles/server.yaml, renamedFrom is "backend"
 * ```
 *
 * @throws BundleInvalidError for a name without letters or digits, or no skills.
 * @throws BundleNotFoundError naming `displayDir` when no loadable bundle is named `name`.
 * @throws BundleExistsError when the new name is another bundle's (a broken file included).
 */
export async function updateBundle(
  home: string,
  name: string,
  input: BundleInput,
  displayDir: string = bundlesDir(home),
): Promise<RewrittenBundle> {
  const next = checkBundle(input);
  const oldSlug = bundleSlug(name);
  if (oldSlug === "" || !(await isDirectory(bundlesDir(home)))) {
    throw new BundleNotFoundError(name, displayDir);
  }
  return withBundleLocks(home, [oldSlug, next.slug], async () => {
    const current = findBundle((await loadBundles(bundlesDir(home))).bundles, oldSlug);
    if (!current) throw new BundleNotFoundError(name, displayDir);
    if (next.slug === current.slug) {
      await writeFileAtomic(current.file, next.text, { mode: FILE_MODE });
      return { slug: next.slug, file: current.file, renamedFrom: null };
    }
    const taken = await existingFile(home, next.slug);
    if (taken === current.file) {
      // The old bundle's file already has the new slug's file name: rewrite it in place.
      await writeFileAtomic(current.file, next.text, { mode: FILE_MODE });
      return { slug: next.slug, file: current.file, renamedFrom: current.slug };
    }
    if (taken) throw new BundleExistsError(next.slug, taken);
    const file = join(bundlesDir(home), `${next.slug}.yaml`);
    try {
      await createFileAtomic(file, next.text);
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) throw new BundleExistsError(next.slug, file);
      throw error;
    }
    try {
      await Deno.remove(current.file);
    } catch (error) {
      await Deno.remove(file).catch(() => {});
      throw error;
    }
    return { slug: next.slug, file, renamedFrom: current.slug };
  });
}

/**
 * Deletes the file of bundle `name` (`my_bundle` also finds `my-bundle`),
 * even when the file is broken, under the slug's lock. Returns the deleted
 * file.
 *
 * @throws BundleNotFoundError when no file defines it.
 */
export async function deleteBundle(
  home: string,
  name: string,
  displayDir: string = bundlesDir(home),
): Promise<string> {
  const slug = bundleSlug(name);
  if (slug === "" || !(await isDirectory(bundlesDir(home)))) {
    throw new BundleNotFoundError(name, displayDir);
  }
  return withBundleLocks(home, [slug], async () => {
    const file = await existingFile(home, slug);
    if (!file) throw new BundleNotFoundError(name, displayDir);
    await Deno.remove(file);
    return file;
  });
}
