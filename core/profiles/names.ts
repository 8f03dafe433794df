/**
 * Profile names: the one rule for what a profile may be called.
 *
 * @module
 */

import { ProfileNameError } from "../errors.ts";

/** The pattern every profile name matches after trimming and lowercasing. */
export const PROFILE_NAME_PATTERN: RegExp = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Names that would be confusing or collide with Herald's own words. */
export const RESERVED_PROFILE_NAMES: ReadonlySet<string> = new Set([
  "default",
  "herald",
  "root",
  "tmp",
  "test",
]);

/** The name under which the root home (no `-p`) is listed. */
export const DEFAULT_PROFILE = "default";

/**
 * Normalises and validates a profile name typed by a user.
 * Input is trimmed and lowercased; the result matches {@link PROFILE_NAME_PATTERN}
 * and is not reserved. `field` names the request field or option that gave
 * the name, for the error's details.
 *
 * @example
 * ```ts
 * parseProfileName("  Work ") // "work"
 * parseProfileName("../x")    // throws ProfileNameError
 * ```
 */
export function parseProfileName(input: string, field?: string): string {
  const name = input.trim().toLowerCase();
  if (name === "") {
    throw new ProfileNameError(
      input,
      "profile_name_empty",
      "Profile name cannot be empty",
      field,
    );
  }
  if (!PROFILE_NAME_PATTERN.test(name)) {
    throw new ProfileNameError(
      input,
      "profile_name_invalid",
      `Invalid profile name "${input}": use 1-64 characters from a-z, 0-9, "_" and "-", ` +
        `starting with a letter or digit (pattern ${PROFILE_NAME_PATTERN.source})`,
      field,
    );
  }
  if (RESERVED_PROFILE_NAMES.has(name)) {
    throw new ProfileNameError(
      input,
      "profile_name_reserved",
      `Profile name "${name}" is reserved (reserved: ${[...RESERVED_PROFILE_NAMES].join(", ")}); ` +
        "choose another name",
      field,
    );
  }
  return name;
}

/**
 * Like {@link parseProfileName} but also accepts `default`, which selects the
 * root home. Used where a user picks an existing profile (`-p default`).
 */
export function parseProfileSelector(input: string, field?: string): string {
  const name = input.trim().toLowerCase();
  return name === DEFAULT_PROFILE ? DEFAULT_PROFILE : parseProfileName(input, field);
}
