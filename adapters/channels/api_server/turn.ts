/**
 * Running one request's turn through a conversation, for both endpoints:
 * the text streams out as the model writes it, and the outcome says what
 * the answer was, why it ended and what it cost.
 *
 * The answer is the conversation's answer to show (`TurnResult.response`:
 * the model's final text with any footer). When streaming, the client sees
 * every text the model wrote during the turn as it comes, including what it
 * said before calling a tool (separated by a blank line), then whatever
 * the final answer adds to what streamed (a footer); the streamed text is
 * then the answer. A slash command's reply (`/help`) is the answer too.
 *
 * @module
 */

import type { Conversation } from "../../../core/agent/conversation.ts";
import type { AgentEvent } from "../../../core/agent/turn_runtime.ts";
import { ApiRequestError } from "./errors.ts";

/** Token counts of one request. */
export interface TurnUsage {
  input: number;
  output: number;
}

/** What one request's turn produced. */
export interface TurnOutcome {
  /** The answer (the streamed text when streaming). */
  text: string;
  /** `length` when the turn spent its model calls before a final answer, else `stop`. */
  finishReason: "stop" | "length";
  usage: TurnUsage;
  /** True when the signal stopped the turn (the client closed its stream, the server stops). */
  aborted: boolean;
}

/** Options of {@link runTurn}. */
export interface RunTurnOptions {
  /** Stops the turn (the client disconnected, the server stops). */
  signal?: AbortSignal;
  /** Receives the answer's text as it streams; without it nothing streams. */
  onDelta?(delta: string): void;
}

/**
 * Hands `text` to `conversation` and waits for the answer.
 *
 * @throws what the conversation throws (a `ModelError` when the model failed).
 */
export async function runTurn(
  conversation: Conversation,
  text: string,
  options: RunTurnOptions = {},
): Promise<TurnOutcome> {
  const before = conversation.usage;
  let streamed = "";
  let callText = "";
  const emit = (delta: string) => {
    if (delta === "") return;
    streamed += delta;
    options.onDelta?.(delta);
  };
  const onEvent = (event: AgentEvent) => {
    if (event.type === "model_call") {
      callText = "";
    } else if (event.type === "text" && event.delta !== "") {
      if (callText === "" && streamed !== "") emit("\n\n");
      callText += event.delta;
      emit(event.delta);
    }
  };
  const result = await conversation.input(text, { signal: options.signal, onEvent });
  const after = conversation.usage;
  const usage = {
    input: Math.max(0, (after?.inputTokens ?? 0) - (before?.inputTokens ?? 0)),
    output: Math.max(0, (after?.outputTokens ?? 0) - (before?.outputTokens ?? 0)),
  };
  if (result.kind !== "turn") {
    emit(result.text);
    return { text: result.text, finishReason: "stop", usage, aborted: false };
  }
  const turn = result.result;
  const finishReason = turn.hitMaxTurns ? "length" : "stop";
  if (turn.aborted) return { text: streamed, finishReason, usage, aborted: true };
  if (!options.onDelta) return { text: turn.response, finishReason, usage, aborted: false };
  // What the answer adds to the final call's streamed text (a footer), or,
  // when a hook rewrote it, the whole answer after what streamed.
  if (turn.response.startsWith(callText)) emit(turn.response.slice(callText.length));
  else emit(`${streamed === "" ? "" : "\n\n"}${turn.response}`);
  return { text: streamed, finishReason, usage, aborted: false };
}

/** The error for a turn stopped before its answer because the server is stopping. */
export function interrupted(): ApiRequestError {
  return new ApiRequestError(
    503,
    "turn_interrupted",
    "The turn was interrupted before its answer: the API server is stopping; try again once it is back",
  );
}
