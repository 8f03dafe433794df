/**
 * Whether a finished tool call failed from the user's point of view, and
 * why in a few words. A terminal command that ran but exited non-zero (or
 * timed out) is a success for the tool and a failure for the user; every
 * surface (the TUI, the plain chat, the dashboard) shows it the same way
 * because the agent loop puts this judgement on its `tool_end` event.
 *
 * @module
 */

import { parseJsonObject } from "../_util/json.ts";

/** What the judgement reads of a finished call. */
export interface FinishedCall {
  /** The tool's name (`terminal`, `patch`, ...). */
  name: string;
  /** False when the tool itself failed. */
  ok: boolean;
  /** The result as the model sees it (JSON text). */
  content: string;
  /** The tool's error message when it failed. */
  message?: string;
}

/**
 * Why the call failed (`exit 1`, `timed out`, the tool's error), or null
 * when it did not fail from the user's point of view.
 *
 * @example
 * ```ts
 * toolCallFailure({ name: "terminal", ok: true, content: '{"exit_code":1}' }); // "exit 1"
 * toolCallFailure({ name: "read_file", ok: true, content: '{"content":"…"}' }); // null
 * ```
 */
export function toolCallFailure(call: FinishedCall): string | null {
  const result = parseJsonObject(call.content);
  if (!call.ok) {
    if (call.message) return call.message;
    return typeof result?.error === "string" ? result.error : "failed";
  }
  if (result && typeof result.error === "string" && typeof result.code === "string") {
    return result.error;
  }
  if (call.name === "terminal" && result) {
    if (result.timed_out === true) return "timed out";
    if (typeof result.exit_code === "number" && result.exit_code !== 0) {
      return `exit ${result.exit_code}`;
    }
  }
  return null;
}
