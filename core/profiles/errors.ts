/**
 * Errors of the profile commands beyond naming and lookup (those live in
 * core/errors.ts).
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** An action that the default profile does not allow (it is the root home). */
export class DefaultProfileError extends HeraldError {
  /** Creates the error for `action`, for example "deleted". */
  constructor(readonly action: string) {
    super(
      "profile_default_protected",
      "usage",
      `The default profile cannot be ${action}: it is the root home that holds every other profile`,
      { details: { action } },
    );
  }
}

/** A deletion that was not confirmed. */
export class ProfileDeleteRefusedError extends HeraldError {
  /**
   * `profile_delete_unconfirmed`: no terminal to ask on and no `--yes`
   * (a usage error); `profile_delete_cancelled`: the typed name did not match.
   */
  constructor(
    readonly profile: string,
    code: "profile_delete_unconfirmed" | "profile_delete_cancelled",
  ) {
    super(
      code,
      code === "profile_delete_unconfirmed" ? "usage" : "state",
      code === "profile_delete_unconfirmed"
        ? `Refusing to delete profile "${profile}" without confirmation: run the command in a ` +
          `terminal to confirm by typing the name, or pass --yes (\`herald profile delete ${profile} --yes\`)`
        : `Profile "${profile}" was not deleted: the name typed did not match`,
      { details: { profile } },
    );
  }
}

/** Clone options given for a profile that is not a clone. */
export class CloneOptionsError extends HeraldError {
  /**
   * Creates the error for the clone option `field` (`clone_mode`,
   * `clone_channels`) given without the profile to copy; the message names
   * the option as the command line and as a request body spell it.
   */
  constructor(readonly field: "clone_mode" | "clone_channels") {
    super(
      "clone_options_invalid",
      "usage",
      field === "clone_channels"
        ? '--clone-channels only applies with --clone or --clone-all ("clone_channels" only ' +
          'applies with "clone_from", the profile to copy): it keeps the copy\'s messaging bot tokens'
        : '"clone_mode" only applies with "clone_from" (the profile to copy)',
      { details: { field } },
    );
  }
}
