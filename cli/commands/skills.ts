/**
 * `herald skills list|show|opt-out|opt-in|reset`: the skills of a profile
 * and the bundled skills Herald seeds into it. The work is done by the use cases in
 * core/usecases/skills.ts.
 *
 * @module
 */

import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import type { SeedReportView } from "../../core/skills/mod.ts";
import {
  listSkills,
  optInToBundledSkills,
  optOutOfBundledSkills,
  type OptOutPlan,
  resetBundledSkill,
  showSkill,
} from "../../core/usecases/skills.ts";
import { openSkillLibrary, OPT_OUT_MARKER } from "../../adapters/skills/mod.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { displayPath, printWarnings, readAnswer } from "./_common.ts";

function printSeedReport(c: CliContext, report: SeedReportView): void {
  const groups: [string, string[]][] = [
    ["Added", report.added],
    ["Updated", report.updated],
    ["Kept (you changed them)", report.kept_modified],
    ["Not re-added (you deleted them)", report.skipped_deleted],
    ["Kept your own skill of the same name", report.kept_user_owned],
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
  const answer = (await readAnswer(c, question)).toLowerCase();
  return answer === "y" || answer === "yes";
}

/** Shows what `opt-out --remove` would delete and asks; refuses when nobody can answer. */
async function confirmRemoval(c: CliContext, plan: OptOutPlan): Promise<boolean> {
  c.io.err("These bundled skills are unchanged since they were seeded and will be deleted:\n");
  for (const skill of plan.doomed) c.io.err(`  - ${skill.name}  (${skill.dir})\n`);
  if (plan.kept_modified.length > 0) {
    c.io.err(`Kept because you changed them: ${plan.kept_modified.join(", ")}\n`);
  }
  if (!c.interactive) {
    const count = plan.doomed.length;
    throw new HeraldError(
      "confirmation_required",
      "usage",
      `skills opt-out --remove would delete ${count} bundled skill${count === 1 ? "" : "s"} ` +
        "and needs confirmation; run it in a terminal, or add --yes",
    );
  }
  if (await confirm(c, "Delete them and opt out? [y/N] ")) return true;
  c.io.err("Nothing changed.\n");
  return false;
}

/** Asks before `skills reset --restore` replaces a changed copy; refuses when nobody can answer. */
async function confirmRestore(
  c: CliContext,
  skill: { name: string; dir: string; state: string },
): Promise<boolean> {
  const what = skill.state === "user_owned"
    ? `Your own skill "${skill.name}" at ${skill.dir} will be deleted`
    : `Your changes to "${skill.name}" at ${skill.dir} will be lost`;
  if (!c.interactive) {
    throw new HeraldError(
      "confirmation_required",
      "usage",
      `skills reset --restore would replace "${skill.name}" at ${skill.dir} and needs ` +
        "confirmation; run it in a terminal, or add --yes",
    );
  }
  c.io.err(`${what} and the bundled version put in its place.\n`);
  if (await confirm(c, "Replace it? [y/N] ")) return true;
  c.io.err("Nothing changed.\n");
  return false;
}

/** Adds the `skills` command family to `program`. */
export function registerSkills(program: Command, ctx: () => CliContext): void {
  const skills = program.command("skills").description(
    "list and show skills; opt out of (or back into) the bundled skills, or reset one",
  );

  skills.command("list")
    .description("list the skills of this profile (each is a /<name> command in chat)")
    .option("--all", "also list skills meant for other operating systems")
    .option("--json", "print JSON")
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const c = ctx();
      const library = openSkillLibrary(await c.home());
      const { skills: rows, warnings } = await listSkills(library, { all: options.all ?? false });
      printWarnings(c, warnings);
      if (options.json) return printJson(c.io, rows);
      if (rows.length === 0) {
        return c.io.out(
          `No skills in ${displayPath(c, library.skillsDir)}. ` +
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
      const { skill, warnings } = await showSkill(openSkillLibrary(await c.home()), name, {
        showPath: (path) => displayPath(c, path),
      });
      printWarnings(c, warnings);
      if (options.json) return printJson(c.io, skill);
      c.io.out(`${skill.name}  ${skill.description}\n`);
      if (skill.command) c.io.out(`Command:   ${skill.command} [text]\n`);
      if (skill.category) c.io.out(`Category:  ${skill.category}\n`);
      if (skill.version) c.io.out(`Version:   ${skill.version}\n`);
      if (skill.platforms) c.io.out(`Platforms: ${skill.platforms.join(", ")}\n`);
      c.io.out(`Folder:    ${skill.dir}\n`);
      if (skill.files.length > 0) c.io.out(`Files:     ${skill.files.join(", ")}\n`);
      if (skill.note) c.io.out(`Note:      ${skill.note}\n`);
      c.io.out(`\n${skill.body.trim()}\n`);
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
      // Not c.home(): a home made now would be seeded just before opting out.
      const paths = await c.paths();
      const result = await optOutOfBundledSkills(openSkillLibrary(paths), {
        remove: options.remove,
        confirm: options.yes ? undefined : (plan) => confirmRemoval(c, plan),
      });
      if (!result) return;
      if (options.json) return printJson(c.io, result);
      c.io.out(
        result.was_opted_out
          ? `Already opted out of bundled skills in profile "${paths.name}".\n`
          : `Opted out: bundled skills will no longer be seeded into profile "${paths.name}".\n`,
      );
      if (result.removed.length > 0) c.io.out(`Deleted: ${result.removed.join(", ")}\n`);
      if (result.kept_modified.length > 0) {
        c.io.out(`Kept because you changed them: ${result.kept_modified.join(", ")}\n`);
      }
      c.io.out("Undo with `herald skills opt-in --sync`.\n");
    });

  skills.command("reset <name>")
    .description(
      "bring back a bundled skill you deleted (or update an unchanged copy); " +
        "--restore also replaces one you changed",
    )
    .option("--restore", "also replace a copy you changed (or your own skill of that name)")
    .option("--yes", "replace without asking")
    .option("--json", "print JSON")
    .action(async (name: string, options: { restore?: boolean; yes?: boolean; json?: boolean }) => {
      const c = ctx();
      const result = await resetBundledSkill(openSkillLibrary(await c.home()), name, {
        restore: options.restore,
        confirm: options.yes ? undefined : (skill) => confirmRestore(c, skill),
      });
      if (!result) return;
      if (options.json) return printJson(c.io, result);
      const where = displayPath(c, result.dir);
      c.io.out(
        result.action === "unchanged"
          ? `"${result.name}" is already the bundled version (${where}).\n`
          : result.action === "updated"
          ? `Updated "${result.name}" to the bundled version (${where}).\n`
          : `Restored the bundled skill "${result.name}" at ${where}.\n`,
      );
    });

  skills.command("opt-in")
    .description(`seed bundled skills into this profile again (removes ${OPT_OUT_MARKER})`)
    .option("--sync", "seed the bundled skills now")
    .option("--json", "print JSON")
    .action(async (options: { sync?: boolean; json?: boolean }) => {
      const c = ctx();
      const paths = await c.home();
      const result = await optInToBundledSkills(openSkillLibrary(paths), { sync: options.sync });
      if (options.json) return printJson(c.io, result);
      c.io.out(
        result.was_opted_out
          ? `Opted in: bundled skills will be seeded into profile "${paths.name}".\n`
          : `Profile "${paths.name}" was not opted out.\n`,
      );
      if (result.seeded) printSeedReport(c, result.seeded);
      else c.io.out("They are seeded the next time Herald uses the profile, or now with --sync.\n");
    });
}
