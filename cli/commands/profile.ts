/**
 * `herald profile create|list`: named profiles, each a home of its own.
 *
 * @module
 */

import type { Command } from "commander";
import { createProfile, listProfiles, profilePaths } from "../../adapters/home/mod.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

/** Adds the `profile` command family to `program`. */
export function registerProfile(program: Command, ctx: () => CliContext): void {
  const profile = program.command("profile").description("create and list profiles");

  profile.command("create <name>")
    .description("create a named profile under <home>/profiles/<name>")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      const c = ctx();
      const paths = await createProfile(c.root, name);
      if (options.json) printJson(c.io, { name: paths.name, home: paths.home });
      else {
        c.io.out(`Created profile "${paths.name}" at ${paths.home}\n`);
        c.io.out(`Use it with: herald -p ${paths.name} <command>\n`);
      }
    });

  profile.command("list")
    .description("list profiles")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      const names = await listProfiles(c.root);
      const rows = names.map((name) => ({
        name,
        home: profilePaths(c.root, name).home,
        active: name === c.profile,
      }));
      if (options.json) printJson(c.io, rows);
      else {
        for (const row of rows) {
          c.io.out(`${row.active ? "*" : " "} ${row.name.padEnd(20)} ${row.home}\n`);
        }
      }
    });
}
