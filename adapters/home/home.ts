/**
 * Creating, finding and deleting profile homes. A home is made on first use
 * with directories 0700 and `.env` 0600, and bundled skills are seeded into
 * it (also into a home that exists but was never seeded, and again when a
 * new release ships changed bundled skills); nothing existing is ever
 * replaced. A new named profile is built in a
 * hidden staging folder and renamed into place, so a failure leaves nothing
 * half-made.
 *
 * @module
 */

import { join } from "node:path";
import { HomeError, ProfileExistsError, ProfileNotFoundError } from "../../core/errors.ts";
import {
  DEFAULT_PROFILE,
  DefaultProfileError,
  parseProfileName,
  parseProfileSelector,
  PROFILE_NAME_PATTERN,
} from "../../core/profiles/mod.ts";
import { OPT_OUT_MARKER, seedBundledSkills, syncBundledSkills } from "../skills/mod.ts";
import { clearActiveProfile, readActiveProfileSync } from "./active_profile.ts";
import { type CloneMode, copyProfileContents } from "./clone.ts";
import { PROFILE_DIRS, type ProfilePaths, profilePaths } from "./layout.ts";
import { updateProfileMeta } from "./profile_meta.ts";
import { isDirectory, pathExists } from "../fs/read.ts";

/** The opt-out marker: while it exists in a profile home, no bundled skill is seeded there. */
export const NO_BUNDLED_SKILLS_MARKER: string = OPT_OUT_MARKER;

const ENV_HEADER =
  "# Secrets for this Herald profile (API keys, tokens). Keep this file private.\n";

async function makeDir(path: string): Promise<void> {
  try {
    await Deno.mkdir(path, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    if (!(await isDirectory(path))) {
      throw new HomeError(path, "exists but is not a directory; move it away and try again");
    }
  }
}

/**
 * Creates whatever is missing of a profile home: the folder (0700), its
 * sub-folders and an empty `.env` (0600). Existing files are left alone.
 * Unless the home has the opt-out marker, the bundled skills are seeded
 * when the home has not seen this release's set yet: a new home, one that
 * exists but was never seeded, or one seeded by an older release (whose
 * unmodified bundled skills update; changed and deleted ones are kept as
 * they are). Otherwise this costs a few small reads.
 */
export async function ensureProfileHome(paths: ProfilePaths): Promise<void> {
  await makeHome(paths);
  await syncBundledSkills(paths.home);
}

/** Makes what is missing of a home. */
async function makeHome(paths: ProfilePaths): Promise<void> {
  if (!(await isDirectory(paths.home))) {
    try {
      await Deno.mkdir(paths.home, { recursive: true, mode: 0o700 });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      throw new HomeError(paths.home, "exists but is not a directory; move it away and try again");
    }
  }
  for (const dir of PROFILE_DIRS) await makeDir(join(paths.home, dir));
  try {
    const file = await Deno.open(paths.env, { write: true, createNew: true, mode: 0o600 });
    try {
      await file.write(new TextEncoder().encode(ENV_HEADER));
    } finally {
      file.close();
    }
    await Deno.chmod(paths.env, 0o600);
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
}

/** True when `home` has the `.no-bundled-skills` marker. */
export function hasNoBundledSkillsMarker(home: string): Promise<boolean> {
  return pathExists(join(home, NO_BUNDLED_SKILLS_MARKER));
}

async function seedUnlessOptedOut(home: string): Promise<void> {
  if (!(await hasNoBundledSkillsMarker(home))) await seedBundledSkills(home);
}

/** True when the profile's home folder exists. */
export function profileExists(paths: ProfilePaths): Promise<boolean> {
  return isDirectory(paths.home);
}

/**
 * Paths of an existing profile: `default` always resolves (its home is made
 * on first use); a named profile must already exist.
 *
 * @throws ProfileNotFoundError for a named profile with no home.
 */
export async function requireProfile(root: string, name: string): Promise<ProfilePaths> {
  const paths = profilePaths(root, name);
  if (name !== DEFAULT_PROFILE && !(await profileExists(paths))) {
    throw new ProfileNotFoundError(name, paths.home);
  }
  return paths;
}

/** How {@link createProfile} fills a new profile. */
export interface CreateProfileOptions {
  /**
   * Copy from this profile: `config` (`--clone`) or everything but history
   * (`--clone-all`); the messaging secrets stay behind unless `keepChannels`.
   */
  clone?: { from: ProfilePaths; mode: CloneMode; keepChannels?: boolean };
  /** A user-authored description for `profile.yaml`. */
  description?: string;
  /** Seed the bundled skills (the default); false writes the `.no-bundled-skills` marker instead. */
  bundledSkills?: boolean;
}

/** A profile just created by {@link createProfile}. */
export interface CreatedProfilePaths extends ProfilePaths {
  /** Messaging secrets a clone left out of the copied `.env` (empty for a fresh profile). */
  strippedSecrets: string[];
}

/**
 * Creates a new named profile home, fresh or cloned, with bundled skills
 * seeded (or the opt-out marker written). The home is assembled in a hidden
 * folder beside its final place and renamed into place at the end; on any
 * failure that folder is removed and nothing is left behind.
 *
 * @example
 * ```ts
 * const work = await createProfile(root, "work", {
 *   clone: { from: profilePaths(root, "default"), mode: "config" },
 *   description: "Handles work email and calendars.",
 * });
 * ```
 *
 * @throws ProfileNameError for an invalid or reserved name.
 * @throws ProfileExistsError when the profile already exists.
 */
export async function createProfile(
  root: string,
  input: string,
  options: CreateProfileOptions = {},
): Promise<CreatedProfilePaths> {
  const paths = profilePaths(root, parseProfileName(input));
  // Creating a profile is a first use of the root home too.
  await ensureProfileHome(profilePaths(root, DEFAULT_PROFILE));
  const profilesDir = join(root, "profiles");
  await Deno.mkdir(profilesDir, { recursive: true, mode: 0o700 });
  if (await pathExists(paths.home)) throw new ProfileExistsError(paths.name, paths.home);

  const staging = join(profilesDir, `.${paths.name}.creating-${randomSuffix()}`);
  let strippedSecrets: string[] = [];
  await Deno.mkdir(staging, { mode: 0o700 });
  try {
    const staged = { ...profilePaths(staging, DEFAULT_PROFILE), name: paths.name };
    if (options.clone) {
      const { from, mode, keepChannels } = options.clone;
      ({ strippedSecrets } = await copyProfileContents(from, staging, mode, { keepChannels }));
    }
    await makeHome(staged);
    if (options.description !== undefined) {
      await updateProfileMeta(staged.profileYaml, {
        description: options.description,
        description_auto: false,
      });
    }
    if (options.bundledSkills === false) {
      await Deno.writeTextFile(join(staging, NO_BUNDLED_SKILLS_MARKER), "", { mode: 0o600 });
    } else {
      await seedUnlessOptedOut(staging);
    }
    try {
      await Deno.rename(staging, paths.home);
    } catch (error) {
      if (await pathExists(paths.home)) throw new ProfileExistsError(paths.name, paths.home);
      throw error;
    }
  } catch (error) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  }
  return { ...paths, strippedSecrets };
}

/** What {@link deleteProfile} did. */
export interface DeletedProfile {
  paths: ProfilePaths;
  /** True when the profile was the sticky default and `active_profile` was removed. */
  clearedSticky: boolean;
}

/**
 * Deletes a named profile's home and everything in it. The home is first
 * renamed to a hidden folder, so an interrupted deletion never leaves a
 * half-deleted profile in the list. Clears the sticky default when it named
 * this profile.
 *
 * @throws DefaultProfileError for `default`.
 * @throws ProfileNotFoundError when the profile does not exist.
 */
export async function deleteProfile(root: string, input: string): Promise<DeletedProfile> {
  const name = parseProfileSelector(input);
  if (name === DEFAULT_PROFILE) throw new DefaultProfileError("deleted");
  const paths = await requireProfile(root, name);
  const doomed = join(root, "profiles", `.${name}.deleting-${randomSuffix()}`);
  await Deno.rename(paths.home, doomed);
  await Deno.remove(doomed, { recursive: true });
  let sticky: string | undefined;
  try {
    sticky = readActiveProfileSync(root);
  } catch {
    sticky = undefined; // an unreadable active_profile is reported where it is used
  }
  const clearedSticky = sticky === name && (await clearActiveProfile(root));
  return { paths, clearedSticky };
}

/**
 * Names of every profile on disk: `default` first, then named profiles
 * sorted. Folders that are not valid profile names (staging folders of a
 * profile being created, for example) are left out.
 */
export async function listProfiles(root: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(root, "profiles"))) {
      if (!PROFILE_NAME_PATTERN.test(entry.name)) continue;
      if (
        entry.isDirectory ||
        (entry.isSymlink && (await isDirectory(join(root, "profiles", entry.name))))
      ) {
        names.push(entry.name);
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return [DEFAULT_PROFILE, ...names.sort()];
}

function randomSuffix(): string {
  return crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
}
