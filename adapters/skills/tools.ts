/**
 * The model's view of the skills: `skills_list` (the index) and
 * `skill_view` (one skill's instructions, or one of its supporting files).
 * Both read the profile home of the running session and change nothing.
 *
 * @module
 */

import { isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { findSkill, type SkillInfo } from "../../core/skills/mod.ts";
import { defineTypedTool, type Tool, ToolError, type TypedTool } from "../../core/tools/types.ts";
import { createSkillCatalog, readSkillDocument } from "./catalog.ts";

/** Longest text `skill_view` returns, in characters; longer content is cut. */
export const SKILL_VIEW_MAX_CHARS = 100_000;

const listArgs = z.object({
  category: z.string().optional().describe("Only skills in this category folder."),
});

const viewArgs = z.object({
  name: z.string().min(1).describe("The skill's name or slug, as skills_list shows it."),
  file_path: z.string().optional().describe(
    "A supporting file inside the skill folder, relative to it (e.g. references/checklist.md). Omit to read SKILL.md.",
  ),
});

/** One entry of `skills_list`. */
export interface SkillListEntry {
  name: string;
  slug: string;
  description: string;
  category?: string;
}

/** Result of `skills_list`. */
export interface SkillsListResult {
  skills: SkillListEntry[];
  count: number;
  hint: string;
}

/** Result of `skill_view` for SKILL.md. */
export interface SkillViewResult {
  name: string;
  slug: string;
  description: string;
  category?: string;
  version?: string;
  platforms?: string[];
  /** The skill folder: resolve the skill's relative paths against it. */
  dir: string;
  /** The whole SKILL.md, frontmatter included. */
  content: string;
  /** Supporting files, relative to `dir`. */
  files: string[];
  truncated?: boolean;
}

/** Result of `skill_view` for a supporting file. */
export interface SkillFileResult {
  name: string;
  file_path: string;
  path: string;
  content: string;
  truncated?: boolean;
}

/** Options of {@link createSkillTools}. */
export interface SkillToolsOptions {
  /** Platform skills are filtered for; defaults to this system. */
  platform?: string;
}

function cut(text: string): { content: string; truncated?: boolean } {
  if (text.length <= SKILL_VIEW_MAX_CHARS) return { content: text };
  return {
    content: `${
      text.slice(0, SKILL_VIEW_MAX_CHARS)
    }\n[... cut at ${SKILL_VIEW_MAX_CHARS} characters]`,
    truncated: true,
  };
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

async function readSupportingFile(skill: SkillInfo, filePath: string): Promise<SkillFileResult> {
  const wanted = filePath.trim().replaceAll("\\", "/");
  if (wanted === "" || isAbsolute(wanted) || /^[A-Za-z]:/.test(wanted)) {
    throw new ToolError(
      "path_outside_skill",
      `file_path "${filePath}" must be relative to the skill folder`,
    );
  }
  const target = resolve(skill.dir, wanted);
  if (!inside(skill.dir, target)) {
    throw new ToolError(
      "path_outside_skill",
      `file_path "${filePath}" points outside the skill folder of "${skill.name}"`,
    );
  }
  let real: string;
  let realDir: string;
  try {
    [real, realDir] = await Promise.all([Deno.realPath(target), Deno.realPath(skill.dir)]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError(
        "not_found",
        `Skill "${skill.name}" has no file "${wanted}"; call skill_view without file_path to see its files`,
      );
    }
    throw error;
  }
  if (!inside(realDir, real)) {
    throw new ToolError(
      "path_outside_skill",
      `file_path "${filePath}" links outside the skill folder of "${skill.name}"`,
    );
  }
  if (!(await Deno.stat(real)).isFile) {
    throw new ToolError("not_a_file", `"${wanted}" in skill "${skill.name}" is not a file`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await Deno.readFile(real));
  } catch (error) {
    if (error instanceof TypeError) {
      throw new ToolError(
        "binary_file",
        `"${wanted}" is not text; run it or open it by its path: ${target}`,
      );
    }
    throw error;
  }
  return { name: skill.name, file_path: wanted, path: target, ...cut(text) };
}

/**
 * The `skills_list` and `skill_view` tools, in that order.
 *
 * @example
 * ```ts
 * const tools = new ToolRegistry([...builtinTools(), ...createSkillTools()]);
 * ```
 */
export function createSkillTools(options: SkillToolsOptions = {}): Tool[] {
  const catalogOf = (home: string) => createSkillCatalog(home, { platform: options.platform });

  const list: TypedTool<z.infer<typeof listArgs>, SkillsListResult> = defineTypedTool({
    name: "skills_list",
    description:
      "List the skills installed for this profile: reusable instructions for particular kinds of work (name, description, category). Read one with skill_view before following it.",
    schema: listArgs,
    readOnly: true,
    async run(args, context) {
      const { skills } = await catalogOf(context.home).snapshot();
      const category = args.category?.trim().toLowerCase();
      const entries = skills
        .filter((skill) => !category || skill.category?.toLowerCase() === category)
        .map((skill) => ({
          name: skill.name,
          slug: skill.slug,
          description: skill.description,
          ...(skill.category ? { category: skill.category } : {}),
        }));
      return {
        skills: entries,
        count: entries.length,
        hint: "Call skill_view with a name to read its instructions.",
      };
    },
  });

  const view: TypedTool<z.infer<typeof viewArgs>, SkillViewResult | SkillFileResult> =
    defineTypedTool({
      name: "skill_view",
      description:
        "Read a skill: its SKILL.md instructions and the list of its supporting files, or with file_path one supporting file inside the skill folder.",
      schema: viewArgs,
      readOnly: true,
      async run(args, context) {
        const { skills } = await catalogOf(context.home).snapshot();
        const skill = findSkill(skills, args.name) ??
          skills.find((s) => s.name.toLowerCase() === args.name.trim().toLowerCase());
        if (!skill) {
          const names = skills.map((s) => s.slug);
          throw new ToolError(
            "skill_not_found",
            `No skill named "${args.name}"; installed: ${names.join(", ") || "none"}`,
          );
        }
        if (args.file_path !== undefined && args.file_path.trim() !== "") {
          return await readSupportingFile(skill, args.file_path);
        }
        const doc = await readSkillDocument(skill);
        const text = await Deno.readTextFile(join(skill.dir, "SKILL.md"));
        return {
          name: skill.name,
          slug: skill.slug,
          description: skill.description,
          ...(skill.category ? { category: skill.category } : {}),
          ...(skill.version ? { version: skill.version } : {}),
          ...(skill.platforms ? { platforms: skill.platforms } : {}),
          dir: skill.dir,
          ...cut(text),
          files: doc.files,
        };
      },
    });

  return [list as unknown as Tool, view as unknown as Tool];
}
