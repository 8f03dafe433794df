/**
 * The Responses API's response object and its stream events, as the
 * official SDKs read them: one assistant message item holding one
 * `output_text` part (the agent's tools ran server-side, so no function
 * call item is ever handed to the client to run).
 *
 * @module
 */

import type { OpenAiErrorObject } from "./errors.ts";
import type { TurnUsage } from "./turn.ts";

/** What a response object is made of. */
export interface ResponseFacts {
  id: string;
  /** The message item's id (`msg_...`), the same in every event. */
  messageId: string;
  /** ms since the epoch. */
  createdAt: number;
  model: string;
  instructions: string | null;
  previousResponseId: string | null;
  conversation: string | null;
  metadata: Record<string, string>;
  store: boolean;
}

/** Where a response stands. */
export type ResponseState =
  | { status: "in_progress" }
  | { status: "completed"; text: string; usage: TurnUsage; completedAt: number }
  | { status: "failed"; error: OpenAiErrorObject; text: string };

/** The assistant message item holding `text`. */
export function messageItem(
  facts: ResponseFacts,
  text: string | undefined,
  status: "in_progress" | "completed" | "incomplete",
): Record<string, unknown> {
  return {
    id: facts.messageId,
    type: "message",
    status,
    role: "assistant",
    content: text === undefined ? [] : [outputText(text)],
  };
}

/** An `output_text` content part. */
export function outputText(text: string): Record<string, unknown> {
  return { type: "output_text", text, annotations: [] };
}

function usageObject(usage: TurnUsage | undefined) {
  if (!usage) return null;
  return {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input + usage.output,
  };
}

/** The response object in `state`. */
export function responseObject(
  facts: ResponseFacts,
  state: ResponseState,
): Record<string, unknown> {
  const seconds = (ms: number) => Math.floor(ms / 1000);
  let output: Record<string, unknown>[] = [];
  if (state.status === "completed") {
    output = [messageItem(facts, state.text, "completed")];
  } else if (state.status === "failed" && state.text !== "") {
    output = [messageItem(facts, state.text, "incomplete")];
  }
  const completed = state.status === "completed";
  return {
    id: facts.id,
    object: "response",
    created_at: seconds(facts.createdAt),
    status: state.status,
    ...(completed ? { completed_at: seconds(state.completedAt) } : {}),
    error: state.status === "failed"
      ? { code: state.error.code, message: state.error.message }
      : null,
    incomplete_details: null,
    instructions: facts.instructions,
    metadata: facts.metadata,
    model: facts.model,
    output,
    ...(completed ? { output_text: state.text } : {}),
    parallel_tool_calls: false,
    previous_response_id: facts.previousResponseId,
    conversation: facts.conversation === null ? null : { id: facts.conversation },
    store: facts.store,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    usage: completed ? usageObject(state.usage) : null,
  };
}
