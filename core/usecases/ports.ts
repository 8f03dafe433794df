/**
 * The ports the use cases work through: what one profile's files, secrets
 * and sessions look like from core. `adapters/runtime/profile_context.ts`
 * implements them (the one place where adapters are wired for a profile);
 * tests may implement them in memory.
 *
 * @module
 */

import type { EnvLookup, ParsedEnv } from "../config/mod.ts";
import type { SessionFiles } from "../sessions/files.ts";
import type { SessionStore } from "../sessions/store.ts";
import type { PairingStore } from "../pairing/store.ts";

/** A variable to store in `.env`. */
export interface EnvWrite {
  name: string;
  value: string;
}

/** What an edit of config.yaml amounts to (see {@link ConfigFiles.updateConfig}). */
export interface ConfigChange {
  /** The new config.yaml text, or null when config.yaml does not change. */
  text: string | null;
  /** Variables to store in `.env` before the config that references them is written. */
  secrets?: readonly EnvWrite[];
}

/** Where a credential comes from. */
export type CredentialSource = "env_file" | "environment";

/** A profile's credentials: its `.env` first, then the process environment. */
export interface Credentials {
  /** Only the profile's `.env`. */
  dotenv: ReadonlyMap<string, string>;
  /** The `.env` first, then the environment (how a session resolves keys). */
  lookup: EnvLookup;
  /** Where a variable comes from, or null when it is not set. */
  source(name: string): CredentialSource | null;
}

/** A profile's config.yaml and `.env`. Every write is atomic; `.env` stays 0600. */
export interface ConfigFiles {
  /** Path of config.yaml, for messages and views. */
  readonly configPath: string;
  /** Path of `.env`, for messages and views. */
  readonly envPath: string;
  /** config.yaml as text; a missing file is "". */
  readConfigText(): Promise<string>;
  /**
   * Edits config.yaml under the locks of `.env` and config.yaml (in that
   * order; the profile home is created when missing): `edit` gets the text
   * as it is now, inside the locks, so a change made meanwhile by another
   * process is kept. Its `secrets` are written to `.env` first, then its
   * `text`. `edit` may throw to refuse (nothing is written) or return null
   * for "nothing to do". Returns what `edit` returned.
   */
  updateConfig<T extends ConfigChange>(
    edit: (current: string) => T | null | Promise<T | null>,
  ): Promise<T | null>;
  /** `.env` parsed; a missing file is empty. */
  readEnv(): Promise<ParsedEnv>;
  /** Sets one `.env` variable under the file's lock, keeping every other line. */
  setEnv(name: string, value: string): Promise<void>;
  /** Removes `.env` variables under the file's lock; returns the names that were there. */
  removeEnv(names: readonly string[]): Promise<string[]>;
  /** The credentials a session of this profile would use. */
  credentials(): Promise<Credentials>;
}

/** A profile's stored sessions: the state database and the files beside it. */
export interface SessionData {
  /**
   * Runs `work` with the profile's store and closes it afterwards. Without
   * `create`, a profile that has no database yet gets `undefined` (it has no
   * sessions) and nothing is created.
   */
  withStore<T>(
    work: (store: SessionStore | undefined) => Promise<T> | T,
    options?: { create?: boolean },
  ): Promise<T>;
  /** Transcripts and request dumps. */
  readonly files: SessionFiles;
}

/** One profile, as the use cases see it. */
export interface ProfileContext {
  /** The profile's name (`default` for the root home). */
  readonly name: string;
  /** The profile's home folder. */
  readonly home: string;
  readonly files: ConfigFiles;
  readonly sessions: SessionData;
  /** The profile's pairing store (`pairing.json`): who may talk to its bots besides the allowlists. */
  pairing(): PairingStore;
}
