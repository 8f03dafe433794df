/**
 * Skills and bundles as slash commands: `/<bundle> [text]`,
 * `/<skill> [text]` and several skills at once (`/<skill> /<skill> [text]`)
 * become one fresh user message (`send`), and `/bundles` lists the bundles. The system prompt is never changed.
 *
 * @module
 */

import {
  buildBundleMessage,
  buildSkillsMessage,
  bundleLabel,
  findBundle,
  findSkill,
  resolveBundle,
  type SkillBundle,
  type SkillCatalog,
  type SkillCatalogSnapshot,
  type SkillDocument,
  type SkillInfo,
  type SkillLoadFailure,
} from "../skills/mod.ts";
import type { SlashCommand, SlashCommandNames, SlashOutcome } from "./types.ts";

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Reads the catalog; a failure becomes a reply instead of an exception. */
export async function readSnapshot(
  catalog: SkillCatalog,
): Promise<{ ok: true; snapshot: SkillCatalogSnapshot } | { ok: false; text: string }> {
  try {
    return { ok: true, snapshot: await catalog.snapshot() };
  } catch (error) {
    return { ok: false, text: `Could not read the skills: ${reason(error)}` };
  }
}

async function invokeBundle(
  catalog: SkillCatalog,
  snapshot: SkillCatalogSnapshot,
  bundle: SkillBundle,
  args: string,
): Promise<SlashOutcome> {
  const resolution = resolveBundle(bundle, snapshot);
  const docs: SkillDocument[] = [];
  const failed: SkillLoadFailure[] = [];
  for (const skill of resolution.skills) {
    try {
      docs.push(await catalog.read(skill));
    } catch (error) {
      failed.push({ ref: skill.slug, message: reason(error) });
    }
  }
  if (docs.length === 0) {
    const skipped = [...resolution.missing, ...resolution.unavailable, ...failed.map((f) => f.ref)];
    return {
      kind: "reply",
      text: `Bundle /${bundle.slug} has none of its skills available (${
        skipped.join(", ")
      }); nothing was sent. Check ${bundle.file}.`,
    };
  }
  return {
    kind: "send",
    message: buildBundleMessage(
      bundle,
      docs,
      { missing: resolution.missing, unavailable: resolution.unavailable, failed },
      args,
    ),
  };
}

/** The most skills one message loads with leading `/<skill>` words (`/a /b fix it`). */
const MAX_STACKED_SKILLS = 5;

const LEADING_COMMAND = /^\/([A-Za-z][\w-]*)(?:\s+|$)/;

/**
 * The skills a message invokes: `first`, then each leading `/<skill>` word
 * of `args` that names a skill (up to {@link MAX_STACKED_SKILLS} in all, a
 * repeated one loaded once), and the text after them. Reading stops at the
 * first word that is not a skill, so `/review /tmp/x.log` keeps its path.
 */
function stackSkills(
  skills: readonly SkillInfo[],
  first: SkillInfo,
  args: string,
): { skills: SkillInfo[]; text: string } {
  const stacked = [first];
  let rest = args.trim();
  for (;;) {
    const match = LEADING_COMMAND.exec(rest);
    const next = match && findSkill(skills, match[1]);
    if (!match || !next) break;
    if (!stacked.includes(next)) {
      if (stacked.length === MAX_STACKED_SKILLS) break;
      stacked.push(next);
    }
    rest = rest.slice(match[0].length);
  }
  return { skills: stacked, text: rest.trim() };
}

/**
 * Runs `/<name> args` as a bundle or a skill of `catalog`: bundles first,
 * then skills (with any further skills typed right after it, see
 * {@link stackSkills}). Returns undefined when the name is neither.
 */
export async function runCatalogCommand(
  catalog: SkillCatalog,
  name: string,
  args: string,
): Promise<SlashOutcome | undefined> {
  const read = await readSnapshot(catalog);
  if (!read.ok) return { kind: "reply", text: read.text };
  const { snapshot } = read;
  const bundle = findBundle(snapshot.bundles, name);
  if (bundle) return await invokeBundle(catalog, snapshot, bundle, args);
  const skill = findSkill(snapshot.skills, name);
  if (skill) {
    const stacked = stackSkills(snapshot.skills, skill, args);
    const docs: SkillDocument[] = [];
    for (const each of stacked.skills) {
      try {
        docs.push(await catalog.read(each));
      } catch (error) {
        return { kind: "reply", text: `Could not load skill /${each.slug}: ${reason(error)}` };
      }
    }
    return { kind: "send", message: buildSkillsMessage(docs, stacked.text) };
  }
  const hidden = findSkill(snapshot.hidden, name);
  if (hidden) {
    return {
      kind: "reply",
      text: `Skill /${hidden.slug} is only for ${
        hidden.platforms?.join(", ")
      }; it is not available on this system.`,
    };
  }
  return undefined;
}

/** The `/help` lines about skills and bundles. */
export async function skillHelpLines(registry: SlashCommandNames): Promise<string[]> {
  const lines = [
    "",
    "Skills and skill bundles are commands too: /<name> [text] loads one into your next",
    "message (/my_bundle also finds my-bundle), /<skill> /<skill> [text] loads several",
    "skills in that order; /bundles lists the bundles.",
  ];
  if (!registry.catalog) return lines;
  const read = await readSnapshot(registry.catalog);
  if (!read.ok) return [...lines, read.text];
  const builtins = registry.names();
  const bundles = read.snapshot.bundles.filter((b) => !builtins.has(b.slug));
  const bundleSlugs = new Set(bundles.map((b) => b.slug));
  const skills = read.snapshot.skills.filter((s) =>
    !builtins.has(s.slug) && !bundleSlugs.has(s.slug)
  );
  if (bundles.length > 0) lines.push(`Bundles: ${bundles.map((b) => `/${b.slug}`).join(", ")}`);
  if (skills.length > 0) lines.push(`Skills: ${skills.map((s) => `/${s.slug}`).join(", ")}`);
  return lines;
}

/** `/bundles`: the installed bundles with their skills. */
export function bundlesCommand(registry: () => SlashCommandNames): SlashCommand {
  return {
    name: "bundles",
    description: "list the skill bundles (each is a /<name> command)",
    async run() {
      const catalog = registry().catalog;
      if (!catalog) return { kind: "reply", text: "Skill bundles are not available here." };
      const read = await readSnapshot(catalog);
      if (!read.ok) return { kind: "reply", text: read.text };
      const { snapshot } = read;
      if (snapshot.bundles.length === 0) {
        return {
          kind: "reply",
          text: "No skill bundles yet. Create one with " +
            "`herald bundles create <name> --skill <skill> --skill <skill>`.",
        };
      }
      const builtins = registry().names();
      const lines = [`Skill bundles (${snapshot.bundles.length}):`];
      for (const bundle of snapshot.bundles) {
        const resolution = resolveBundle(bundle, snapshot);
        const shadowed = builtins.has(bundle.slug) ? " [hidden by the built-in command]" : "";
        lines.push(`  /${bundle.slug}  ${bundleLabel(bundle)}${shadowed}`);
        const names = [
          ...resolution.skills.map((skill) => skill.slug),
          ...resolution.missing.map((ref) => `${ref} (missing)`),
          ...resolution.unavailable.map((ref) => `${ref} (not for this system)`),
        ];
        lines.push(`      skills: ${names.join(", ")}`);
      }
      return { kind: "reply", text: lines.join("\n") };
    },
  };
}
