/**
 * The port of home-level work: the root home and every profile in it, as
 * the profile use cases (core/usecases/profiles.ts) see them. A profile's
 * own config, secrets and sessions go through {@link ProfileContext}
 * (ports.ts); creating, cloning, listing, describing and deleting profiles
 * go through {@link ProfileHome}. `adapters/home/profile_home.ts`
 * implements it.
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";
import type { HeraldConfig } from "../config/schema.ts";
import type { ModelClientFactory } from "../models/settings.ts";
import type { ProfileMeta, ProfileMetaRead, ProfileSkill } from "../profiles/mod.ts";

/** `config`: settings, secrets, persona, skills and memories. `all`: everything but history. */
export type CloneMode = "config" | "all";

/** A profile's config as a session of it would use it. */
export interface LoadedProfileConfig {
  config: HeraldConfig;
  /** The profile's `.env` first, then the process environment. */
  credentials: EnvLookup;
  /** Problems in config.yaml that did not stop reading it, each naming the file. */
  warnings: string[];
}

/** How {@link HomeProfile.writeDescription} stores a description. */
export interface DescriptionWriteOptions {
  /** True when the auxiliary model wrote it. */
  auto: boolean;
  /** Keep a description a person wrote, as found when the file is locked for the write. */
  keepUserAuthored?: boolean;
}

/** What {@link HomeProfile.writeDescription} did. */
export interface DescriptionWrite {
  /** The metadata `profile.yaml` holds now. */
  meta: ProfileMeta;
  /** False when a description a person wrote was kept and nothing was written. */
  written: boolean;
}

/** One existing profile's home, as the profile use cases read and write it. */
export interface HomeProfile {
  /** The profile's name (`default` for the root home). */
  readonly name: string;
  /** The profile's home folder. */
  readonly home: string;
  /** `profile.yaml`; a missing, unreadable or corrupt file is the defaults (with a warning). */
  readMeta(): Promise<ProfileMetaRead>;
  /**
   * Stores the description fields (creating the home when missing), marked
   * generated when `auto`. With `keepUserAuthored`, `profile.yaml` is
   * re-read under its lock and a description a person wrote
   * (`isUserAuthored`) is kept: nothing is written.
   */
  writeDescription(
    description: string,
    options: DescriptionWriteOptions,
  ): Promise<DescriptionWrite>;
  /** The skills offered in the profile, sorted by name. */
  listSkills(): Promise<ProfileSkill[]>;
  /** The main model and provider of config.yaml; nulls when unset or config.yaml is broken. */
  mainModel(): Promise<{ model: string | null; provider: string | null }>;
  /**
   * config.yaml with the profile's credentials.
   *
   * @throws ConfigParseError when config.yaml does not parse.
   */
  loadConfig(): Promise<LoadedProfileConfig>;
}

/** How a new profile is filled. */
export interface NewProfile {
  /**
   * Copy from this existing profile: `config` (`--clone`) or everything but
   * history (`--clone-all`). The messaging platforms' secrets are left out
   * of the copied `.env` unless `keepChannels` (`--clone-channels`).
   */
  clone?: { from: string; mode: CloneMode; keepChannels?: boolean };
  /** A user-authored description for `profile.yaml`. */
  description?: string;
  /** Seed the bundled skills (the default); false writes the opt-out marker instead. */
  bundledSkills?: boolean;
}

/** A profile just created, and what its making left out. */
export interface CreatedHomeProfile extends HomeProfile {
  /** Messaging secrets a clone left out of the copied `.env` (empty for a fresh profile). */
  readonly strippedSecrets: readonly string[];
}

/** The root home and its profiles. */
export interface ProfileHome {
  /** The root home (`HERALD_HOME` or `~/.herald`). */
  readonly root: string;
  /** Every profile on disk: `default` first, then named profiles sorted. */
  listNames(): Promise<string[]>;
  /**
   * An existing profile by its (already parsed) name; `default` always exists.
   *
   * @throws ProfileNotFoundError for a named profile with no home.
   */
  open(name: string): Promise<HomeProfile>;
  /**
   * Creates a named profile, fresh or cloned; a failure leaves nothing behind.
   *
   * @throws ProfileNameError for an invalid or reserved name.
   * @throws ProfileExistsError when it exists already.
   */
  create(name: string, profile: NewProfile): Promise<CreatedHomeProfile>;
  /**
   * Deletes a named profile and everything in it; clears the sticky default
   * when it named this profile.
   */
  remove(name: string): Promise<{ clearedSticky: boolean }>;
  /**
   * The sticky default (`active_profile`), or undefined when none is set.
   *
   * @throws ActiveProfileError when the file names no valid profile name.
   */
  readSticky(): Promise<string | undefined>;
  /** Sets the sticky default, or removes it for `undefined`. */
  writeSticky(name: string | undefined): Promise<void>;
  /** Makes model clients (the auxiliary call that describes a profile). */
  readonly createClient: ModelClientFactory;
}
