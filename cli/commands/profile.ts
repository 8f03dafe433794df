/**
 * `herald profile create|list|show|use|delete|describe`: named profiles,
 * each a home of its own, with a description an orchestrator routes by.
 *
 * @module
 */

import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import { callAuxiliary } from "../../core/models/auxiliary.ts";
import {
  DEFAULT_PROFILE,
  DefaultProfileError,
  describerPrompt,
  EmptyDescriptionError,
  isUserAuthored,
  normalizeDescription,
  parseProfileSelector,
  PROFILE_DESCRIBER_TASK,
  ProfileDeleteRefusedError,
  type ProfileMeta,
  type ProfileSkill,
} from "../../core/profiles/mod.ts";
import {
  clearActiveProfile,
  type CloneMode,
  createProfile,
  deleteProfile,
  ensureProfileHome,
  listInstalledSkills,
  listProfiles,
  loadConfigFile,
  type ProfilePaths,
  readProfileCredentials,
  readProfileMeta,
  requireProfile,
  updateProfileMeta,
  writeActiveProfile,
} from "../../adapters/home/mod.ts";
import { createModelClient } from "../../adapters/models/mod.ts";
import { LineReader } from "../chat/lines.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

interface CreateOptions {
  description?: string;
  clone?: boolean;
  cloneAll?: boolean;
  skills: boolean;
  json?: boolean;
}

interface DescribeOptions {
  text?: string;
  auto?: boolean;
  overwrite?: boolean;
  all?: boolean;
  json?: boolean;
}

/** One profile as `list` and `show` print it. */
interface ProfileRow {
  name: string;
  home: string;
  /** The profile commands use now (`-p`, else the sticky default, else `default`). */
  active: boolean;
  /** Named in `active_profile`. */
  sticky: boolean;
  description: string;
  description_auto: boolean;
  skill_count: number;
  model: string | null;
  provider: string | null;
  /** Problems with this profile's files (a corrupt profile.yaml); each is also printed on stderr. */
  warnings: string[];
}

/** What `describe` did for one profile. */
type DescribeResult =
  | {
    profile: string;
    status: "shown" | "set" | "generated" | "kept";
    description: string;
    description_auto: boolean;
  }
  | { profile: string; status: "failed"; error: { code: string; message: string } };

function usage(message: string): HeraldError {
  return new HeraldError("usage", "usage", message);
}

/** Paths of `name` (any existing profile, `default` included), or of the context's profile. */
function target(c: CliContext, name: string | undefined): Promise<ProfilePaths> {
  return name === undefined ? c.paths() : requireProfile(c.root, parseProfileSelector(name));
}

/** Reads profile.yaml, printing a warning when it is corrupt. */
async function readMeta(c: CliContext, paths: ProfilePaths): Promise<ProfileMeta> {
  return (await readMetaWithWarning(c, paths)).meta;
}

/** Reads profile.yaml, printing and returning the warning when it is corrupt. */
async function readMetaWithWarning(
  c: CliContext,
  paths: ProfilePaths,
): Promise<{ meta: ProfileMeta; warning?: string }> {
  const read = await readProfileMeta(paths.profileYaml);
  if (read.warning) c.io.err(`herald: warning: ${read.warning}\n`);
  return read;
}

async function profileRow(
  c: CliContext,
  paths: ProfilePaths,
  skills: readonly ProfileSkill[],
): Promise<ProfileRow> {
  const { meta, warning } = await readMetaWithWarning(c, paths);
  let model: string | null = null;
  let provider: string | null = null;
  try {
    const { config } = await loadConfigFile(paths.config);
    model = config.model.default ?? null;
    provider = config.model.provider ?? null;
  } catch {
    // A broken config.yaml is reported by the commands that use it (and `herald doctor`).
  }
  return {
    name: paths.name,
    home: paths.home,
    active: paths.name === c.profile,
    sticky: paths.name === c.sticky,
    description: meta.description,
    description_auto: meta.description_auto,
    skill_count: skills.length,
    model,
    provider,
    warnings: warning ? [warning] : [],
  };
}

function descriptionText(description: string, auto: boolean): string {
  if (description === "") return "(no description)";
  return auto ? `${description} (auto-generated)` : description;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** Asks on the terminal for the profile name; true when it was typed exactly. */
async function confirmByName(c: CliContext, paths: ProfilePaths): Promise<boolean> {
  c.io.err(
    `This deletes profile "${paths.name}" and everything in ${paths.home} ` +
      "(config, secrets, skills, memories, sessions). It cannot be undone.\n" +
      `Type the profile name to confirm: `,
  );
  const lines = new LineReader(c.input());
  try {
    return (await lines.next())?.trim() === paths.name;
  } finally {
    await lines.close();
  }
}

/** Generates and stores a description for one profile (unless it is user-authored). */
async function autoDescribe(
  c: CliContext,
  paths: ProfilePaths,
  overwrite: boolean,
): Promise<DescribeResult> {
  const meta = await readMeta(c, paths);
  if (isUserAuthored(meta) && !overwrite) {
    return { profile: paths.name, status: "kept", ...meta };
  }
  const env = (await readProfileCredentials(paths, c.env)).lookup;
  const loaded = await loadConfigFile(paths.config, env);
  c.warn(paths.config, loaded.warnings);
  const config = loaded.config;
  const skills = await listInstalledSkills(paths.home);
  const prompt = describerPrompt({
    profile: paths.name,
    model: config.model.default,
    provider: config.model.provider,
    skills,
  });
  const answer = await callAuxiliary(
    createModelClient,
    config,
    env,
    PROFILE_DESCRIBER_TASK,
    prompt,
  );
  const description = normalizeDescription(answer);
  if (description === "") throw new EmptyDescriptionError(paths.name);
  await ensureProfileHome(paths);
  const stored = await updateProfileMeta(paths.profileYaml, {
    description,
    description_auto: true,
  });
  return { profile: paths.name, status: "generated", ...stored };
}

function printDescribeResult(c: CliContext, result: DescribeResult, many: boolean): void {
  const name = result.profile;
  switch (result.status) {
    case "shown":
      if (many) {
        c.io.out(`${name}: ${descriptionText(result.description, result.description_auto)}\n`);
      } else if (result.description === "") {
        c.io.out(
          `Profile "${name}" has no description; set one with ` +
            `\`herald profile describe ${name} --text "..."\` or generate one with --auto\n`,
        );
      } else {
        c.io.out(`${result.description}\n`);
        c.io.out(
          result.description_auto
            ? `(auto-generated by the ${PROFILE_DESCRIBER_TASK} model; replace it with --text)\n`
            : "(user-authored)\n",
        );
      }
      return;
    case "set":
      c.io.out(`Set the description of "${name}": ${result.description || "(none)"}\n`);
      return;
    case "generated":
      c.io.out(`Generated the description of "${name}": ${result.description}\n`);
      return;
    case "kept":
      c.io.out(
        `Kept the user-authored description of "${name}": ${result.description}\n` +
          `  (to replace it with a generated one: herald profile describe ${name} --auto --overwrite)\n`,
      );
      return;
    case "failed":
      c.io.out(`${name}: failed: ${result.error.message}\n`);
  }
}

/** Adds the `profile` command family to `program`. */
export function registerProfile(program: Command, ctx: () => CliContext): void {
  const profile = program.command("profile").description(
    "create, list, describe, switch and delete profiles",
  );

  profile.command("create <name>")
    .description("create a named profile under <home>/profiles/<name>")
    .option("--description <text>", "a description of what the profile is for")
    .option("--clone", "copy config, .env, SOUL.md, skills and memories from the active profile")
    .option("--clone-all", "copy everything from the active profile except its history")
    .option("--no-skills", "do not seed the bundled skills (writes .no-bundled-skills)")
    .option("--json", "print JSON")
    .action(async (name: string, options: CreateOptions) => {
      const c = ctx();
      if (options.clone && options.cloneAll) {
        throw usage("Choose one of --clone and --clone-all");
      }
      const mode: CloneMode | undefined = options.cloneAll
        ? "all"
        : options.clone
        ? "config"
        : undefined;
      const from = mode ? await c.paths() : undefined;
      const paths = await createProfile(c.root, name, {
        clone: from && mode ? { from, mode } : undefined,
        description: options.description,
        bundledSkills: options.skills,
      });
      if (options.json) {
        printJson(c.io, {
          name: paths.name,
          home: paths.home,
          clone: mode ?? null,
          cloned_from: from?.name ?? null,
          description: options.description?.trim() ?? null,
          bundled_skills: options.skills,
          skill_count: (await listInstalledSkills(paths.home)).length,
        });
        return;
      }
      const cloned = mode === "all"
        ? ` (everything but history cloned from "${from!.name}")`
        : mode === "config"
        ? ` (config, secrets, skills and memories cloned from "${from!.name}")`
        : "";
      c.io.out(`Created profile "${paths.name}" at ${paths.home}${cloned}\n`);
      if (!options.skills) c.io.out("Bundled skills are not seeded (.no-bundled-skills)\n");
      c.io.out(
        `Use it with: herald -p ${paths.name} <command>, ` +
          `or make it the default with: herald profile use ${paths.name}\n`,
      );
    });

  profile.command("list")
    .description("list profiles with their descriptions")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const c = ctx();
      await c.paths().catch((error) => {
        // A missing or broken selection: say so, and still list what is there.
        if (!(error instanceof HeraldError)) throw error;
        c.io.err(`herald: warning: ${error.message}\n`);
      });
      const rows: ProfileRow[] = [];
      for (const name of await listProfiles(c.root)) {
        const paths = await requireProfile(c.root, name);
        rows.push(await profileRow(c, paths, await listInstalledSkills(paths.home)));
      }
      if (options.json) {
        printJson(c.io, rows);
        return;
      }
      const width = Math.max(...rows.map((row) => row.name.length));
      for (const row of rows) {
        const sticky = row.sticky ? " (sticky)" : "";
        const flagged = row.warnings.length > 0 ? " (profile.yaml ignored, see warning)" : "";
        c.io.out(
          `${row.active ? "*" : " "} ${row.name.padEnd(width)}  ` +
            `${plural(row.skill_count, "skill").padEnd(10)}  ` +
            `${descriptionText(row.description, row.description_auto)}${sticky}${flagged}\n`,
        );
      }
    });

  profile.command("show [name]")
    .description("show one profile (the active one when no name is given)")
    .option("--json", "print JSON")
    .action(async (name: string | undefined, options: { json?: boolean }) => {
      const c = ctx();
      const paths = await target(c, name);
      const skills = await listInstalledSkills(paths.home);
      const row = await profileRow(c, paths, skills);
      if (options.json) {
        printJson(c.io, { ...row, skills });
        return;
      }
      const tags = [row.active ? "active" : "", row.sticky ? "sticky default" : ""]
        .filter(Boolean);
      c.io.out(`Profile:      ${row.name}${tags.length ? ` (${tags.join(", ")})` : ""}\n`);
      c.io.out(`Home:         ${row.home}\n`);
      const model = row.model ? `${row.model}${row.provider ? ` (${row.provider})` : ""}` : "-";
      c.io.out(`Model:        ${model}\n`);
      c.io.out(
        `Description:  ${descriptionText(row.description, row.description_auto)}\n`,
      );
      c.io.out(`Skills:       ${skills.length ? skills.map((s) => s.name).join(", ") : "-"}\n`);
    });

  profile.command("use <name>")
    .description("make a profile the default when no -p is given (`default` goes back)")
    .option("--json", "print JSON")
    .action(async (input: string, options: { json?: boolean }) => {
      const c = ctx();
      const name = parseProfileSelector(input);
      if (name === DEFAULT_PROFILE) {
        await clearActiveProfile(c.root);
      } else {
        await requireProfile(c.root, name);
        await writeActiveProfile(c.root, name);
      }
      if (options.json) printJson(c.io, { sticky: name === DEFAULT_PROFILE ? null : name });
      else if (name === DEFAULT_PROFILE) {
        c.io.out("Commands without -p now use the default profile\n");
      } else {
        c.io.out(
          `Commands without -p now use profile "${name}" ` +
            "(go back with: herald profile use default)\n",
        );
      }
    });

  profile.command("delete <name>")
    .description("delete a named profile and all its data (asks you to type the name)")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .action(async (input: string, options: { yes?: boolean; json?: boolean }) => {
      const c = ctx();
      const name = parseProfileSelector(input);
      if (name === DEFAULT_PROFILE) throw new DefaultProfileError("deleted");
      const paths = await requireProfile(c.root, name);
      if (!options.yes) {
        if (!c.interactive) {
          throw new ProfileDeleteRefusedError(paths.name, "profile_delete_unconfirmed");
        }
        if (!(await confirmByName(c, paths))) {
          throw new ProfileDeleteRefusedError(paths.name, "profile_delete_cancelled");
        }
      }
      const { clearedSticky } = await deleteProfile(c.root, paths.name);
      if (options.json) {
        printJson(c.io, { name: paths.name, home: paths.home, cleared_sticky: clearedSticky });
        return;
      }
      c.io.out(`Deleted profile "${paths.name}" (${paths.home})\n`);
      if (clearedSticky) {
        c.io.out("It was the sticky default; commands now use the default profile\n");
      }
    });

  profile.command("describe [name]")
    .description("print or set a profile's description (used to route kanban tasks)")
    .option("--text <text>", "set a description you wrote")
    .option("--auto", `generate one with the ${PROFILE_DESCRIBER_TASK} auxiliary model`)
    .option("--overwrite", "with --auto: also replace a description you wrote")
    .option("--all", "every profile")
    .option("--json", "print JSON")
    .action(async (name: string | undefined, options: DescribeOptions) => {
      const c = ctx();
      if (options.text !== undefined && options.auto) {
        throw usage("Choose one of --text and --auto");
      }
      if (options.overwrite && !options.auto) {
        throw usage("--overwrite only applies with --auto (--text always replaces)");
      }
      if (options.all && name !== undefined) {
        throw usage("Give a profile name or --all, not both");
      }
      if (options.all && options.text !== undefined) {
        throw usage("--all works with --auto or alone; set each profile's --text separately");
      }
      const targets = options.all
        ? await Promise.all((await listProfiles(c.root)).map((n) => requireProfile(c.root, n)))
        : [await target(c, name)];

      const results: DescribeResult[] = [];
      const failures: HeraldError[] = [];
      for (const paths of targets) {
        if (options.auto) {
          if (!options.all) {
            results.push(await autoDescribe(c, paths, options.overwrite ?? false));
            continue;
          }
          try {
            results.push(await autoDescribe(c, paths, options.overwrite ?? false));
          } catch (error) {
            if (!(error instanceof HeraldError)) throw error;
            failures.push(error);
            results.push({
              profile: paths.name,
              status: "failed",
              error: { code: error.code, message: error.message },
            });
          }
        } else if (options.text !== undefined) {
          await ensureProfileHome(paths);
          const stored = await updateProfileMeta(paths.profileYaml, {
            description: options.text,
            description_auto: false,
          });
          results.push({ profile: paths.name, status: "set", ...stored });
        } else {
          results.push({ profile: paths.name, status: "shown", ...(await readMeta(c, paths)) });
        }
      }

      if (options.json) printJson(c.io, options.all ? results : results[0]);
      else for (const result of results) printDescribeResult(c, result, options.all ?? false);

      if (failures.length > 0) {
        const failed = results.filter((r) => r.status === "failed").map((r) => r.profile);
        throw new HeraldError(
          "profile_describe_failed",
          failures.every((error) => error.kind === "usage") ? "usage" : "state",
          `Could not describe ${failed.length} of ${results.length} profiles (${
            failed.join(", ")
          }); ` +
            "see the messages above",
        );
      }
    });
}
