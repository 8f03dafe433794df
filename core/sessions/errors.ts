/**
 * Errors of the stored sessions.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** A stored session asked for by id that the profile does not have. */
export class SessionNotFoundError extends HeraldError {
  /** Creates the error for session `id` of profile `profile`. */
  constructor(readonly sessionId: string, readonly profile: string) {
    super(
      "session_not_found",
      "not_found",
      `Session "${sessionId}" not found in profile "${profile}"; list sessions with ` +
        "`herald sessions list`",
      { details: { session_id: sessionId, profile } },
    );
  }
}

/** A session delete that was not confirmed. */
export class SessionDeleteRefusedError extends HeraldError {
  /**
   * `session_delete_unconfirmed`: no terminal to ask on and no `--yes` (a
   * usage error); `session_delete_cancelled`: the person answered no.
   */
  constructor(
    readonly sessionId: string,
    code: "session_delete_unconfirmed" | "session_delete_cancelled",
  ) {
    super(
      code,
      code === "session_delete_unconfirmed" ? "usage" : "state",
      code === "session_delete_unconfirmed"
        ? `Refusing to delete session "${sessionId}" without confirmation: run the command in a ` +
          `terminal to confirm, or pass --yes (\`herald sessions delete ${sessionId} --yes\`)`
        : `Session "${sessionId}" was not deleted`,
      { details: { session_id: sessionId } },
    );
  }
}
