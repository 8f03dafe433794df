/**
 * Errors of the skills and bundles commands.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** A bundle asked for by name that no file defines. */
export class BundleNotFoundError extends HeraldError {
  /** Creates the error for `name`, looked up in the folder `dir` (as shown to the user). */
  constructor(readonly bundle: string, readonly dir: string) {
    super(
      "bundle_not_found",
      "not_found",
      `Bundle "${bundle}" not found in ${dir}; list them with \`herald bundles list\``,
      { details: { bundle, dir } },
    );
  }
}

/** A bundle that would overwrite an existing file. */
export class BundleExistsError extends HeraldError {
  /** Creates the error for bundle `slug` at `file`. */
  constructor(readonly bundle: string, readonly file: string) {
    super(
      "bundle_exists",
      "conflict",
      `Bundle "${bundle}" already exists at ${file}; use --force to replace it`,
      { details: { bundle, file } },
    );
  }
}

/** A bundle definition typed on the command line that cannot be saved. */
export class BundleInvalidError extends HeraldError {
  /** Creates the error with the `reason` that says what to fix. */
  constructor(readonly reason: string) {
    super("bundle_invalid", "usage", reason, { details: { reason } });
  }
}

/** A skill asked for by name that is not installed (or not meant for this system). */
export class SkillNotFoundError extends HeraldError {
  /** Creates the error for `name`, looked up in the folder `dir` (as shown to the user). */
  constructor(readonly skill: string, readonly dir: string, hint?: string) {
    super(
      "skill_not_found",
      "not_found",
      `Skill "${skill}" not found in ${dir}${
        hint ? `; ${hint}` : "; list them with `herald skills list`"
      }`,
      { details: { skill, dir } },
    );
  }
}
