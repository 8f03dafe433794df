/**
 * The sticky default profile: `<root>/active_profile` names the profile used
 * when no `-p` is given (`herald profile use <name>`).
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import { DEFAULT_PROFILE, parseProfileSelector } from "./names.ts";

/** File name of the sticky default, at the root home. */
export const ACTIVE_PROFILE_FILE = "active_profile";

/** An `active_profile` file that names no usable profile. */
export class ActiveProfileError extends HeraldError {
  /** Creates the error for `file`, naming `value`, with a `reason` that says what is wrong. */
  constructor(
    readonly file: string,
    readonly value: string,
    code: "active_profile_invalid" | "active_profile_missing",
    reason: string,
  ) {
    super(
      code,
      "state",
      `${file} names ${reason}; run \`herald profile use default\` to go back to the default ` +
        "profile, or `herald profile use <name>` to pick another",
      { details: { file, value } },
    );
  }
}

/**
 * Reads the text of `active_profile`: the profile it names, or undefined when
 * it is empty or names `default`.
 *
 * @throws ActiveProfileError when the text is not a valid profile name.
 *
 * @example
 * ```ts
 * parseActiveProfile("work\n", "/h/active_profile") // "work"
 * parseActiveProfile("default\n", "/h/active_profile") // undefined
 * ```
 */
export function parseActiveProfile(text: string, file: string): string | undefined {
  const value = text.trim();
  if (value === "") return undefined;
  let name: string;
  try {
    name = parseProfileSelector(value);
  } catch {
    throw new ActiveProfileError(
      file,
      value,
      "active_profile_invalid",
      `"${value}", which is not a valid profile name`,
    );
  }
  return name === DEFAULT_PROFILE ? undefined : name;
}

/** The error for an `active_profile` naming `name`, a profile with no home. */
export function missingActiveProfile(file: string, name: string): ActiveProfileError {
  return new ActiveProfileError(
    file,
    name,
    "active_profile_missing",
    `profile "${name}", which does not exist`,
  );
}
