/**
 * Session titles. A title names a session for people (`/title`,
 * `herald sessions rename`); titles are unique within a profile, compared
 * without regard to ASCII case, so a title finds one session. A title made
 * automatically from a session's first message that is already taken gets
 * ` #2`, ` #3`, ... appended instead of failing.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** The longest title, in characters. */
export const MAX_SESSION_TITLE_CHARS = 100;

/** A title that cannot be used: empty, too long or spread over several lines. */
export class SessionTitleInvalidError extends HeraldError {
  /** Creates the error for `title`, with the `reason` that says what to fix. */
  constructor(readonly title: string, reason: string) {
    super("session_title_invalid", "usage", reason, { details: { title } });
  }
}

/** A title that another session of the profile already has. */
export class SessionTitleTakenError extends HeraldError {
  /** Creates the error for `title`, held by the session `otherId`. */
  constructor(readonly title: string, readonly otherId: string) {
    super(
      "session_title_taken",
      "conflict",
      `The title "${title}" is already used by session ${otherId}; choose another title, ` +
        "or rename that session first",
      { details: { title, session_id: otherId } },
    );
  }
}

/**
 * The title a person typed, checked: surrounding whitespace is dropped; an
 * empty title, one with a line break or one over
 * {@link MAX_SESSION_TITLE_CHARS} characters is refused.
 *
 * @example
 * ```ts
 * parseSessionTitle("  Fix the deploy  "); // "Fix the deploy"
 * ```
 *
 * @throws SessionTitleInvalidError for a title that cannot be used.
 */
export function parseSessionTitle(text: string): string {
  const title = text.trim();
  if (title === "") throw new SessionTitleInvalidError(text, "A title needs some text");
  if (/[\r\n]/.test(title)) {
    throw new SessionTitleInvalidError(text, "A title must fit on one line");
  }
  const length = [...title].length;
  if (length > MAX_SESSION_TITLE_CHARS) {
    throw new SessionTitleInvalidError(
      text,
      `A title may have at most ${MAX_SESSION_TITLE_CHARS} characters; this one has ${length}`,
    );
  }
  return title;
}

/**
 * The first of `base`, `base #2`, `base #3`, ... that `taken` says is free.
 *
 * @example
 * ```ts
 * numberedTitle("hello", (t) => t === "hello"); // "hello #2"
 * ```
 */
export function numberedTitle(base: string, taken: (title: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2;; n++) {
    const candidate = `${base} #${n}`;
    if (!taken(candidate)) return candidate;
  }
}
