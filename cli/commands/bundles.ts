/**
 * `herald bundles list|show|create|delete|reload`: skill bundles, each a
 * YAML file in `skill-bundles/` and a `/<name>` command in chat.
 *
 * @module
 */

import type { Command } from "commander";
import {
  bundleLabel,
  BundleNotFoundError,
  findBundle,
  resolveBundle,
  type SkillCatalogSnapshot,
  summarizeBundle,
} from "../../core/skills/mod.ts";
import {
  bundlesDir,
  createSkillCatalog,
  deleteBundle,
  saveBundle,
} from "../../adapters/skills/mod.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { builtinCommandNames, displayPath, printWarnings } from "./_skills_common.ts";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function load(c: CliContext): Promise<{ home: string; snapshot: SkillCatalogSnapshot }> {
  const paths = await c.home();
  const snapshot = await createSkillCatalog(paths.home).snapshot();
  printWarnings(c, snapshot.warnings.filter((w) => w.file.startsWith(bundlesDir(paths.home))));
  return { home: paths.home, snapshot };
}

/** Adds the `bundles` command family to `program`. */
export function registerBundles(program: Command, ctx: () => CliContext): void {
  const bundles = program.command("bundles").description(
    "skill bundles: several skills loaded together by one /<name> command",
  );

  bundles.command("list")
    .description("list the bundles of this profile")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      const { home, snapshot } = await load(c);
      const builtins = builtinCommandNames();
      const rows = snapshot.bundles.map((bundle) => summarizeBundle(bundle, snapshot, builtins));
      if (options.json) return printJson(c.io, rows);
      if (rows.length === 0) {
        return c.io.out(
          `No bundles in ${displayPath(c, bundlesDir(home))}. Create one with ` +
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
      const { home, snapshot } = await load(c);
      const bundle = findBundle(snapshot.bundles, name);
      if (!bundle) throw new BundleNotFoundError(name, displayPath(c, bundlesDir(home)));
      const row = summarizeBundle(bundle, snapshot, builtinCommandNames());
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
    .action(
      async (
        name: string,
        options: {
          skill: string[];
          description?: string;
          instruction?: string;
          force?: boolean;
          json?: boolean;
        },
      ) => {
        const c = ctx();
        const paths = await c.home();
        const saved = await saveBundle(paths.home, {
          name,
          skills: options.skill,
          description: options.description,
          instruction: options.instruction,
        }, { force: options.force });
        const snapshot = await createSkillCatalog(paths.home).snapshot();
        const resolution = resolveBundle({ skills: options.skill }, snapshot);
        for (const ref of resolution.missing) {
          c.io.err(
            `herald: warning: skill "${ref}" is not installed yet; /${saved.slug} skips it until it is\n`,
          );
        }
        for (const ref of resolution.unavailable) {
          c.io.err(
            `herald: warning: skill "${ref}" is not meant for this system; /${saved.slug} skips it here\n`,
          );
        }
        if (builtinCommandNames().has(saved.slug)) {
          c.io.err(
            `herald: warning: /${saved.slug} is a built-in command, so this bundle cannot be invoked; choose another name\n`,
          );
        }
        if (options.json) {
          return printJson(c.io, {
            name: name.trim(),
            slug: saved.slug,
            command: `/${saved.slug}`,
            file: saved.file,
            replaced: saved.replaced,
            missing: resolution.missing,
          });
        }
        c.io.out(
          `${saved.replaced ? "Replaced" : "Created"} bundle /${saved.slug} at ${saved.file}\n`,
        );
      },
    );

  bundles.command("delete <name>")
    .description("delete a bundle file (the skills stay)")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      const c = ctx();
      const paths = await c.home();
      const file = await deleteBundle(paths.home, name, displayPath(c, bundlesDir(paths.home)));
      if (options.json) return printJson(c.io, { deleted: file });
      c.io.out(`Deleted bundle ${name} (${file})\n`);
    });

  bundles.command("reload")
    .description("re-read every bundle file and report which load and which are broken")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      const { home, snapshot } = await load(c);
      const skipped = snapshot.warnings.filter((w) => w.file.startsWith(bundlesDir(home)));
      if (options.json) {
        return printJson(c.io, {
          total: snapshot.bundles.length,
          bundles: snapshot.bundles.map((b) => ({ name: b.name, slug: b.slug, file: b.file })),
          skipped: skipped.map((w) => ({ file: w.file, message: w.message })),
        });
      }
      c.io.out(
        `Loaded ${snapshot.bundles.length} bundle${snapshot.bundles.length === 1 ? "" : "s"}` +
          `${
            skipped.length > 0
              ? `, skipped ${skipped.length} broken file${skipped.length === 1 ? "" : "s"}`
              : ""
          }` +
          ` from ${displayPath(c, bundlesDir(home))}. Bundles are read afresh at every use.\n`,
      );
      for (const bundle of snapshot.bundles) {
        c.io.out(`  /${bundle.slug}  ${bundleLabel(bundle)}\n`);
      }
    });
}
