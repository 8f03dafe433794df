/**
 * The check of a file a message would send (an answer's `MEDIA:<path>`,
 * `herald send`, the `send_message` tool): the file, its links resolved,
 * judged by the file tools' protected lists (`.env` files, credential and
 * system folders, Herald's home), so a prompt-injected
 * `MEDIA:~/.herald/.env` is never sent to a chat.
 *
 * @module
 */

import { protectedPathReason } from "../../core/tools/write_guard.ts";

/**
 * Why the file at a path may not be sent, or undefined when it may;
 * `root` is Herald's root home, `userHome` the user's home folder.
 *
 * @example
 * ```ts
 * const refusal = mediaGuard("/home/ann/.herald", "/home/ann");
 * refusal("/home/ann/.herald/.env"); // "…protected…"
 * refusal("/tmp/chart.png");         // undefined
 * ```
 */
export function mediaGuard(
  root: string,
  userHome: string | undefined,
): (path: string) => string | undefined {
  const real = (path: string) => {
    try {
      return Deno.realPathSync(path);
    } catch {
      // Not there (yet): judged by its name; the channel says when it cannot read it.
      return path;
    }
  };
  const home = userHome ? real(userHome) : "/nonexistent-home";
  const heraldRoot = real(root);
  return (path) => protectedPathReason(real(path), home, heraldRoot);
}
