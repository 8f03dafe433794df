/**
 * The skill use cases: list the skills of a profile, show one, opt out of
 * (or back into) the bundled skills Herald seeds, and reset one of them. Each is one function
 * over a profile's {@link SkillLibrary}; `herald skills ...` and
 * `/api/skills` call them and only render.
 *
 * @example
 * ```ts
 * const library = openSkillLibrary(profile);
 * const { skills, warnings } = await listSkills(library, { all: true });
 * const { skill } = await showSkill(library, "code-review");
 * ```
 *
 * @module
 */

import {
  BundledSkillModifiedError,
  BundledSkillNotFoundError,
  type BundledSkillState,
  type CatalogWarning,
  findSkill,
  type SeedReportView,
  seedReportView,
  type SkillDetailView,
  skillDetailView,
  SkillNotFoundError,
  type SkillView,
  skillView,
  type TrackedSkillState,
} from "../skills/mod.ts";
import type { SkillLibrary } from "./ports_skills.ts";
import { builtinCommandNames } from "./_slash_names.ts";

/** How a surface shows a path in a message (the CLI writes the user's home as `~`). */
export type ShowPath = (path: string) => string;

/** The skills of a profile, and the files that were skipped while reading them. */
export interface SkillList {
  /** Sorted by slug. */
  skills: SkillView[];
  /** Broken or duplicate skill and bundle files, each skipped. */
  warnings: CatalogWarning[];
}

async function trackedStates(library: SkillLibrary): Promise<Map<string, TrackedSkillState>> {
  return new Map((await library.trackedSkills()).map((skill) => [skill.dir, skill.state]));
}

/**
 * The profile's skills: those meant for this system, and with `all` also
 * those meant for another one (`available: false`). Each says whether it
 * works as `/<slug>` and whether it is a bundled skill.
 */
export async function listSkills(
  library: SkillLibrary,
  options: { all: boolean },
): Promise<SkillList> {
  const snapshot = await library.snapshot();
  const tracked = await trackedStates(library);
  const builtins = builtinCommandNames();
  const view = (available: boolean) => (skill: (typeof snapshot.skills)[number]) =>
    skillView(skill, {
      available,
      builtins,
      bundles: snapshot.bundles,
      tracked: tracked.get(skill.dir),
    });
  const skills = snapshot.skills.map(view(true));
  if (options.all) skills.push(...snapshot.hidden.map(view(false)));
  skills.sort((a, b) => a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
  return { skills, warnings: [...snapshot.warnings] };
}

/** One skill with its instructions, and the files skipped while finding it. */
export interface ShownSkill {
  skill: SkillDetailView;
  warnings: CatalogWarning[];
}

/**
 * One skill, by slug, name or folder path, with its instructions and
 * supporting files; a skill meant for another system is shown too (with a
 * note).
 *
 * @throws SkillNotFoundError when no skill matches.
 */
export async function showSkill(
  library: SkillLibrary,
  name: string,
  options: { showPath?: ShowPath } = {},
): Promise<ShownSkill> {
  const snapshot = await library.snapshot();
  const available = findSkill(snapshot.skills, name);
  const skill = available ?? findSkill(snapshot.hidden, name);
  if (!skill) {
    throw new SkillNotFoundError(name, (options.showPath ?? String)(library.skillsDir));
  }
  const document = await library.readSkill(skill);
  const tracked = await trackedStates(library);
  return {
    skill: skillDetailView(document, {
      available: available !== undefined,
      builtins: builtinCommandNames(),
      bundles: snapshot.bundles,
      tracked: tracked.get(skill.dir),
    }),
    warnings: [...snapshot.warnings],
  };
}

/** The bundled skills opting out with `remove` would delete, and those it keeps. */
export interface OptOutPlan {
  /** Unmodified bundled skills, to be deleted. */
  doomed: { name: string; dir: string }[];
  /** Bundled skills the user changed; never deleted. */
  kept_modified: string[];
}

/** Options of {@link optOutOfBundledSkills}. */
export interface OptOutOptions {
  /** Also delete the bundled skills that are unchanged since they were seeded. */
  remove?: boolean;
  /**
   * Asks a person before anything is deleted (called only when something
   * would be); false cancels and nothing changes. It may throw to refuse
   * (for example when nobody can be asked). Without it, nothing is asked.
   */
  confirm?: (plan: OptOutPlan) => Promise<boolean>;
}

/** What opting out did (`skills opt-out --json`). */
export interface OptOutView {
  opted_out: true;
  /** True when the profile had opted out already. */
  was_opted_out: boolean;
  /** The marker file. */
  marker: string;
  /** Bundled skills deleted. */
  removed: string[];
  /** Bundled skills kept because the user changed them. */
  kept_modified: string[];
}

/**
 * Stops seeding the bundled skills into the profile (writes the opt-out
 * marker); with `remove`, also deletes the bundled skills the user never
 * changed. Returns undefined when `confirm` said no (nothing changed).
 */
export async function optOutOfBundledSkills(
  library: SkillLibrary,
  options: OptOutOptions = {},
): Promise<OptOutView | undefined> {
  let removed: string[] = [];
  let keptModified: string[] = [];
  if (options.remove) {
    const tracked = await library.trackedSkills();
    const doomed = tracked.filter((skill) => skill.state === "unmodified");
    keptModified = tracked.filter((skill) => skill.state === "modified").map((s) => s.name);
    const plan: OptOutPlan = {
      doomed: doomed.map(({ name, dir }) => ({ name, dir })),
      kept_modified: keptModified,
    };
    if (doomed.length > 0 && options.confirm && !(await options.confirm(plan))) return undefined;
    removed = await library.removeBundledSkills(doomed.map((skill) => skill.name));
  }
  const created = await library.writeOptOut();
  return {
    opted_out: true,
    was_opted_out: !created,
    marker: library.optOutMarker,
    removed,
    kept_modified: keptModified,
  };
}

/** What opting in did (`skills opt-in --json`). */
export interface OptInView {
  opted_out: false;
  /** True when the profile had opted out before. */
  was_opted_out: boolean;
  /** What seeding did, when `sync` asked for it. */
  seeded: SeedReportView | null;
}

/**
 * Seeds the bundled skills into the profile again (removes the opt-out
 * marker); with `sync`, seeds them now.
 */
export async function optInToBundledSkills(
  library: SkillLibrary,
  options: { sync?: boolean } = {},
): Promise<OptInView> {
  const wasOut = await library.isOptedOut();
  await library.removeOptOut();
  const seeded = options.sync ? seedReportView(await library.seedBundled()) : null;
  return { opted_out: false, was_opted_out: wasOut, seeded };
}

/** Options of {@link resetBundledSkill}. */
export interface ResetSkillOptions {
  /** Also replace a copy the user changed, or their own skill of the same name. */
  restore?: boolean;
  /**
   * Asks a person before a changed copy is replaced (called only then);
   * false cancels and nothing changes. It may throw to refuse (nobody to
   * ask). Without it, nothing is asked.
   */
  confirm?: (skill: { name: string; dir: string; state: BundledSkillState }) => Promise<boolean>;
}

/** What resetting a bundled skill did (`skills reset --json`). */
export interface ResetSkillView {
  name: string;
  dir: string;
  /** How the profile's copy stood before. */
  previous_state: BundledSkillState;
  /**
   * `restored`: the bundled version was put back (it was deleted, never
   * seeded, or replaced with --restore); `updated`: an unchanged copy of an
   * older version was updated; `unchanged`: it already was the bundled version.
   */
  action: "restored" | "updated" | "unchanged";
}

/**
 * Brings a bundled skill back into the profile: one the user deleted (or
 * that was never seeded) is copied again, an unchanged copy of an older
 * version is updated. A copy the user changed (or their own skill of the
 * same name) is replaced only with `restore`, after `confirm`. The skill is
 * recorded as seeded again, so later releases update it. Returns undefined
 * when `confirm` said no (nothing changed).
 *
 * @example
 * ```ts
 * const reset = await resetBundledSkill(library, "code-review");
 * reset?.action; // "restored"
 * ```
 *
 * @throws BundledSkillNotFoundError when no bundled skill has that name.
 * @throws BundledSkillModifiedError for a changed copy without `restore`.
 */
export async function resetBundledSkill(
  library: SkillLibrary,
  name: string,
  options: ResetSkillOptions = {},
): Promise<ResetSkillView | undefined> {
  const status = await library.bundledSkillStatus(name);
  if (!status) throw new BundledSkillNotFoundError(name, await library.bundledSkillNames());
  const view = (action: ResetSkillView["action"], dir = status.dir): ResetSkillView => ({
    name: status.name,
    dir,
    previous_state: status.state,
    action,
  });
  if (status.state === "current") return view("unchanged");
  const changed = status.state === "modified" || status.state === "user_owned";
  if (changed) {
    if (!options.restore) {
      throw new BundledSkillModifiedError(status.name, status.dir, status.state === "user_owned");
    }
    if (options.confirm && !(await options.confirm(status))) return undefined;
  }
  const restored = await library.restoreBundledSkill(status.name);
  if (!restored) throw new BundledSkillNotFoundError(name, await library.bundledSkillNames());
  return view(status.state === "outdated" ? "updated" : "restored", restored.dir);
}
