/**
 * `herald skills list|show|opt-out|opt-in`: the skills of a profile and the
 * bundled skills Herald seeds into it.
 *
 * @module
 */

import { join } from "node:path";
import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import {
  findSkill,
  type SkillFields,
  skillFields,
  type SkillInfo,
  SkillNotFoundError,
  slashConflict,
} from "../../core/skills/mod.ts";
import {
  createSkillCatalog,
  isOptedOut,
  OPT_OUT_MARKER,
  readSkillDocument,
  removeOptOutMarker,
  removeUnmodifiedBundledSkills,
  seedBundledSkills,
  type SeedReport,
  skillsDir,
  trackedSkills,
  writeOptOutMarker,
} from "../../adapters/skills/mod.ts";
import { LineReader } from "../chat/lines.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { builtinCommandNames, displayPath, printWarnings } from "./_skills_common.ts";

/** One row of `herald skills list --json`. */
interface SkillRow extends SkillFields {
  dir: string;
  /** `/<slug>` when it works as a slash command, else null. */
  command: string | null;
  /** True when the skill is meant for this operating system. */
  available: boolean;
  /** `bundled` (unchanged since seeded), `bundled-modified`, or `user`. */
  origin: "bundled" | "bundled-modified" | "user";
  note: string | null;
}

async function skillRows(c: CliContext, home: string, all: boolean): Promise<SkillRow[]> {
  const snapshot = await createSkillCatalog(home).snapshot();
  printWarnings(c, snapshot.warnings);
  const builtins = builtinCommandNames();
  const tracked = new Map((await trackedSkills(home)).map((skill) => [skill.dir, skill.state]));
  const row = (skill: SkillInfo, available: boolean): SkillRow => {
    const conflict = available ? slashConflict(skill, builtins, snapshot.bundles) : undefined;
    const state = tracked.get(skill.dir);
    return {
      ...skillFields(skill),
      dir: skill.dir,
      command: available && !conflict ? `/${skill.slug}` : null,
      available,
      origin: state === "unmodified"
        ? "bundled"
        : state === "modified"
        ? "bundled-modified"
        : "user",
      note: available ? conflict ?? null : `only for ${skill.platforms?.join(", ")}; hidden here`,
    };
  };
  const rows = snapshot.skills.map((skill) => row(skill, true));
  if (all) rows.push(...snapshot.hidden.map((skill) => row(skill, false)));
  return rows.sort((a, b) => a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
}

function printSeedReport(c: CliContext, report: SeedReport): void {
  const groups: [string, string[]][] = [
    ["Added", report.added],
    ["Updated", report.updated],
    ["Kept (you changed them)", report.keptModified],
    ["Not re-added (you deleted them)", report.skippedDeleted],
    ["Kept your own skill of the same name", report.keptUserOwned],
    ["Could not copy", report.failed],
  ];
  let printed = false;
  for (const [label, names] of groups) {
    if (names.length === 0) continue;
    c.io.out(`${label}: ${names.join(", ")}\n`);
    printed = true;
  }
  if (!printed) c.io.out("Bundled skills are up to date.\n");
  for (const note of report.notes) c.io.err(`herald: note: ${note}\n`);
}

async function confirm(c: CliContext, question: string): Promise<boolean> {
  c.io.err(question);
  const lines = new LineReader(c.input());
  try {
    const answer = (await lines.next())?.trim().toLowerCase() ?? "";
    return answer === "y" || answer === "yes";
  } finally {
    await lines.close();
  }
}

/** Adds the `skills` command family to `program`. */
export function registerSkills(program: Command, ctx: () => CliContext): void {
  const skills = program.command("skills").description(
    "list and show skills; opt out of (or back into) the bundled skills",
  );

  skills.command("list")
    .description("list the skills of this profile (each is a /<name> command in chat)")
    .option("--all", "also list skills meant for other operating systems")
    .option("--json", "print JSON")
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const c = ctx();
      const paths = await c.home();
      const rows = await skillRows(c, paths.home, options.all ?? false);
      if (options.json) return printJson(c.io, rows);
      if (rows.length === 0) {
        return c.io.out(
          `No skills in ${displayPath(c, skillsDir(paths.home))}. ` +
            "Add one as <name>/SKILL.md there, or run `herald skills opt-in --sync` " +
            "for the bundled ones.\n",
        );
      }
      const width = Math.min(32, Math.max(...rows.map((r) => (r.command ?? r.slug).length)) + 2);
      for (const row of rows) {
        const origin = row.origin === "user" ? "" : `  [${row.origin}]`;
        c.io.out(`${(row.command ?? row.slug).padEnd(width)}${row.description}${origin}\n`);
        if (row.note) c.io.out(`${"".padEnd(width)}note: ${row.note}\n`);
      }
    });

  skills.command("show <name>")
    .description("show a skill's details and instructions")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      const c = ctx();
      const paths = await c.home();
      const snapshot = await createSkillCatalog(paths.home).snapshot();
      printWarnings(c, snapshot.warnings);
      const available = findSkill(snapshot.skills, name);
      const skill = available ?? findSkill(snapshot.hidden, name);
      if (!skill) throw new SkillNotFoundError(name, displayPath(c, skillsDir(paths.home)));
      const doc = await readSkillDocument(skill);
      const conflict = available
        ? slashConflict(skill, builtinCommandNames(), snapshot.bundles)
        : `only for ${skill.platforms?.join(", ")}; hidden here`;
      if (options.json) {
        return printJson(c.io, {
          ...skillFields(skill),
          dir: skill.dir,
          file: skill.file,
          command: available && !conflict ? `/${skill.slug}` : null,
          available: available !== undefined,
          note: conflict ?? null,
          files: doc.files,
          metadata: skill.metadata,
          body: doc.body,
        });
      }
      c.io.out(`${skill.name}  ${skill.description}\n`);
      if (available && !conflict) c.io.out(`Command:   /${skill.slug} [text]\n`);
      if (skill.category) c.io.out(`Category:  ${skill.category}\n`);
      if (skill.version) c.io.out(`Version:   ${skill.version}\n`);
      if (skill.platforms) c.io.out(`Platforms: ${skill.platforms.join(", ")}\n`);
      c.io.out(`Folder:    ${skill.dir}\n`);
      if (doc.files.length > 0) c.io.out(`Files:     ${doc.files.join(", ")}\n`);
      if (conflict) c.io.out(`Note:      ${conflict}\n`);
      c.io.out(`\n${doc.body.trim()}\n`);
    });

  skills.command("opt-out")
    .description(
      `stop seeding bundled skills into this profile (writes ${OPT_OUT_MARKER}); ` +
        "--remove also deletes the bundled skills you never changed",
    )
    .option("--remove", "also delete bundled skills that are unchanged since they were seeded")
    .option("--yes", "delete without asking")
    .option("--json", "print JSON")
    .action(async (options: { remove?: boolean; yes?: boolean; json?: boolean }) => {
      const c = ctx();
      const paths = await c.paths();
      await Deno.mkdir(paths.home, { recursive: true, mode: 0o700 });
      let removed: string[] = [];
      let keptModified: string[] = [];
      if (options.remove) {
        const tracked = await trackedSkills(paths.home);
        const doomed = tracked.filter((skill) => skill.state === "unmodified");
        keptModified = tracked.filter((s) => s.state === "modified").map((s) => s.name);
        if (doomed.length > 0 && !options.yes) {
          c.io.err(
            "These bundled skills are unchanged since they were seeded and will be deleted:\n",
          );
          for (const skill of doomed) c.io.err(`  - ${skill.name}  (${skill.dir})\n`);
          if (keptModified.length > 0) {
            c.io.err(`Kept because you changed them: ${keptModified.join(", ")}\n`);
          }
          if (!c.interactive) {
            throw new HeraldError(
              "confirmation_required",
              "usage",
              `skills opt-out --remove would delete ${doomed.length} bundled skill${
                doomed.length === 1 ? "" : "s"
              } and needs confirmation; run it in a terminal, or add --yes`,
            );
          }
          if (!(await confirm(c, "Delete them and opt out? [y/N] "))) {
            c.io.err("Nothing changed.\n");
            return;
          }
        }
        removed = await removeUnmodifiedBundledSkills(paths.home, doomed.map((s) => s.name));
      }
      const created = await writeOptOutMarker(paths.home);
      if (options.json) {
        return printJson(c.io, {
          opted_out: true,
          marker: join(paths.home, OPT_OUT_MARKER),
          removed,
          kept_modified: keptModified,
        });
      }
      c.io.out(
        created
          ? `Opted out: bundled skills will no longer be seeded into profile "${paths.name}".\n`
          : `Already opted out of bundled skills in profile "${paths.name}".\n`,
      );
      if (removed.length > 0) c.io.out(`Deleted: ${removed.join(", ")}\n`);
      if (keptModified.length > 0) {
        c.io.out(`Kept because you changed them: ${keptModified.join(", ")}\n`);
      }
      c.io.out("Undo with `herald skills opt-in --sync`.\n");
    });

  skills.command("opt-in")
    .description(`seed bundled skills into this profile again (removes ${OPT_OUT_MARKER})`)
    .option("--sync", "seed the bundled skills now")
    .option("--json", "print JSON")
    .action(async (options: { sync?: boolean; json?: boolean }) => {
      const c = ctx();
      const paths = await c.paths();
      const wasOut = await isOptedOut(paths.home);
      await removeOptOutMarker(paths.home);
      const home = (await c.home()).home;
      const report = options.sync ? await seedBundledSkills(home) : undefined;
      if (options.json) {
        return printJson(c.io, { opted_out: false, was_opted_out: wasOut, seeded: report ?? null });
      }
      c.io.out(
        wasOut
          ? `Opted in: bundled skills will be seeded into profile "${paths.name}".\n`
          : `Profile "${paths.name}" was not opted out.\n`,
      );
      if (report) printSeedReport(c, report);
      else c.io.out("Seed them now with `herald skills opt-in --sync`.\n");
    });
}
