/**
 * A turn's result as JSON shows it (`herald chat -q --json`, the gateway's
 * `session.send` result and `message.complete`): one function, so the
 * terminal and the dashboard print the same keys in the same order. Each
 * surface adds `stopped` its own way. The same for the tool events the bus
 * and the gateway publish.
 *
 * @module
 */

import { parseJsonObject } from "../_util/json.ts";
import type { EventPayload } from "../events/mod.ts";
import type { AgentEvent, TurnResult } from "./turn_runtime.ts";

/** The JSON view of a {@link TurnResult}, without `stopped`. */
export interface TurnView {
  session_id: string;
  response: string;
  tool_calls: TurnResult["toolCalls"];
  aborted: boolean;
  hit_max_turns: boolean;
}

/**
 * The JSON view of `result`: `session_id`, `response`, `tool_calls`,
 * `aborted` and `hit_max_turns`, in that order.
 *
 * @example
 * ```ts
 * printJson(io, { ...turnView(result), stopped: result.stopped?.code ?? null });
 * ```
 */
export function turnView(result: TurnResult): TurnView {
  return {
    session_id: result.sessionId,
    response: result.response,
    tool_calls: result.toolCalls,
    aborted: result.aborted,
    hit_max_turns: result.hitMaxTurns,
  };
}

/**
 * The one line a `tool_end` event's `summary` shows of a call that
 * succeeded: the start of its result (`content`, JSON text).
 *
 * @example
 * ```ts
 * toolSummary('{"exit_code":0,"stdout":"ok\\n"}'); // the whole text: it is short
 * ```
 */
export function toolSummary(content: string): string {
  return content.length > 120 ? `${content.slice(0, 117)}...` : content;
}

/** The JSON view of a tool call starting (`tool.start` on the bus and the gateway). */
export function toolStartView(
  event: Extract<AgentEvent, { type: "tool_start" }>,
): EventPayload<"tool.start"> {
  return {
    tool_call_id: event.call.id,
    name: event.call.name,
    arguments: event.call.arguments,
  };
}

/** The JSON view of a finished tool call (`tool.complete` on the bus and the gateway). */
export function toolCompleteView(
  event: Extract<AgentEvent, { type: "tool_end" }>,
): EventPayload<"tool.complete"> {
  return {
    tool_call_id: event.call.id,
    name: event.call.name,
    ok: event.ok,
    summary: event.summary,
    duration_ms: Math.round(event.durationMs),
    failure: event.failure,
  };
}

/** How many characters of a tool's result the gateway's `tool.complete` previews. */
export const TOOL_OUTPUT_PREVIEW_CHARS = 16_000;

/** A finished tool call's result as a client previews it (the gateway's `tool.complete`). */
export interface ToolOutputView {
  /**
   * The result as the model sees it (JSON text, usually an object): whole
   * when it fits, else a JSON object whose long text fields keep their
   * start and end, or, when it cannot stay JSON, its first characters.
   */
  output: string;
  /** True when part of the result was left out. */
  output_truncated: boolean;
}

/**
 * The preview of a tool's result `content` (the `tool_end` event's), at
 * most `limit` characters. A JSON object stays parseable: its long
 * text fields (a command's stdout, a file's content) keep their first and
 * last characters around a line saying how many were left out.
 *
 * @example
 * ```ts
 * toolOutputView('{"exit_code":0,"stdout":"ok\\n"}');
 * // { output: '{"exit_code":0,"stdout":"ok\\n"}', output_truncated: false }
 * ```
 */
export function toolOutputView(
  content: string,
  limit: number = TOOL_OUTPUT_PREVIEW_CHARS,
): ToolOutputView {
  if (content.length <= limit) return { output: content, output_truncated: false };
  const object = parseJsonObject(content);
  if (object) {
    const long = Object.values(object).filter((value) =>
      typeof value === "string" && value.length > limit / 8
    ).length;
    const keep = Math.floor(limit / 2 / Math.max(1, long));
    const shortened = Object.fromEntries(
      Object.entries(object).map(([key, value]) => [key, elide(value, keep)]),
    );
    const output = JSON.stringify(shortened);
    if (output.length <= limit) return { output, output_truncated: true };
  }
  return { output: content.slice(0, limit), output_truncated: true };
}

/** `value` with its middle left out when it is a string over `keep` characters. */
function elide(value: unknown, keep: number): unknown {
  if (typeof value !== "string" || value.length <= keep) return value;
  const half = Math.floor(keep / 2);
  const left = value.length - 2 * half;
  return `${value.slice(0, half)}\n… ${left} characters left out …\n${value.slice(-half)}`;
}
