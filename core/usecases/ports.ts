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
import type { HeraldError } from "../errors.ts";
import type { CronFiles } from "../schedules/automations.ts";

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
  /** The profile's messaging platforms, reached directly (without the gateway). */
  messaging(): MessagingLinks;
  /** The profile's `cron/` folder: scheduled jobs, their saved runs, the last tick. */
  cron(): CronFiles;
}

/** Where {@link MessagingLinks.send} delivers: a chat on a platform, maybe a thread in it. */
export interface MessageTarget {
  platform: string;
  chatId: string;
  threadId?: string;
}

/** What a platform said when asked who the bot is (`getMe`, bot info). */
export interface PlatformProbe {
  ok: boolean;
  /** The bot's name or id on the platform, when reached. */
  identity?: string;
  /** Why it failed, fit for the user (never a secret). */
  error?: string;
}

/** How {@link MessagingLinks.send} goes on after a failed attempt, and what it refuses. */
export interface MessageSendOptions {
  /**
   * Asked after each failed attempt with the failure (a `platform_refused`
   * HeraldError, `retryable` in its details) and the number of attempts
   * made so far; resolves true to try again. A new attempt goes on from the
   * first part the platform did not confirm, so nothing confirmed is sent
   * twice. Absent: one attempt.
   */
  retry?(failure: HeraldError, attempts: number): Promise<boolean>;
  /**
   * Refuse the whole message, before anything is sent, when a file it names
   * (`MEDIA:<path>`) is protected like the file tools' writes are (a `.env`
   * file, Herald's home, credential and system folders): what the agent
   * sends, since a prompt injection may ask for such a file.
   */
  protectFiles?: boolean;
}

/** What the platform confirmed for a message sent with {@link MessagingLinks.send}. */
export interface MessageSent {
  /** The platform's ids of the messages it accepted (a long text may be several). */
  messageIds: string[];
}

/**
 * The profile's messaging platforms reached directly, one call at a time,
 * without the gateway: the dashboard's test call and `herald send` use it.
 * A platform is reached with the profile's credentials whether or not it
 * is enabled (a test call comes before enabling). Implemented in
 * adapters/runtime/messaging_links.ts with the bundled channel plugins.
 */
export interface MessagingLinks {
  /** The ids of the platforms this build can reach (`telegram`, `line`, ...). */
  platforms(): Promise<string[]>;
  /**
   * Asks `platform` who the bot is, with the profile's credentials.
   *
   * @throws HeraldError `platform_unknown` (no such platform), `platform_not_configured`
   *   (naming the missing or malformed setting), `platform_cannot_probe`.
   */
  probe(platform: string): Promise<PlatformProbe>;
  /**
   * Sends `markdown` to `to`, converted and split as the platform needs
   * (`MEDIA:<path>` and `[[as_document]]` send files). One attempt: a
   * passing failure (a timeout, a 5xx) rejects like a refusal, with
   * `retryable` in the error's details.
   *
   * @throws HeraldError `platform_unknown`, `platform_not_configured`, `platform_cannot_send`
   *   (kind `usage`/`state`), `platform_refused` (kind `unavailable`; details: `retryable`,
   *   `status` when the platform gave one, `retry_after_ms` when it asked to wait),
   *   `empty_message` (nothing to send after planning), `send_file_protected` (kind `usage`,
   *   with {@link MessageSendOptions.protectFiles}).
   */
  send(to: MessageTarget, markdown: string, options?: MessageSendOptions): Promise<MessageSent>;
  /**
   * The chats the profile's gateway has talked to (its `gateway_chats.json`),
   * for `herald send --list`. Absent: none are known.
   */
  knownChats?(): Promise<MessageTarget[]>;
}
