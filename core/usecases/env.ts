/**
 * The `.env` use cases: list a profile's secrets (names, a redacted preview
 * and what reads each, never a value), set one, delete one, and reveal one
 * (the one place a value is returned). Every write keeps the other lines
 * and leaves the file at 0600 (the port's job).
 *
 * @module
 */

import { type EnvWarning, redact } from "../config/mod.ts";
import { checkEnvValueSize } from "../config/limits.ts";
import { HeraldError } from "../errors.ts";
import { MANAGED_TOOLS } from "../models/tool_gateway.ts";
import { PLATFORMS } from "../messaging/platforms.ts";
import { PROVIDERS } from "../providers.ts";
import type { ProfileContext } from "./ports.ts";

/** The longest `.env` variable name accepted. */
export const MAX_ENV_NAME_LENGTH = 128;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A name that cannot be an environment variable. */
export class EnvNameError extends HeraldError {
  /** Creates the error for the rejected `input` (quoted, cut at the length limit). */
  constructor(readonly input: string) {
    const shown = input.slice(0, MAX_ENV_NAME_LENGTH);
    super(
      input === "" ? "bad_request" : "env_key_invalid",
      "usage",
      input === ""
        ? "The variable name is empty; give a name like OPENAI_API_KEY"
        : `"${shown}" is not an environment variable name: use letters, digits and "_", ` +
          "not starting with a digit",
      { details: { input: shown } },
    );
  }
}

/** A variable that is not in the profile's `.env`. */
export class EnvNotSetError extends HeraldError {
  /** Creates the error for `variable` missing from `file`. */
  constructor(readonly variable: string, readonly file: string) {
    super("env_not_set", "not_found", `${variable} is not set in ${file}`, {
      details: { name: variable, file },
    });
  }
}

/**
 * `name` trimmed, checked to be an environment variable name.
 *
 * @throws EnvNameError for an empty name, or one that is not letters, digits and `_`.
 */
export function checkEnvName(name: string): string {
  const trimmed = name.trim();
  if (!ENV_NAME.test(trimmed) || trimmed.length > MAX_ENV_NAME_LENGTH) {
    throw new EnvNameError(trimmed);
  }
  return trimmed;
}

/**
 * Labels of what reads variable `name`, from the catalogs Herald knows:
 * model providers (`provider:openrouter`), messaging platforms
 * (`platform:telegram`) and managed tools (`tool:web_search`).
 */
export function envUsage(name: string): string[] {
  const uses: string[] = [];
  for (const provider of PROVIDERS) {
    if (provider.keyEnv === name || provider.legacyKeyEnv === name) {
      uses.push(`provider:${provider.id}`);
    }
  }
  for (const platform of PLATFORMS) {
    if (platform.secrets.some((secret) => secret.name === name)) {
      uses.push(`platform:${platform.id}`);
    }
  }
  for (const tool of MANAGED_TOOLS) {
    if (tool.keyEnvs.includes(name)) uses.push(`tool:${tool.tool}`);
  }
  return uses;
}

/** One `.env` variable as listed: never its value. */
export interface EnvVariableView {
  name: string;
  set: true;
  /** The value redacted (its last four characters when it is long enough). */
  preview: string;
  /** What reads it (see {@link envUsage}). */
  used_by: string[];
}

/** The JSON view of a profile's `.env`. */
export interface EnvListView {
  profile: string;
  file: string;
  variables: EnvVariableView[];
  /** Lines that are not `NAME=value` (kept as they are). */
  warnings: EnvWarning[];
}

/** The profile's `.env` variables by name, each with a redacted preview. */
export async function listEnv(profile: ProfileContext): Promise<EnvListView> {
  const parsed = await profile.files.readEnv();
  const variables = [...parsed.values.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]): EnvVariableView => ({
      name,
      set: true,
      preview: redact(value),
      used_by: envUsage(name),
    }));
  return {
    profile: profile.name,
    file: profile.files.envPath,
    variables,
    warnings: parsed.warnings,
  };
}

/** What setting a variable did: its name and a redacted preview, never the value. */
export interface EnvSetResult {
  profile: string;
  key: string;
  set: true;
  preview: string;
}

/**
 * Stores `value` as `.env` variable `name`, keeping every other line.
 *
 * @throws EnvNameError for a name that is not a variable name.
 * @throws ValueTooLargeError for a value over `MAX_ENV_VALUE_BYTES` (nothing is written).
 *
 * @example
 * ```ts
 * await setEnv(profile, "OPENROUTER_API_KEY", "sk-or-...");
 * ```
 */
export async function setEnv(
  profile: ProfileContext,
  name: string,
  value: string,
): Promise<EnvSetResult> {
  const key = checkEnvName(name);
  checkEnvValueSize(key, value);
  await profile.files.setEnv(key, value);
  return { profile: profile.name, key, set: true, preview: redact(value) };
}

/** What deleting a variable did. */
export interface EnvDeleteResult {
  profile: string;
  key: string;
  set: false;
}

/**
 * Removes `.env` variable `name`.
 *
 * @throws EnvNameError for a name that is not a variable name.
 * @throws EnvNotSetError when the variable is not there.
 */
export async function deleteEnv(profile: ProfileContext, name: string): Promise<EnvDeleteResult> {
  const key = checkEnvName(name);
  const removed = await profile.files.removeEnv([key]);
  if (removed.length === 0) throw new EnvNotSetError(key, profile.files.envPath);
  return { profile: profile.name, key, set: false };
}

/** A revealed variable: the one view that carries a `.env` value. */
export interface EnvRevealView {
  profile: string;
  key: string;
  value: string;
}

/**
 * The value of `.env` variable `name`.
 *
 * @throws EnvNameError for a name that is not a variable name.
 * @throws EnvNotSetError when the variable is not there.
 */
export async function revealEnv(profile: ProfileContext, name: string): Promise<EnvRevealView> {
  const key = checkEnvName(name);
  const value = (await profile.files.readEnv()).values.get(key);
  if (value === undefined) throw new EnvNotSetError(key, profile.files.envPath);
  return { profile: profile.name, key, value };
}
