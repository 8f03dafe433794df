/**
 * Writing and deleting bundle files (`skill-bundles/<slug>.yaml`). Writes
 * are atomic; reading goes through {@link loadBundles}.
 *
 * @module
 */

import { join } from "node:path";
import {
  BundleExistsError,
  type BundleInput,
  BundleInvalidError,
  BundleNotFoundError,
  bundleSlug,
  findBundle,
  renderBundle,
  type SavedBundle,
  uniqueSkillRefs,
} from "../../core/skills/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { isFile } from "./_fs.ts";
import { bundlesDir, loadBundles } from "./catalog.ts";

/** Options of {@link saveBundle}. */
export interface SaveBundleOptions {
  /** Replace an existing bundle of the same slug. */
  force?: boolean;
}

export type { SavedBundle } from "../../core/skills/mod.ts";

/** The files that may hold bundle `slug`: `<slug>.yaml`, `<slug>.yml`, or another file naming it. */
async function existingFile(home: string, slug: string): Promise<string | undefined> {
  for (const ext of ["yaml", "yml"]) {
    const file = join(bundlesDir(home), `${slug}.${ext}`);
    if (await isFile(file)) return file;
  }
  return findBundle((await loadBundles(bundlesDir(home))).bundles, slug)?.file;
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
  await Deno.mkdir(bundlesDir(home), { recursive: true, mode: 0o700 });
  // Checked and written under one lock per slug, so two saves of a new bundle at once
  // give one write and one BundleExistsError instead of one silently replacing the other.
  return withFileLock(join(bundlesDir(home), `${slug}.yaml`), async () => {
    const existing = await existingFile(home, slug);
    if (existing && !options.force) throw new BundleExistsError(slug, existing);
    const file = existing ?? join(bundlesDir(home), `${slug}.yaml`);
    await writeFileAtomic(file, renderBundle({ ...input, name, skills }), { mode: 0o600 });
    return { slug, file, replaced: existing !== undefined };
  });
}

/**
 * Deletes the file of bundle `name` (`my_bundle` also finds `my-bundle`),
 * even when the file is broken. Returns the deleted file.
 *
 * @throws BundleNotFoundError when no file defines it.
 */
export async function deleteBundle(
  home: string,
  name: string,
  displayDir: string = bundlesDir(home),
): Promise<string> {
  const slug = bundleSlug(name);
  const file = slug === "" ? undefined : await existingFile(home, slug);
  if (!file) throw new BundleNotFoundError(name, displayDir);
  await Deno.remove(file);
  return file;
}
