/**
 * What the Profiles page reads and writes (`/api/profiles`, see
 * docs/dashboard.md), and the event that tells the app's header that the
 * list of profiles changed.
 */

import { api } from "../lib/api.ts";

/** One profile as `GET /api/profiles` lists it (`herald profile list --json`). */
export interface ProfileRow {
  name: string;
  home: string;
  /** The profile the page works on now. */
  active: boolean;
  /** The default `herald profile use` set. */
  sticky: boolean;
  description: string;
  /** True while the description is the one the auxiliary model generated. */
  description_auto: boolean;
  skill_count: number;
  model: string | null;
  provider: string | null;
  warnings: string[];
}

/** `GET /api/profiles`. */
export interface ProfilesBody {
  profile: string;
  pinned_profile: string | null;
  profiles: ProfileRow[];
}

/** What setting or generating a description did. */
export interface DescribeResult {
  profile: string;
  status: "set" | "generated" | "kept";
  description: string;
  description_auto: boolean;
}

/** The body of `POST /api/profiles`. */
export interface NewProfile {
  name: string;
  description?: string;
  clone_from?: string;
  clone_mode?: "config" | "all";
  clone_channels?: boolean;
  bundled_skills?: boolean;
}

/** A profile just created: its row and how it was filled. */
export interface CreatedProfile extends ProfileRow {
  clone: "config" | "all" | null;
  cloned_from: string | null;
  stripped_secrets: string[];
}

/**
 * The window event sent when profiles were created; its `detail` is every
 * profile's name, so the header's switcher lists them at once.
 */
export const PROFILES_CHANGED_EVENT = "herald:profiles-changed";

/** Tells the app that the profiles are now `names`. */
export function announceProfiles(names: string[]): void {
  dispatchEvent(new CustomEvent(PROFILES_CHANGED_EVENT, { detail: names }));
}

/** Every profile, with the selected one marked active. */
export function loadProfiles(signal?: AbortSignal): Promise<ProfilesBody> {
  return api<ProfilesBody>("GET", "/api/profiles", { signal });
}

/** Creates (or clones) a profile. */
export function createProfile(body: NewProfile): Promise<CreatedProfile> {
  return api<CreatedProfile>("POST", "/api/profiles", { body });
}

/** Stores a description a person wrote ("" clears it). */
export function setDescription(name: string, description: string): Promise<DescribeResult> {
  return api<DescribeResult>("PATCH", `/api/profiles/${encodeURIComponent(name)}`, {
    body: { description },
  });
}

/** Asks the auxiliary model for a description; `overwrite` replaces one a person wrote. */
export function generateDescription(name: string, overwrite: boolean): Promise<DescribeResult> {
  return api<DescribeResult>("POST", `/api/profiles/${encodeURIComponent(name)}/describe`, {
    body: { overwrite },
  });
}
