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
  /**
   * Creates the error with the `reason` that says what to fix and the
   * `field` at fault (`name` or `skills`), so a form can show it there.
   */
  constructor(readonly reason: string, readonly field?: "name" | "skills") {
    super("bundle_invalid", "usage", reason, { details: { reason, field } });
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

/** A name given to `skills reset` that no bundled skill has. */
export class BundledSkillNotFoundError extends HeraldError {
  /** Creates the error for `name`; `available` are the bundled skills' names. */
  constructor(readonly skill: string, readonly available: readonly string[]) {
    super(
      "bundled_skill_not_found",
      "not_found",
      `No bundled skill is named "${skill}"; the bundled skills are: ${
        available.join(", ") || "(none)"
      }`,
      { details: { skill } },
    );
  }
}

/** A bundled skill whose copy the user changed (or replaced with their own), kept unless asked. */
export class BundledSkillModifiedError extends HeraldError {
  /** Creates the error for skill `skill` at `dir`; `own` when it is the user's own skill. */
  constructor(readonly skill: string, readonly dir: string, own: boolean) {
    super(
      "bundled_skill_modified",
      "conflict",
      `${
        own
          ? `Your own skill "${skill}" at ${dir} has the name of a bundled skill`
          : `Skill "${skill}" at ${dir} was changed since Herald seeded it`
      }; it was kept. Add --restore to replace it with the bundled version (${
        own ? "your skill is deleted" : "your changes are lost"
      })`,
      { details: { skill, dir } },
    );
  }
}
