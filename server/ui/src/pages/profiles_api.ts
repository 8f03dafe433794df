/**
 * What the Profiles page reads and writes (`/api/profiles`, see
 * docs/dashboard.md), and the event that tells the app's header that the
 * list of profiles changed.
 */

import { api } from "../lib/api.ts";
import type { CreatedProfileView, ProfileView } from "../../../../core/profiles/views.ts";
import type { DescribeResult } from "../../../../core/usecases/profiles.ts";

/** `GET /api/profiles` (server/routes/profiles.ts): every profile, the selected one `active`. */
export interface ProfilesBody {
  profile: string;
  pinned_profile: string | null;
  profiles: ProfileView[];
}

/** The body of `POST /api/profiles` (server/routes/profiles.ts). */
export interface NewProfile {
  name: string;
  description?: string;
  clone_from?: string;
  clone_mode?: "config" | "all";
  clone_channels?: boolean;
  bundled_skills?: boolean;
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
export function createProfile(body: NewProfile): Promise<CreatedProfileView> {
  return api<CreatedProfileView>("POST", "/api/profiles", { body });
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
