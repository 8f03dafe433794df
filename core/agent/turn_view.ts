/**
 * A turn's result as JSON shows it (`herald chat -q --json`, the gateway's
 * `session.send` result and `message.complete`): one function, so the
 * terminal and the dashboard print the same keys in the same order. Each
 * surface adds `stopped` its own way.
 *
 * @module
 */

import type { TurnResult } from "./turn_runtime.ts";

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
