/**
 * The skill file: `SKILL.md` with YAML frontmatter (name, description,
 * version, platforms, ...) followed by Markdown instructions. Parsing is
 * pure; finding the files is the caller's job.
 *
 * @module
 */

import { slugify } from "./_slug.ts";
import { parseYaml } from "./_yaml.ts";

/** The name of the file that makes a folder a skill. */
export const SKILL_FILE = "SKILL.md";

/** One installed skill, as found in a profile's `skills/` folder. */
export interface SkillInfo {
  /** Slash-command form of the name: `/<slug>`. */
  slug: string;
  /** Display name: frontmatter `name`, else the folder name. */
  name: string;
  /** One line: frontmatter `description`, else the first line of the body. */
  description: string;
  /** The category folder, when the skill sits in one. */
  category?: string;
  version?: string;
  /** Operating systems the skill is for (`linux`, `macos`, `windows`); absent means all. */
  platforms?: string[];
  /** Absolute path of the skill folder. */
  dir: string;
  /** Absolute path of its `SKILL.md`. */
  file: string;
  /** Folder relative to the skills root, with `/`: `<category>/<name>` or `<name>`. */
  relDir: string;
  /** The whole frontmatter, for display. */
  metadata: Record<string, unknown>;
}

/** A skill with its content, as loaded for an invocation or `skill_view`. */
export interface SkillDocument {
  skill: SkillInfo;
  /** The Markdown body without the frontmatter. */
  body: string;
  /** Supporting files, relative to the skill folder with `/` (`SKILL.md` excluded), sorted. */
  files: string[];
}

/** Where a `SKILL.md` was found. */
export interface SkillLocation {
  dir: string;
  file: string;
  relDir: string;
  category?: string;
}

/** The outcome of {@link parseSkill}. */
export type SkillParse =
  | { ok: true; skill: SkillInfo; body: string }
  | { ok: false; message: string };

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** Splits `SKILL.md` text into its frontmatter text (undefined when none) and body. */
export function splitFrontmatter(text: string): { frontmatter?: string; body: string } {
  const match = FRONTMATTER.exec(text);
  if (!match) return { body: text.replace(/^\uFEFF/, "") };
  return { frontmatter: match[1] ?? "", body: text.slice(match[0].length) };
}

const PLATFORM_ALIASES: Record<string, string> = {
  mac: "macos",
  macos: "macos",
  darwin: "macos",
  osx: "macos",
  win: "windows",
  win32: "windows",
  windows: "windows",
  linux: "linux",
};

/**
 * The skill platform name of a `Deno.build.os` value: `darwin` is `macos`,
 * `windows` and `linux` stay, anything else is returned as is.
 */
export function platformOf(os: string): string {
  const name = os.toLowerCase();
  return Object.hasOwn(PLATFORM_ALIASES, name) ? PLATFORM_ALIASES[name] : name;
}

/** True when a skill is meant for `platform` (a value of {@link platformOf}). */
export function skillRunsOn(skill: Pick<SkillInfo, "platforms">, platform: string): boolean {
  return !skill.platforms || skill.platforms.length === 0 || skill.platforms.includes(platform);
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() || undefined;
  if (typeof value === "number") return String(value);
  return undefined;
}

function firstLine(body: string): string | undefined {
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line === "---") continue;
    return line.length > 80 ? `${line.slice(0, 77)}...` : line;
  }
  return undefined;
}

function platforms(value: unknown): string[] | undefined | Error {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === "string" ? value.split(/[\s,]+/) : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) {
    return new Error("platforms must be a list of names (linux, macos, windows)");
  }
  const names = list.map((item: string) => item.trim()).filter(Boolean).map(platformOf);
  return names.length === 0 ? undefined : [...new Set(names)];
}

/**
 * Parses the text of a `SKILL.md` found at `location`. The frontmatter is
 * read with the YAML core schema; a file without frontmatter is a skill
 * named after its folder.
 *
 * @example
 * ```ts
 * const parsed = parseSkill("---\nname: Code Review\n---\n# Review\n...", {
 *   dir: "/h/skills/dev/code-review",
 *   file: "/h/skills/dev/code-review/SKILL.md",
 *   relDir: "dev/code-review",
 *   category: "dev",
 * });
 * if (parsed.ok) parsed.skill.slug; // "code-review"
 * ```
 */
export function parseSkill(source: string, location: SkillLocation): SkillParse {
  const { frontmatter, body } = splitFrontmatter(source);
  let metadata: Record<string, unknown> = {};
  if (frontmatter !== undefined && frontmatter.trim() !== "") {
    const yaml = parseYaml(frontmatter);
    if (!yaml.ok) return { ok: false, message: `frontmatter is not valid YAML: ${yaml.message}` };
    const parsed = yaml.value;
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== "object" || Array.isArray(parsed)) {
        return { ok: false, message: "frontmatter must be a mapping of keys to values" };
      }
      metadata = parsed as Record<string, unknown>;
    }
  }
  const folder = location.relDir.split("/").at(-1) ?? location.relDir;
  const name = text(metadata.name) ?? folder;
  const slug = slugify(name);
  if (slug === "") return { ok: false, message: `name "${name}" has no letters or digits` };
  const os = platforms(metadata.platforms);
  if (os instanceof Error) return { ok: false, message: os.message };
  const skill: SkillInfo = {
    slug,
    name,
    description: text(metadata.description)?.replace(/\s+/g, " ") ?? firstLine(body) ??
      `Invoke the ${name} skill`,
    ...(location.category ? { category: location.category } : {}),
    ...(text(metadata.version) ? { version: text(metadata.version) } : {}),
    ...(os ? { platforms: os } : {}),
    dir: location.dir,
    file: location.file,
    relDir: location.relDir,
    metadata,
  };
  return { ok: true, skill, body };
}
