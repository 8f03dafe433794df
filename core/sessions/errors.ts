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
