/**
 * The board's orchestration settings as the dashboard shows and changes
 * them: `kanban.orchestrator_profile`, `kanban.default_assignee` and
 * `kanban.auto_decompose` of a profile's config.yaml, with the fallbacks
 * actually used (`resolved`): the configured profile when it exists, else
 * the default profile (the sticky default, else `default`), as the
 * decomposer and the assignee rule (core/kanban/rules.ts) resolve them.
 *
 * @example
 * ```ts
 * const view = await readOrchestration(profile, home);
 * view.resolved.orchestrator_profile; // "default" while none is configured
 * await writeOrchestration(profile, home, { auto_decompose: false });
 * ```
 *
 * @module
 */

import { DEFAULT_PROFILE } from "../profiles/mod.ts";
import { HeraldError } from "../errors.ts";
import type { ConfigEdit } from "../config/mod.ts";
import { editConfig, loadWrittenConfig } from "./config.ts";
import type { ProfileContext } from "./ports.ts";
import type { ProfileHome } from "./ports_home.ts";

/** The three settings as config.yaml holds them (null: not set). */
export interface OrchestrationSettings {
  orchestrator_profile: string | null;
  default_assignee: string | null;
  auto_decompose: boolean;
}

/** The settings and the profiles the board falls back to. */
export interface OrchestrationView extends OrchestrationSettings {
  resolved: {
    /** Who a decomposed root goes to. */
    orchestrator_profile: string;
    /** Who a task whose assignee is missing or unknown goes to. */
    default_assignee: string;
  };
}

/** A change of the settings: absent fields stay, null (or "") clears a profile. */
export type OrchestrationChange = {
  orchestrator_profile?: string | null;
  default_assignee?: string | null;
  auto_decompose?: boolean;
};

/** The parts of the profile home these use cases read. */
export type OrchestrationHome = Pick<ProfileHome, "listNames" | "readSticky">;

/**
 * The fallbacks the board uses with `settings`: each configured profile
 * when it names one of `profiles`, else `defaultProfile`.
 *
 * @example
 * ```ts
 * resolveOrchestration(
 *   { orchestrator_profile: "ghost", default_assignee: "coder", auto_decompose: true },
 *   ["default", "coder"],
 *   "default",
 * ).resolved; // { orchestrator_profile: "default", default_assignee: "coder" }
 * ```
 */
export function resolveOrchestration(
  settings: OrchestrationSettings,
  profiles: readonly string[],
  defaultProfile: string,
): OrchestrationView {
  const known = new Set(profiles);
  const pick = (name: string | null) => {
    const wanted = normalize(name);
    return wanted && known.has(wanted) ? wanted : defaultProfile;
  };
  return {
    ...settings,
    resolved: {
      orchestrator_profile: pick(settings.orchestrator_profile),
      default_assignee: pick(settings.default_assignee),
    },
  };
}

function normalize(name: string | null | undefined): string {
  return (name ?? "").trim().toLowerCase();
}

/** The sticky default, else `default` (a broken `active_profile` reads as none). */
async function defaultProfileOf(home: OrchestrationHome): Promise<string> {
  try {
    return (await home.readSticky()) ?? DEFAULT_PROFILE;
  } catch (error) {
    if (error instanceof HeraldError) return DEFAULT_PROFILE;
    throw error;
  }
}

/**
 * The orchestration settings of `profile`'s config.yaml and the profiles
 * they resolve to.
 *
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function readOrchestration(
  profile: ProfileContext,
  home: OrchestrationHome,
): Promise<OrchestrationView> {
  const [{ config }, profiles, fallback] = await Promise.all([
    loadWrittenConfig(profile),
    home.listNames(),
    defaultProfileOf(home),
  ]);
  return resolveOrchestration(
    {
      orchestrator_profile: config.kanban.orchestrator_profile ?? null,
      default_assignee: config.kanban.default_assignee ?? null,
      auto_decompose: config.kanban.auto_decompose,
    },
    profiles,
    fallback,
  );
}

/**
 * Writes the settings `change` names into `profile`'s config.yaml in one
 * locked edit (comments and other keys kept) and returns them resolved.
 * A profile name is stored trimmed and lowercased; null or "" removes the
 * key, so the default profile applies again.
 *
 * @throws HeraldError `kanban_unknown_profile` (usage; `details.profiles`
 *   lists them, comma-separated) when a profile named does not exist: nothing is written.
 * @throws ConfigParseError when config.yaml is not YAML.
 */
export async function writeOrchestration(
  profile: ProfileContext,
  home: OrchestrationHome,
  change: OrchestrationChange,
): Promise<OrchestrationView> {
  const profiles = await home.listNames();
  const edits: ConfigEdit[] = [];
  const unknown: string[] = [];
  for (const key of ["orchestrator_profile", "default_assignee"] as const) {
    if (!(key in change) || change[key] === undefined) continue;
    const name = normalize(change[key]);
    if (name === "") {
      edits.push({ key: `kanban.${key}`, value: null });
    } else if (profiles.includes(name)) {
      edits.push({ key: `kanban.${key}`, value: name });
    } else unknown.push(name);
  }
  if (unknown.length > 0) {
    const list = unknown.map((name) => `"${name}"`).join(" and ");
    throw new HeraldError(
      "kanban_unknown_profile",
      "usage",
      `No profile ${list}; profiles: ${profiles.join(", ")} ` +
        "(herald profile create <name> adds one). Nothing was changed",
      { details: { profiles: unknown.join(", ") } },
    );
  }
  if (change.auto_decompose !== undefined) {
    edits.push({ key: "kanban.auto_decompose", value: change.auto_decompose });
  }
  if (edits.length > 0) await editConfig(profile, edits);
  return await readOrchestration(profile, home);
}
