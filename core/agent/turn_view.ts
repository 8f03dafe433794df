/**
 * A turn's result as JSON shows it (`herald chat -q --json`, the gateway's
 * `session.send` result and `message.complete`): one function, so the
 * terminal and the dashboard print the same keys in the same order. Each
 * surface adds `stopped` its own way. The same for the tool events the bus
 * and the gateway publish.
 *
 * @module
 */

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
