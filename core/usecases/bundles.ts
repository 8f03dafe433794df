/**
 * The skill-bundle use cases: list, show, create, update, delete and
 * reload the bundles of a profile. Each is one function over a profile's
 * {@link SkillLibrary}; `herald bundles ...` and `/api/bundles` call them
 * and only render.
 *
 * @example
 * ```ts
 * const library = openSkillLibrary(profile);
 * const created = await createBundle(library, { name: "Backend", skills: ["code-review"] });
 * created.bundle.missing; // skills it names that are not installed yet
 * ```
 *
 * @module
 */

import { z } from "zod";
import {
  type BundleInput,
  BundleNotFoundError,
  type BundleView,
  bundleView,
  type CatalogWarning,
  findBundle,
  type SkillBundle,
  type SkillCatalogSnapshot,
} from "../skills/mod.ts";
import type { SkillLibrary } from "./ports_skills.ts";
import type { ShowPath } from "./skills.ts";
import { builtinCommandNames } from "./_slash_names.ts";

/** The bundles of a profile, and the bundle files that were skipped. */
export interface BundleList {
  /** Sorted by slug. */
  bundles: BundleView[];
  /** Broken or duplicate bundle files, each skipped. */
  warnings: CatalogWarning[];
}

/** The warnings of `snapshot` about bundle files. */
function bundleWarnings(library: SkillLibrary, snapshot: SkillCatalogSnapshot): CatalogWarning[] {
  return snapshot.warnings.filter((warning) => warning.file.startsWith(library.bundlesDir));
}

/** Every bundle of the profile, resolved against its skills. */
export async function listBundles(library: SkillLibrary): Promise<BundleList> {
  const snapshot = await library.snapshot();
  const builtins = builtinCommandNames();
  return {
    bundles: snapshot.bundles.map((bundle) => bundleView(bundle, snapshot, builtins)),
    warnings: bundleWarnings(library, snapshot),
  };
}

/** One bundle, and the bundle files that were skipped. */
export interface ShownBundle {
  bundle: BundleView;
  warnings: CatalogWarning[];
}

/**
 * One bundle by name (`my_bundle` also finds `my-bundle`).
 *
 * @throws BundleNotFoundError when no bundle file defines it.
 */
export async function showBundle(
  library: SkillLibrary,
  name: string,
  options: { showPath?: ShowPath } = {},
): Promise<ShownBundle> {
  const snapshot = await library.snapshot();
  const bundle = findBundle(snapshot.bundles, name);
  if (!bundle) {
    throw new BundleNotFoundError(name, (options.showPath ?? String)(library.bundlesDir));
  }
  return {
    bundle: bundleView(bundle, snapshot, builtinCommandNames()),
    warnings: bundleWarnings(library, snapshot),
  };
}

/** A new bundle, as a request body or a command line gives it. */
export const NewBundle = z.object({
  name: z.string().refine((name) => name.trim() !== "", "must not be empty"),
  skills: z.array(z.string()).nullish().transform((skills) => skills ?? []),
  description: z.string().nullish().transform((text) => text ?? undefined),
  instruction: z.string().nullish().transform((text) => text ?? undefined),
  /** Replace an existing bundle of the same name. */
  force: z.boolean().nullish().transform((force) => force ?? false),
});

/** The parsed {@link NewBundle}. */
export type NewBundle = z.output<typeof NewBundle>;

/** What {@link createBundle} writes ({@link NewBundle} parses one from a request body). */
export interface CreateBundleRequest extends BundleInput {
  /** Replace an existing bundle of the same name. */
  force?: boolean;
}

/** What {@link createBundle} did. */
export interface CreatedBundle {
  /** True when an existing bundle of the same name was replaced. */
  replaced: boolean;
  bundle: BundleView;
  /** True when a built-in command has the bundle's name, so `/<slug>` cannot invoke it. */
  shadowed: boolean;
}

/**
 * Writes a bundle file (`skill-bundles/<slug>.yaml`). Skills that are not
 * installed are allowed (the bundle skips them until they are); the view
 * lists them as `missing`.
 *
 * @throws BundleInvalidError for a name without letters or digits, or no skills.
 * @throws BundleExistsError when the bundle exists and `force` is not set.
 */
export async function createBundle(
  library: SkillLibrary,
  request: CreateBundleRequest,
): Promise<CreatedBundle> {
  const input: BundleInput = {
    name: request.name,
    skills: request.skills,
    description: request.description,
    instruction: request.instruction,
  };
  const saved = await library.saveBundle(input, { force: request.force ?? false });
  return { replaced: saved.replaced, ...await writtenView(library, saved, input) };
}

/**
 * The view of a bundle just written to `written.file`: as read back, or as
 * `input` defined it when the file changed again since.
 */
async function writtenView(
  library: SkillLibrary,
  written: { slug: string; file: string },
  input: BundleInput,
): Promise<{ bundle: BundleView; shadowed: boolean }> {
  const snapshot = await library.snapshot();
  const builtins = builtinCommandNames();
  const bundle: SkillBundle = findBundle(snapshot.bundles, written.slug) ?? {
    slug: written.slug,
    name: input.name.trim(),
    description: input.description?.trim() ?? "",
    skills: input.skills.map((skill) => skill.trim()).filter(Boolean),
    ...(input.instruction?.trim() ? { instruction: input.instruction.trim() } : {}),
    file: written.file,
  };
  return { bundle: bundleView(bundle, snapshot, builtins), shadowed: builtins.has(written.slug) };
}

/** A bundle's new definition, as `PUT /api/bundles/:name` gives it. */
export const BundleUpdate = NewBundle.omit({ force: true });

/** The parsed {@link BundleUpdate}. */
export type BundleUpdate = z.output<typeof BundleUpdate>;

/** What {@link updateBundle} did. */
export interface UpdatedBundle {
  bundle: BundleView;
  /** The slug the bundle had before, when the new name gave it another one (its old file is gone). */
  renamed_from: string | null;
  /** True when a built-in command has the bundle's name, so `/<slug>` cannot invoke it. */
  shadowed: boolean;
}

/**
 * Rewrites an existing bundle with a new definition, checked as
 * {@link createBundle} checks a new one. A new name that changes the slug
 * moves the bundle: the new file is created (refused when another bundle
 * has that name), then the old one is deleted. Requests at once end as if
 * one ran after the other: an update never re-creates a bundle that
 * another request just renamed or deleted, and never replaces another
 * bundle.
 *
 * @example
 * ```ts
 * const { bundle } = await updateBundle(library, "backend", { name: "Backend", skills: ["review"] });
 * ```
 *
 * @throws BundleNotFoundError when no bundle is named `name`.
 * @throws BundleInvalidError for a name without letters or digits, or no skills.
 * @throws BundleExistsError when the new name is another bundle's.
 */
export async function updateBundle(
  library: SkillLibrary,
  name: string,
  update: BundleInput,
  options: { showPath?: ShowPath } = {},
): Promise<UpdatedBundle> {
  const shownDir = (options.showPath ?? String)(library.bundlesDir);
  const written = await library.updateBundle(name, update, shownDir);
  const { bundle, shadowed } = await writtenView(library, written, update);
  return { bundle, renamed_from: written.renamedFrom, shadowed };
}

/** What {@link deleteBundle} did. */
export interface DeletedBundle {
  /** The name as asked for. */
  name: string;
  /** The file deleted. */
  file: string;
}

/**
 * Deletes a bundle's file (the skills stay), even a broken one.
 *
 * @throws BundleNotFoundError when no file defines it.
 */
export async function deleteBundle(
  library: SkillLibrary,
  name: string,
  options: { showPath?: ShowPath } = {},
): Promise<DeletedBundle> {
  const file = await library.deleteBundle(name, (options.showPath ?? String)(library.bundlesDir));
  return { name, file };
}

/** What re-reading the bundle files found (`bundles reload --json`). */
export interface BundleReload {
  /** How many bundles load. */
  total: number;
  bundles: { name: string; slug: string; label: string; file: string }[];
  /** Bundle files that are broken or repeat a name, each skipped. */
  skipped: CatalogWarning[];
}

/**
 * Re-reads every bundle file and reports which load and which are broken.
 * (Bundles are read afresh at every use; this only reports.)
 */
export async function reloadBundles(library: SkillLibrary): Promise<BundleReload> {
  const { bundles, warnings } = await listBundles(library);
  return {
    total: bundles.length,
    bundles: bundles.map(({ name, slug, label, file }) => ({ name, slug, label, file })),
    skipped: warnings.map(({ file, message }) => ({ file, message })),
  };
}
