/**
 * Whether a finished tool call failed from the user's point of view, and
 * why in a few words, for the renderers and the plain chat loop (kept apart
 * from blocks.ts so the plain loop need not load the renderers).
 *
 * @module
 */

import type { ToolCall } from "../../core/models/types.ts";
import { toolCallFailure } from "../../core/tools/outcome_failure.ts";

/** A finished tool call, as the agent reports it. */
export interface ToolEnd {
  call: ToolCall;
  ok: boolean;
  /** One line: the error when the call failed, else the start of the result. */
  summary: string;
  durationMs: number;
  /** The result as the model sees it (JSON text). */
  content?: string;
  /**
   * write_file: the file's text before the write, null when it was new, as
   * the tool read it (the agent's `tool_end` carries it); absent: not known.
   */
  before?: string | null;
  /** The agent's judgement of a failure (`exit 1`, ...), when the event carries it. */
  failure?: string | null;
}

/** A JSON object. */
export type Json = Record<string, unknown>;

/**
 * Why the call failed, in a few words (`exit 1`, `timed out`, the error),
 * or null when it did not fail from the user's point of view: the agent's
 * own judgement when the event carries it (`failure`), else the same rule
 * (core/tools/outcome_failure.ts) applied here.
 */
export function toolFailure(end: ToolEnd): string | null {
  if (end.failure !== undefined) return end.failure;
  return toolCallFailure({
    name: end.call.name,
    ok: end.ok,
    content: end.content ?? "",
    message: end.ok ? undefined : end.summary,
  });
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
  return toolFailure(end) !== null;
}
