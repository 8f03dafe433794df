/**
 * A {@link ModelClient} for OpenAI-compatible chat completions (OpenAI,
 * OpenRouter, Ollama, LM Studio, vLLM, llama.cpp, any custom endpoint), over
 * the `openai` SDK with streaming.
 *
 * @module
 */

import { importLazily } from "../lazy.ts";
import type OpenAI from "openai";
import type { ModelSettings } from "../../core/models/settings.ts";
import type {
  ChatMessage,
  FinishReason,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelStreamHandlers,
  ModelUsage,
  ToolCall,
  ToolSpec,
} from "../../core/models/types.ts";
import {
  emitText,
  lazySdkClient,
  type ModelClientOptions,
  NO_KEY,
  type Progress,
  sdkTimeoutMs,
  withEndpoint,
} from "./_call.ts";
import { rejectingHtml } from "./http.ts";

type WireMessage = OpenAI.Chat.ChatCompletionMessageParam;
type WireTool = OpenAI.Chat.ChatCompletionFunctionTool;
type ToolCallPart = OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall;

/**
 * Creates a client for an OpenAI-compatible endpoint. Without a key no
 * Authorization header is sent (local servers need none).
 *
 * @example
 * ```ts
 * const client = createOpenAIClient({ provider: "ollama", model: "qwen3", maxRetries: 3,
 *   baseUrl: "http://127.0.0.1:11434/v1" });
 * const answer = await client.complete({ system: "Be brief.", messages, tools: [] });
 * ```
 */
export function createOpenAIClient(
  given: ModelSettings,
  options: ModelClientOptions = {},
): ModelClient {
  const settings = withEndpoint(given);
  const sdkOptions: ConstructorParameters<typeof OpenAI>[0] = {
    apiKey: settings.apiKey || NO_KEY,
    baseURL: settings.baseUrl,
    organization: null,
    project: null,
    adminAPIKey: null,
    maxRetries: 0,
    timeout: sdkTimeoutMs(settings),
    fetch: rejectingHtml(options.fetch ?? fetch, settings.provider),
    ...(settings.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
  };
  return lazySdkClient(
    settings,
    options,
    () =>
      importLazily<typeof import("openai")>("openai").then(({ default: Sdk }) =>
        new Sdk(sdkOptions)
      ),
    (sdk, request, handlers, signal, progress) =>
      attempt(sdk, settings, request, handlers, signal, progress),
  );
}

async function attempt(
  sdk: OpenAI,
  settings: ModelSettings,
  request: ModelRequest,
  handlers: ModelStreamHandlers,
  signal: AbortSignal,
  progress: Progress,
): Promise<ModelResponse> {
  const maxTokens = request.maxTokens ?? settings.maxTokens;
  const stream = await sdk.chat.completions.create({
    model: settings.model,
    messages: toWireMessages(request.system, request.messages),
    ...(request.tools.length ? { tools: request.tools.map(toWireTool) } : {}),
    // First-party OpenAI wants max_completion_tokens; compatible servers know max_tokens.
    ...(maxTokens === undefined
      ? {}
      : settings.provider === "openai"
      ? { max_completion_tokens: maxTokens }
      : { max_tokens: maxTokens }),
    stream: true,
    stream_options: { include_usage: true },
  }, { signal });

  const calls = new Map<number, ToolCall>();
  let finish: string | null = null;
  for await (const chunk of stream) {
    if (chunk.usage) progress.usage = toUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta ?? {};
      if (typeof delta.content === "string") emitText(handlers.onText, progress, delta.content);
      for (const part of delta.tool_calls ?? []) addToolCallPart(calls, part);
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  return {
    text: progress.text,
    toolCalls,
    finishReason: finishReason(finish, toolCalls.length > 0),
    usage: progress.usage,
  };
}

/** Adds one streamed fragment of a tool call, keyed by its index. */
function addToolCallPart(
  calls: Map<number, ToolCall>,
  part: ToolCallPart,
): void {
  const index = part.index ?? calls.size;
  let call = calls.get(index);
  if (!call) {
    call = { id: "", name: "", arguments: "" };
    calls.set(index, call);
  }
  if (part.id && !call.id) call.id = part.id;
  // Some servers repeat the name in every fragment; it is whole in the first.
  if (part.function?.name && !call.name) call.name = part.function.name;
  if (part.function?.arguments) call.arguments += part.function.arguments;
}

function finishReason(reason: string | null, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "stop":
    case null:
      // Some compatible servers say "stop" (or nothing) after tool calls.
      return hasToolCalls ? "tool_calls" : "stop";
    default:
      return "other";
  }
}

function toUsage(usage: OpenAI.CompletionUsage): ModelUsage {
  const details = usage.prompt_tokens_details as
    | { cached_tokens?: number | null; cache_write_tokens?: number | null }
    | null
    | undefined;
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    cacheReadTokens: details?.cached_tokens ?? 0,
    cacheWriteTokens: details?.cache_write_tokens ?? 0,
  };
}

/** The system prompt as the first message, then the conversation in OpenAI's shape. */
export function toWireMessages(system: string, messages: readonly ChatMessage[]): WireMessage[] {
  const wire: WireMessage[] = system ? [{ role: "system", content: system }] : [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        wire.push({ role: "user", content: message.content });
        break;
      case "assistant": {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) {
          wire.push({ role: "assistant", content: message.content ?? "" });
          break;
        }
        wire.push({
          role: "assistant",
          content: message.content || null,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: call.arguments || "{}" },
          })),
        });
        break;
      }
      case "tool":
        wire.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content });
        break;
    }
  }
  return wire;
}

function toWireTool(tool: ToolSpec): WireTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
