/**
 * Whether a finished tool call failed from the user's point of view, and
 * why in a few words. Kept apart from the renderers (blocks.ts) so the plain
 * chat loop can judge a call without loading them.
 *
 * @module
 */

import type { ToolCall } from "../../core/models/types.ts";

/** A finished tool call, as the agent reports it. */
export interface ToolEnd {
  call: ToolCall;
  ok: boolean;
  /** One line: the error when the call failed, else the start of the result. */
  summary: string;
  durationMs: number;
  /** The result as the model sees it (JSON text). */
  content?: string;
  /** write_file: the file's text before the write, null when it was new. */
  before?: string | null;
}

/** A JSON object. */
export type Json = Record<string, unknown>;

/** `text` parsed as a JSON object; null when absent, not JSON, or not an object. */
export function parseObject(text: string | undefined): Json | null {
  if (text === undefined) return null;
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? value as Json
      : null;
  } catch {
    return null;
  }
}

/**
 * True when the call failed from the user's point of view: the tool
 * failed, or a terminal command exited non-zero or timed out.
 *
 * @example
 * ```ts
 * toolFailed({ call, ok: true, summary: "", durationMs: 5, content: '{"exit_code":1}' }); // true
 * ```
 */
export function toolFailed(end: ToolEnd): boolean {
  if (!end.ok) return true;
  const result = parseObject(end.content);
  if (!result) return false;
  if (typeof result.error === "string" && typeof result.code === "string") return true;
  if (end.call.name === "terminal") {
    return (typeof result.exit_code === "number" && result.exit_code !== 0) ||
      result.timed_out === true;
  }
  return false;
}

/**
 * Why the call failed, in a few words (`exit 1`, `timed out`, the error),
 * or null when it did not fail from the user's point of view.
 */
export function toolFailure(end: ToolEnd): string | null {
  return toolFailed(end) ? toolFailureLabel(end, parseObject(end.content)) : null;
}

/** Why a failed call failed, in a few words for the status line. */
export function toolFailureLabel(end: ToolEnd, result: Json | null): string {
  if (end.ok && end.call.name === "terminal" && result) {
    if (result.timed_out === true) return "timed out";
    if (typeof result.exit_code === "number" && result.exit_code !== 0) {
      return `exit ${result.exit_code}`;
    }
  }
  if (result && typeof result.error === "string") return result.error;
  return end.summary || "failed";
}
