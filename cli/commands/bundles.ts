/**
 * `herald bundles list|show|create|delete|reload`: skill bundles, each a
 * YAML file in `skill-bundles/` and a `/<name>` command in chat. The work
 * is done by the use cases in core/usecases/bundles.ts.
 *
 * @module
 */

import type { Command } from "commander";
import {
  createBundle,
  deleteBundle,
  listBundles,
  reloadBundles,
  showBundle,
} from "../../core/usecases/bundles.ts";
import { openSkillLibrary } from "../../adapters/skills/mod.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { collect, displayPath, printWarnings } from "./_common.ts";

interface CreateOptions {
  skill: string[];
  description?: string;
  instruction?: string;
  force?: boolean;
  json?: boolean;
}

/** Adds the `bundles` command family to `program`. */
export function registerBundles(program: Command, ctx: () => CliContext): void {
  const bundles = program.command("bundles").description(
    "skill bundles: several skills loaded together by one /<name> command",
  );
  const library = async (c: CliContext) => openSkillLibrary(await c.home());

  bundles.command("list")
    .description("list the bundles of this profile")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      const lib = await library(c);
      const { bundles: rows, warnings } = await listBundles(lib);
      printWarnings(c, warnings);
      if (options.json) return printJson(c.io, rows);
      if (rows.length === 0) {
        return c.io.out(
          `No bundles in ${displayPath(c, lib.bundlesDir)}. Create one with ` +
            "`herald bundles create <name> --skill <skill> --skill <skill>`.\n",
        );
      }
      for (const row of rows) {
        c.io.out(`${row.command}  ${row.label}\n`);
        const names = [...row.loaded, ...row.missing.map((ref) => `${ref} (missing)`)];
        names.push(...row.unavailable.map((ref) => `${ref} (not for this system)`));
        c.io.out(`    skills: ${names.join(", ")}\n`);
        if (row.note) c.io.out(`    note: ${row.note}\n`);
      }
    });

  bundles.command("show <name>")
    .description("show a bundle: its skills, instruction and file")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      const c = ctx();
      const { bundle: row, warnings } = await showBundle(await library(c), name, {
        showPath: (path) => displayPath(c, path),
      });
      printWarnings(c, warnings);
      if (options.json) return printJson(c.io, row);
      c.io.out(`${row.command}  ${row.label}\n`);
      c.io.out(`Name:   ${row.name}\n`);
      c.io.out(`File:   ${row.file}\n`);
      c.io.out("Skills:\n");
      for (const ref of row.skills) {
        const state = row.missing.includes(ref)
          ? " (missing; skipped)"
          : row.unavailable.includes(ref)
          ? " (not for this system; skipped)"
          : "";
        c.io.out(`  - ${ref}${state}\n`);
      }
      if (row.instruction) c.io.out(`Instruction:\n${row.instruction.replace(/^/gm, "  ")}\n`);
      if (row.note) c.io.out(`Note:   ${row.note}\n`);
    });

  bundles.command("create <name>")
    .description("create a bundle file in skill-bundles/<name>.yaml")
    .option("-s, --skill <skill>", "a skill to load (repeat for each skill)", collect, [])
    .option("-d, --description <text>", "text shown in help and autocomplete")
    .option("--instruction <text>", "guidance placed before the skills when the bundle is used")
    .option("--force", "replace an existing bundle of the same name")
    .option("--json", "print JSON")
    .action(async (name: string, options: CreateOptions) => {
      const c = ctx();
      const { replaced, bundle, shadowed } = await createBundle(await library(c), {
        name,
        skills: options.skill,
        description: options.description,
        instruction: options.instruction,
        force: options.force,
      });
      const warn = (text: string) => c.io.err(`herald: warning: ${text}\n`);
      for (const ref of bundle.missing) {
        warn(`skill "${ref}" is not installed yet; ${bundle.command} skips it until it is`);
      }
      for (const ref of bundle.unavailable) {
        warn(`skill "${ref}" is not meant for this system; ${bundle.command} skips it here`);
      }
      if (shadowed) {
        warn(
          `${bundle.command} is a built-in command, so this bundle cannot be invoked; choose another name`,
        );
      }
      if (options.json) return printJson(c.io, { ...bundle, replaced });
      c.io.out(`${replaced ? "Replaced" : "Created"} bundle ${bundle.command} at ${bundle.file}\n`);
    });

  bundles.command("delete <name>")
    .description("delete a bundle file (the skills stay)")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      const c = ctx();
      const { file } = await deleteBundle(await library(c), name, {
        showPath: (path) => displayPath(c, path),
      });
      if (options.json) return printJson(c.io, { deleted: file });
      c.io.out(`Deleted bundle ${name} (${file})\n`);
    });

  bundles.command("reload")
    .description("re-read every bundle file and report which load and which are broken")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      const lib = await library(c);
      const reload = await reloadBundles(lib);
      printWarnings(c, reload.skipped);
      if (options.json) return printJson(c.io, reload);
      const { total, skipped } = reload;
      c.io.out(
        `Loaded ${total} bundle${total === 1 ? "" : "s"}` +
          `${
            skipped.length > 0
              ? `, skipped ${skipped.length} broken file${skipped.length === 1 ? "" : "s"}`
              : ""
          }` +
          ` from ${displayPath(c, lib.bundlesDir)}. Bundles are read afresh at every use.\n`,
      );
      for (const bundle of reload.bundles) c.io.out(`  /${bundle.slug}  ${bundle.label}\n`);
    });
}
