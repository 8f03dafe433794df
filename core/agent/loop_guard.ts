/**
 * The tool-loop guardrail: a model that makes the same tool call (same name,
 * same arguments) and gets the same failure several times in a row is told
 * so in the tool result; on an unattended surface the turn then stops.
 *
 * @module
 */

import type { ToolCall } from "../models/types.ts";

/** Default length of the streak that triggers the guard (`agent.loop_guard`). */
export const DEFAULT_LOOP_GUARD = 3;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record).sort().map((key) => [key, canonical(record[key])]),
    );
  }
  return value;
}

/** The call's identity: its name and its arguments with object keys in order. */
function callKey(call: ToolCall): string {
  let args = call.arguments.trim();
  try {
    args = JSON.stringify(canonical(JSON.parse(args)));
  } catch {
    // Not JSON: compare the text as it is.
  }
  return `${call.name}\u0000${args}`;
}

/** A streak of identical failing calls that reached the guard's limit. */
export interface LoopStreak {
  call: ToolCall;
  /** How many times in a row the call failed the same way. */
  count: number;
  /** The failure's message. */
  message: string;
}

/**
 * Counts identical failing calls in a row within one turn. A success, or
 * another call or another failure, starts the count again.
 *
 * @example
 * ```ts
 * const guard = new LoopGuard(3);
 * guard.record(call, false, result, "not found"); // undefined, undefined, then a streak
 * ```
 */
export class LoopGuard {
  readonly #limit: number;
  #key = "";
  #result = "";
  #count = 0;

  /** A guard that fires at `limit` identical failures in a row; 0 turns it off. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * Records one call's outcome, in the order the results are sent. Returns
   * the streak when this failure makes it `limit` long or longer.
   */
  record(call: ToolCall, ok: boolean, result: string, message: string): LoopStreak | undefined {
    if (this.#limit <= 0) return undefined;
    if (ok) {
      this.#count = 0;
      this.#key = "";
      return undefined;
    }
    const key = callKey(call);
    if (this.#count > 0 && key === this.#key && result === this.#result) this.#count++;
    else {
      this.#key = key;
      this.#result = result;
      this.#count = 1;
    }
    return this.#count >= this.#limit ? { call, count: this.#count, message } : undefined;
  }
}

/** What the model is told when a streak reaches the limit. */
export function loopWarning(streak: LoopStreak): string {
  return `This exact ${streak.call.name} call has now failed the same way ${streak.count} times ` +
    "in a row. Do not repeat it: change the arguments, try another approach, or tell the user " +
    "what is blocking you.";
}

/**
 * A tool result with the guard's warning added: as a `loop_warning` field
 * when the result is a JSON object, else as a last paragraph.
 */
export function withLoopWarning(content: string, streak: LoopStreak): string {
  const warning = loopWarning(streak);
  try {
    const parsed = JSON.parse(content);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      return JSON.stringify({ ...parsed, loop_warning: warning });
    }
  } catch {
    // Not JSON: append as text.
  }
  return `${content}\n\n[${warning}]`;
}

/** The message that ends a turn the guard stopped on an unattended surface. */
export function loopStopMessage(streak: LoopStreak): string {
  return `Stopped: the ${streak.call.name} call failed the same way ${streak.count} times in a ` +
    `row (${streak.message}), and nobody is watching this run to step in.`;
}
