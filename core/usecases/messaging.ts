/**
 * The messaging-platform use cases: each platform's status in a profile,
 * saving a platform's setup (secrets to `.env`, on/off to config.yaml, in
 * one locked write) and checking its configuration. The check reads values
 * through the profile's credentials and never returns them; it makes no
 * network call.
 *
 * @module
 */

import type { ConfigEdit, HeraldConfig } from "../config/mod.ts";
import { HeraldError } from "../errors.ts";
import {
  checkPlatformSecrets,
  type MalformedSecret,
  type PlatformInfo,
  platformInfo,
  PLATFORMS,
} from "../messaging/mod.ts";
import { editConfig, loadWrittenConfig } from "./config.ts";
import type { Credentials, CredentialSource, ProfileContext } from "./ports.ts";

/** What a configuration check says when it made no network call. */
export const NO_NETWORK_NOTE = "Only the configuration was checked; no network call was made " +
  "(connecting to the platform needs the messaging gateway, which is not running here)";

/** A platform id that is not in the catalog. */
export class PlatformUnknownError extends HeraldError {
  /** Creates the error for `id`. */
  constructor(readonly id: string) {
    super(
      "platform_unknown",
      "not_found",
      `No messaging platform "${id}" (known: ${PLATFORMS.map((p) => p.id).join(", ")})`,
      { details: { id } },
    );
  }
}

/** A setup that names a variable the platform does not use, or gives an empty value. */
export class PlatformSetupError extends HeraldError {
  /** Creates the error with its `code` for variable `name`. */
  constructor(code: "platform_env_unknown" | "bad_request", message: string, name: string) {
    super(code, "usage", message, { details: { name } });
  }
}

/**
 * The platform with id `id`.
 *
 * @throws PlatformUnknownError when there is none.
 */
export function requirePlatform(id: string): PlatformInfo {
  const platform = platformInfo(id);
  if (!platform) throw new PlatformUnknownError(id);
  return platform;
}

/** One `.env` variable a platform reads: whether it is set and where, never its value. */
export interface PlatformEnvView {
  name: string;
  label: string;
  required: boolean;
  secret: true;
  hint: string;
  set: boolean;
  source: CredentialSource | null;
}

/** A platform as listed for a profile. */
export interface PlatformStatusView {
  id: string;
  label: string;
  description: string;
  docs_url: string;
  env: PlatformEnvView[];
  config_keys: readonly string[];
  /** Every required variable is set. */
  configured: boolean;
  /** Every variable that is set looks right too. */
  well_formed: boolean;
  enabled: boolean;
}

function platformStatus(
  platform: PlatformInfo,
  config: HeraldConfig,
  credentials: Credentials,
): PlatformStatusView {
  const check = checkPlatformSecrets(platform, credentials.lookup);
  return {
    id: platform.id,
    label: platform.label,
    description: platform.description,
    docs_url: platform.docsUrl,
    env: platform.secrets.map((secret) => ({
      name: secret.name,
      label: secret.label,
      required: secret.required,
      secret: true,
      hint: secret.hint,
      set: credentials.source(secret.name) !== null,
      source: credentials.source(secret.name),
    })),
    config_keys: platform.configKeys,
    configured: check.ok || check.missing.length === 0,
    well_formed: check.ok,
    enabled: config.platforms[platform.id]?.enabled ?? false,
  };
}

/** Every platform with its status in the profile (`GET /api/messaging/platforms`). */
export interface PlatformsView {
  profile: string;
  platforms: PlatformStatusView[];
}

/** Every platform in the catalog, with its status in the profile. */
export async function listPlatforms(profile: ProfileContext): Promise<PlatformsView> {
  const credentials = await profile.files.credentials();
  const config = (await loadWrittenConfig(profile)).config;
  return {
    profile: profile.name,
    platforms: PLATFORMS.map((platform) => platformStatus(platform, config, credentials)),
  };
}

/** A platform's setup to save; every part is optional. */
export interface PlatformSetup {
  /** Turns the platform on or off (`platforms.<id>.enabled`). */
  enabled?: boolean;
  /** Variables to store in `.env`; only the platform's own, none empty. */
  env?: Readonly<Record<string, string>>;
  /** Variables to remove from `.env` (one also given in `env` is kept). */
  clear_env?: readonly string[];
}

/** What saving a platform's setup did. */
export interface PlatformSaved {
  profile: string;
  saved_env: string[];
  cleared_env: string[];
  platform: PlatformStatusView;
}

function checkSetup(platform: PlatformInfo, setup: PlatformSetup): void {
  const known = new Set(platform.secrets.map((secret) => secret.name));
  for (const name of [...Object.keys(setup.env ?? {}), ...(setup.clear_env ?? [])]) {
    if (!known.has(name)) {
      throw new PlatformSetupError(
        "platform_env_unknown",
        `${platform.label} does not use ${name} (it uses ${[...known].join(", ")})`,
        name,
      );
    }
  }
  for (const [name, value] of Object.entries(setup.env ?? {})) {
    if (value.trim() === "") {
      throw new PlatformSetupError(
        "bad_request",
        `The value of ${name} is empty; to remove it, list it in clear_env`,
        name,
      );
    }
  }
}

/**
 * Saves a platform's setup through {@link editConfig}: its secrets go to
 * `.env` and `enabled` to config.yaml in one locked write (secrets first),
 * then `clear_env` is removed from `.env`.
 *
 * @throws PlatformUnknownError, PlatformSetupError, ValueTooLargeError: nothing is written.
 *
 * @example
 * ```ts
 * await savePlatform(profile, "telegram", { enabled: true, env: { TELEGRAM_BOT_TOKEN: "123:abc" } });
 * ```
 */
export async function savePlatform(
  profile: ProfileContext,
  id: string,
  setup: PlatformSetup,
): Promise<PlatformSaved> {
  const platform = requirePlatform(id);
  checkSetup(platform, setup);
  const env = setup.env ?? {};
  // A platform's variables are bare `.env` names: editConfig stores them before the config.
  const edits: ConfigEdit[] = Object.entries(env).map(([name, value]) => ({
    key: name,
    value: value.trim(),
  }));
  if (setup.enabled !== undefined) {
    edits.push({ key: `platforms.${platform.id}.enabled`, value: setup.enabled });
  }
  const saved = await editConfig(profile, edits);
  const cleared = await profile.files.removeEnv(
    (setup.clear_env ?? []).filter((name) => !Object.hasOwn(env, name)),
  );
  const credentials = await profile.files.credentials();
  const config = (await loadWrittenConfig(profile)).config;
  return {
    profile: profile.name,
    saved_env: saved.secrets.map((secret) => secret.name),
    cleared_env: cleared,
    platform: platformStatus(platform, config, credentials),
  };
}

/** The outcome of a platform's configuration check. */
export type PlatformTestView =
  & { profile: string; platform: string; network: false; note: string; checked: "configuration" }
  & ({ ok: true } | { ok: false; missing: string[]; malformed: MalformedSecret[] });

/**
 * Checks that the platform's secrets are present and well formed, without
 * a network call (the result says so).
 *
 * @throws PlatformUnknownError for an unknown platform.
 */
export async function testPlatform(profile: ProfileContext, id: string): Promise<PlatformTestView> {
  const platform = requirePlatform(id);
  const credentials = await profile.files.credentials();
  const check = checkPlatformSecrets(platform, credentials.lookup);
  const common = {
    profile: profile.name,
    platform: platform.id,
    network: false as const,
    note: NO_NETWORK_NOTE,
    checked: "configuration" as const,
  };
  if (check.ok) return { ...common, ok: true };
  return { ...common, ok: false, missing: check.missing, malformed: check.malformed };
}
