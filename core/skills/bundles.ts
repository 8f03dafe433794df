/**
 * Skill bundles: one YAML file per bundle at `skill-bundles/<slug>.yaml`
 * naming several skills that load together under one slash command.
 * Parsing uses the YAML core schema only (no custom tags) and never throws:
 * a broken file is reported as a message for the caller to warn about.
 *
 * @module
 */

import YAML from "yaml";
import { slugify } from "./_slug.ts";
import { parseYaml } from "./_yaml.ts";

/** A loaded bundle. */
export interface SkillBundle {
  /** Slash-command form of the name: `/<slug>`. */
  slug: string;
  /** The name as written in the file. */
  name: string;
  /** Text for help and autocomplete; empty when the file has none. */
  description: string;
  /** Skill references (slugs, or `<category>/<name>` paths), as written, blanks dropped. */
  skills: string[];
  /** Guidance placed before the loaded skills. */
  instruction?: string;
  /** The file it came from. */
  file: string;
}

/** The outcome of {@link parseBundle}. */
export type BundleParse =
  | { ok: true; bundle: SkillBundle }
  | { ok: false; message: string };

/** What {@link renderBundle} writes. */
export interface BundleInput {
  name: string;
  description?: string;
  skills: readonly string[];
  instruction?: string;
}

/**
 * Parses the text of a bundle file; never throws. Keys other than name,
 * description, skills and instruction are ignored.
 *
 * @example
 * ```ts
 * const parsed = parseBundle("name: Backend\nskills: [code-review, debugging]\n", "/h/skill-bundles/backend.yaml");
 * if (parsed.ok) parsed.bundle.slug; // "backend"
 * ```
 */
export function parseBundle(source: string, file: string): BundleParse {
  const yaml = parseYaml(source);
  if (!yaml.ok) return { ok: false, message: `not valid YAML: ${yaml.message}` };
  const data = yaml.value;
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, message: "must be a mapping with name, skills, description, instruction" };
  }
  const record = data as Record<string, unknown>;
  const name = typeof record.name === "string" || typeof record.name === "number"
    ? String(record.name).trim()
    : "";
  if (name === "") return { ok: false, message: "needs a name (it becomes /<name>)" };
  const slug = slugify(name);
  if (slug === "") return { ok: false, message: `name "${name}" has no letters or digits` };
  if (!Array.isArray(record.skills)) {
    return { ok: false, message: "needs skills: a list of skill names" };
  }
  if (record.skills.some((item) => typeof item !== "string")) {
    return { ok: false, message: "skills must be a list of skill names (text)" };
  }
  const skills = (record.skills as string[]).map((item) => item.trim()).filter(Boolean);
  if (skills.length === 0) return { ok: false, message: "skills lists no skill" };
  for (const key of ["description", "instruction"]) {
    const value = record[key];
    if (value !== undefined && value !== null && typeof value !== "string") {
      return { ok: false, message: `${key} must be text` };
    }
  }
  const description = ((record.description as string | undefined) ?? "").trim();
  const instruction = ((record.instruction as string | undefined) ?? "").trim();
  return {
    ok: true,
    bundle: {
      slug,
      name,
      description,
      skills,
      ...(instruction ? { instruction } : {}),
      file,
    },
  };
}

/**
 * The YAML text of a bundle file, keys in the order name, description,
 * skills, instruction (a multi-line instruction is written as a block).
 */
export function renderBundle(input: BundleInput): string {
  const data: Record<string, unknown> = { name: input.name };
  if (input.description?.trim()) data.description = input.description.trim();
  data.skills = [...input.skills];
  if (input.instruction?.trim()) data.instruction = input.instruction.trim();
  return YAML.stringify(data, { lineWidth: 0, blockQuote: "literal" });
}

/**
 * The slug of a bundle name: the file name (`<slug>.yaml`) and the slash
 * command. Empty when the name has no letters or digits.
 *
 * @example
 * ```ts
 * bundleSlug("Backend Dev"); // "backend-dev"
 * ```
 */
export function bundleSlug(name: string): string {
  return slugify(name);
}

/** The skill references of a bundle with repeats removed (first one kept). */
export function uniqueSkillRefs(bundle: Pick<SkillBundle, "skills">): string[] {
  const seen = new Set<string>();
  const refs: string[] = [];
  for (const ref of bundle.skills) {
    const key = skillRefKey(ref);
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push(ref);
  }
  return refs;
}

/**
 * The lookup key of a skill reference: a slug, or for a path
 * (`<category>/<name>`) the lowercase path with `/` separators.
 */
export function skillRefKey(ref: string): string {
  const trimmed = ref.trim().replaceAll("\\", "/").replace(/^\/+|\/+$/g, "");
  return trimmed.includes("/") ? trimmed.toLowerCase() : slugify(trimmed);
}

/** The autocomplete and listing text of a bundle: `<description> (N skills)`. */
export function bundleLabel(bundle: Pick<SkillBundle, "description" | "skills">): string {
  const count = uniqueSkillRefs(bundle).length;
  return `${bundle.description || "Skill bundle"} (${count} skill${count === 1 ? "" : "s"})`;
}
