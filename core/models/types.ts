/**
 * The model contract: one interface for every provider wire format
 * (OpenAI-compatible chat completions, Anthropic Messages). Adapters in
 * adapters/models implement it; the agent loop only sees this.
 *
 * @module
 */

/** A tool call the model asked for. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One message of the conversation in provider-neutral form. */
export type ChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean };

/** A tool offered to the model: name, description and JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema (type "object") of the arguments. */
  parameters: Record<string, unknown>;
}

/** Token usage reported by the provider for one call. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Why the model stopped. `aborted` means the caller's signal fired; the content is partial. */
export type FinishReason =
  | "stop"
  | "tool_calls"
  | "length"
  | "content_filter"
  | "aborted"
  | "other";

/** One request to the model. The system prompt is separate so each wire format can place it. */
export interface ModelRequest {
  system: string;
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  /** Output cap; required by Anthropic (the adapter picks a default when absent). */
  maxTokens?: number;
  signal?: AbortSignal;
}

/** The accumulated answer of one model call. */
export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: ModelUsage;
}

/**
 * Something the user should know about a model call that still goes on:
 * `model_fallback` (a fallback provider took over for the rest of the
 * turn), `model_key_rotated` (another key of the provider took over). The
 * message is one line and never holds a key.
 */
export interface ModelNotice {
  /** `model_retry`: a call failed in a way worth retrying and waits for its next attempt. */
  code: "model_fallback" | "model_key_rotated" | "model_retry";
  message: string;
  /** For `model_retry`: the wait before the next attempt, and which attempt of how many it is. */
  retry?: RetryInfo;
}

/** A failed call waiting for its next attempt (a `model_retry` notice). */
export interface RetryInfo {
  /** What failed, in one line (the notice's message adds the wait and the attempt). */
  reason: string;
  delayMs: number;
  /** The attempt that comes next, of `attempts` in all. */
  attempt: number;
  attempts: number;
}

/** Streaming callbacks; each is optional. */
export interface ModelStreamHandlers {
  /** A piece of assistant text as it arrives. */
  onText?(delta: string): void;
  /** A notice about the call (a fallback or another key took over). */
  onNotice?(notice: ModelNotice): void;
}

/**
 * A configured model endpoint. `complete` streams the answer through
 * `handlers` and resolves with the whole of it. When `request.signal` fires
 * it resolves with what arrived so far and `finishReason: "aborted"` (no tool
 * calls). Failures reject with {@link ModelError}.
 */
export interface ModelClient {
  /** Provider id, e.g. `openrouter`, `anthropic`, `custom`. */
  readonly provider: string;
  /** Model name sent to the provider. */
  readonly model: string;
  complete(request: ModelRequest, handlers?: ModelStreamHandlers): Promise<ModelResponse>;
}

/** A usage record with every counter at zero. */
export function emptyUsage(): ModelUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}
