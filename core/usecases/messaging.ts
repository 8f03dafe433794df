/**
 * The messaging-platform use cases: each platform's status in a profile,
 * saving a platform's setup (secrets to `.env`, on/off to config.yaml, in
 * one locked write) and testing it. The test checks the configuration
 * first, reading values through the profile's credentials and never
 * returning them; when it is complete it asks the platform who the bot is
 * (Telegram's `getMe`, LINE's bot info) through the profile's messaging
 * links.
 *
 * @module
 */

import type { ConfigEdit, HeraldConfig } from "../config/mod.ts";
import { HeraldError } from "../errors.ts";
import {
  checkPlatformSecrets,
  type MalformedSecret,
  platformEnabled,
  type PlatformInfo,
  platformInfo,
  PLATFORMS,
} from "../messaging/mod.ts";
import { editConfig, loadWrittenConfig } from "./config.ts";
import type { Credentials, CredentialSource, PlatformProbe, ProfileContext } from "./ports.ts";

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
  /**
   * The test asks the platform's bot who it is (false: a server Herald
   * runs itself, whose test checks the configuration).
   */
  has_bot: boolean;
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
    // config.yaml's switch, or `<ID>_ENABLED` in the profile's environment, as the gateway reads it.
    enabled: platformEnabled(platform.id, credentials.lookup, {
      enabled: config.platforms[platform.id]?.enabled ?? false,
    }),
    has_bot: platform.hasBot,
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

/** A test that stopped at the configuration: nothing went over the network (`note` says why). */
export type PlatformConfigTestView =
  & { profile: string; platform: string; network: false; checked: "configuration"; note: string }
  & (
    | { ok: true }
    | {
      ok: false;
      missing: string[];
      malformed: MalformedSecret[];
      /** A setting other than the secrets that is wrong (an API base URL that is not http). */
      error?: string;
    }
  );

/** A test that asked the platform who the bot is. */
export type PlatformReachTestView =
  & { profile: string; platform: string; network: true; checked: "platform" }
  & (
    /** `identity`: the bot as the platform names it (`@my_bot`, `Shop (@123abcde)`). */
    | { ok: true; identity: string | null }
    /** `error`: what the platform or the network said, fit for the user (never a secret). */
    | { ok: false; error: string }
  );

/** The outcome of `POST /api/messaging/platforms/:id/test`. */
export type PlatformTestView = PlatformConfigTestView | PlatformReachTestView;

/** The profile's value of every secret `platform` reads, longest first (for redaction). */
function secretValues(platform: PlatformInfo, credentials: Credentials): string[] {
  return platform.secrets
    .map((secret) => credentials.lookup(secret.name)?.trim() ?? "")
    .filter((value) => value !== "")
    .sort((a, b) => b.length - a.length);
}

/** `text` with every one of `secrets` replaced, whatever a platform's error put in it. */
function redacted(text: string, secrets: readonly string[]): string {
  return secrets.reduce((result, secret) => result.replaceAll(secret, "[redacted]"), text);
}

/**
 * Tests a platform: first its configuration (secrets present and well
 * formed; nothing goes over the network when they are not), then, for a
 * platform with a bot, the platform itself: it is asked who the bot is
 * with the profile's credentials (`getMe`, bot info). A platform without a
 * bot (the API server) or without a channel in this build stays a
 * configuration check, and its `note` says so. No answer carries a secret.
 *
 * @throws PlatformUnknownError for an unknown platform.
 *
 * @example
 * ```ts
 * await testPlatform(profile, "telegram");
 * // { ok: true, network: true, checked: "platform", identity: "@my_bot", ... }
 * ```
 */
export async function testPlatform(profile: ProfileContext, id: string): Promise<PlatformTestView> {
  const platform = requirePlatform(id);
  const credentials = await profile.files.credentials();
  const check = checkPlatformSecrets(platform, credentials.lookup);
  const base = { profile: profile.name, platform: platform.id };
  const configuration = (note: string) => ({
    ...base,
    network: false as const,
    checked: "configuration" as const,
    note,
  });
  if (!check.ok) {
    return {
      ...configuration(
        platform.hasBot
          ? `Only the configuration was checked; complete it and test again to reach ${platform.label}`
          : `Only the configuration was checked (${platform.label} has no bot to ask)`,
      ),
      ok: false,
      missing: check.missing,
      malformed: check.malformed,
    };
  }
  if (!platform.hasBot) {
    return {
      ...configuration(
        `${platform.label} has no bot to ask, so only the configuration was checked ` +
          "(the messaging gateway serves it: herald gateway start)",
      ),
      ok: true,
    };
  }
  const links = profile.messaging();
  if (!(await links.platforms()).includes(platform.id)) {
    return {
      ...configuration(
        `This Herald cannot connect to ${platform.label} yet, so only the configuration was checked`,
      ),
      ok: true,
    };
  }
  const secrets = secretValues(platform, credentials);
  let probe: PlatformProbe;
  try {
    probe = await links.probe(platform.id);
  } catch (error) {
    if (error instanceof HeraldError && error.code === "platform_not_configured") {
      return {
        ...configuration(
          `Only the configuration was checked; fix it and test again to reach ${platform.label}`,
        ),
        ok: false,
        missing: [],
        malformed: [],
        error: redacted(error.message, secrets),
      };
    }
    throw error;
  }
  const reached = { ...base, network: true as const, checked: "platform" as const };
  if (probe.ok) return { ...reached, ok: true, identity: probe.identity ?? null };
  return {
    ...reached,
    ok: false,
    error: redacted(probe.error ?? `${platform.label} did not say who the bot is`, secrets),
  };
}
