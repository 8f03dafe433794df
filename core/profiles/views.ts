/**
 * The JSON views of a profile: what `herald profile ... --json` prints and
 * what an API answer about profiles carries. One view per noun, keys in
 * snake_case, as in every `--json` output and API body.
 *
 * @example
 * ```ts
 * const view = profileView({
 *   name: "work", home: "/h/profiles/work", active: true, sticky: false,
 *   meta: { description: "Work.", description_auto: false },
 *   skills: [], model: null, provider: null,
 * });
 * view.description; // "Work."
 * ```
 *
 * @module
 */

import type { ProfileSkill } from "./describe.ts";
import type { ProfileMeta } from "./meta.ts";

/** What is known about one profile, gathered by the use cases in core/usecases/profiles.ts. */
export interface ProfileFacts {
  name: string;
  home: string;
  /** The profile commands use now (the one selected, else the sticky default, else `default`). */
  active: boolean;
  /** Named in `active_profile`. */
  sticky: boolean;
  meta: ProfileMeta;
  /** Set when `profile.yaml` could not be used (then {@link meta} holds the defaults). */
  metaWarning?: string;
  skills: readonly ProfileSkill[];
  /** The main model and its provider from config.yaml; null when unset or unreadable. */
  model: string | null;
  provider: string | null;
}

/** One profile as `profile list` and `profile show` print it. */
export interface ProfileView {
  name: string;
  home: string;
  active: boolean;
  sticky: boolean;
  description: string;
  description_auto: boolean;
  skill_count: number;
  model: string | null;
  provider: string | null;
  /** Problems with this profile's files (a corrupt profile.yaml). */
  warnings: string[];
}

/** A profile with the skills it has (`profile show`). */
export interface ProfileDetailView extends ProfileView {
  skills: ProfileSkill[];
}

/** How a new profile was filled. */
export interface ProfileOrigin {
  /** `config` (`--clone`), `all` (`--clone-all`) or null for a fresh profile. */
  clone: "config" | "all" | null;
  /** The profile it was cloned from, or null. */
  cloned_from: string | null;
  /** False when the bundled skills were not seeded (the opt-out marker was written). */
  bundled_skills: boolean;
  /**
   * Messaging secrets (bot tokens) a clone left out of the copied `.env`,
   * so two profiles never serve the same bot; empty with `--clone-channels`
   * and for a fresh profile.
   */
  stripped_secrets: string[];
}

/** A profile just created: its view and how it was filled (`profile create`). */
export type CreatedProfileView = ProfileView & ProfileOrigin;

/** The view of one profile. */
export function profileView(facts: ProfileFacts): ProfileView {
  return {
    name: facts.name,
    home: facts.home,
    active: facts.active,
    sticky: facts.sticky,
    description: facts.meta.description,
    description_auto: facts.meta.description_auto,
    skill_count: facts.skills.length,
    model: facts.model,
    provider: facts.provider,
    warnings: facts.metaWarning ? [facts.metaWarning] : [],
  };
}

/** The view of one profile with its skills. */
export function profileDetailView(facts: ProfileFacts): ProfileDetailView {
  return { ...profileView(facts), skills: facts.skills.map((skill) => ({ ...skill })) };
}
