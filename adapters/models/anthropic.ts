/**
 * A {@link ModelClient} for the Anthropic Messages API over the
 * `@anthropic-ai/sdk` with streaming.
 *
 * @module
 */

import { importLazily } from "../lazy.ts";
import type Anthropic from "@anthropic-ai/sdk";
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
  parseArguments,
  type Progress,
  sdkTimeoutMs,
  withEndpoint,
} from "./_call.ts";
import { rejectingHtml } from "./http.ts";

type WireMessage = Anthropic.MessageParam;
type WireBlock = Anthropic.ContentBlockParam;

/** Output cap sent when neither the request nor the settings set one (the API requires one). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/**
 * Creates a client for the Anthropic Messages API.
 *
 * @example
 * ```ts
 * const client = createAnthropicClient({ provider: "anthropic", model: "claude-sonnet-4-5",
 *   apiKey: key, maxRetries: 3 });
 * const answer = await client.complete({ system: "Be brief.", messages, tools: [] });
 * ```
 */
export function createAnthropicClient(
  given: ModelSettings,
  options: ModelClientOptions = {},
): ModelClient {
  const settings = withEndpoint(given);
  const sdkOptions: ConstructorParameters<typeof Anthropic>[0] = {
    apiKey: settings.apiKey || NO_KEY,
    baseURL: settings.baseUrl,
    maxRetries: 0,
    timeout: sdkTimeoutMs(settings),
    fetch: rejectingHtml(options.fetch ?? fetch, settings.provider),
    ...(settings.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
  };
  return lazySdkClient(
    settings,
    options,
    () =>
      importLazily<typeof import("@anthropic-ai/sdk")>("@anthropic-ai/sdk").then((
        { default: Sdk },
      ) => new Sdk(sdkOptions)),
    (sdk, request, handlers, signal, progress) =>
      attempt(sdk, settings, request, handlers, signal, progress),
  );
}

async function attempt(
  sdk: Anthropic,
  settings: ModelSettings,
  request: ModelRequest,
  handlers: ModelStreamHandlers,
  signal: AbortSignal,
  progress: Progress,
): Promise<ModelResponse> {
  const stream = await sdk.messages.create({
    model: settings.model,
    max_tokens: request.maxTokens ?? settings.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    ...(request.system ? { system: request.system } : {}),
    messages: toWireMessages(request.messages),
    ...(request.tools.length ? { tools: request.tools.map(toWireTool) } : {}),
    stream: true,
  }, { signal });

  const calls = new Map<number, ToolCall>();
  let stop: string | null = null;
  for await (const event of stream) {
    switch (event.type) {
      case "message_start":
        progress.usage = startUsage(event.message.usage);
        break;
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "tool_use") {
          calls.set(event.index, { id: block.id, name: block.name, arguments: "" });
        } else if (block.type === "text") {
          emitText(handlers.onText, progress, block.text);
        }
        break;
      }
      case "content_block_delta": {
        const delta = event.delta;
        if (delta.type === "text_delta") emitText(handlers.onText, progress, delta.text);
        else if (delta.type === "input_json_delta") {
          const call = calls.get(event.index);
          if (call) call.arguments += delta.partial_json;
        }
        break;
      }
      case "message_delta":
        stop = event.delta.stop_reason ?? stop;
        progress.usage = deltaUsage(progress.usage, event.usage);
        break;
    }
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ ...call, arguments: call.arguments.trim() ? call.arguments : "{}" }));
  return {
    text: progress.text,
    toolCalls,
    finishReason: finishReason(stop, toolCalls.length > 0),
    usage: progress.usage,
  };
}

function finishReason(reason: string | null, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    case null:
      return hasToolCalls ? "tool_calls" : "stop";
    default:
      return "other";
  }
}

function startUsage(usage: Anthropic.Usage): ModelUsage {
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
  };
}

/** message_delta counts are cumulative; the input counts are there only on newer servers. */
function deltaUsage(usage: ModelUsage, delta: Anthropic.MessageDeltaUsage): ModelUsage {
  return {
    inputTokens: delta.input_tokens ?? usage.inputTokens,
    outputTokens: delta.output_tokens ?? usage.outputTokens,
    cacheReadTokens: delta.cache_read_input_tokens ?? usage.cacheReadTokens,
    cacheWriteTokens: delta.cache_creation_input_tokens ?? usage.cacheWriteTokens,
  };
}

/**
 * The conversation in Anthropic's shape: assistant turns as text and
 * tool_use blocks, tool results as tool_result blocks of one user message
 * (consecutive results merged, and a user message right after them joined
 * to it, so roles alternate).
 */
export function toWireMessages(messages: readonly ChatMessage[]): WireMessage[] {
  const wire: WireMessage[] = [];
  /** Blocks of the user message at the end, made from a string message when needed. */
  const userBlocks = (): WireBlock[] => {
    const last = wire.at(-1);
    if (last?.role === "user") {
      if (typeof last.content === "string") {
        last.content = [{ type: "text", text: last.content }];
      }
      return last.content as WireBlock[];
    }
    const blocks: WireBlock[] = [];
    wire.push({ role: "user", content: blocks });
    return blocks;
  };
  for (const message of messages) {
    switch (message.role) {
      case "user":
        if (message.content === "") break;
        if (wire.at(-1)?.role === "user") {
          userBlocks().push({ type: "text", text: message.content });
        } else wire.push({ role: "user", content: message.content });
        break;
      case "tool":
        userBlocks().push({
          type: "tool_result",
          tool_use_id: message.toolCallId,
          content: message.content,
          is_error: message.isError === true,
        });
        break;
      case "assistant": {
        const blocks: WireBlock[] = [];
        if (message.content) blocks.push({ type: "text", text: message.content });
        for (const call of message.toolCalls ?? []) {
          blocks.push({
            type: "tool_use",
            id: call.id,
            name: call.name,
            input: parseArguments(call.arguments),
          });
        }
        if (blocks.length) wire.push({ role: "assistant", content: blocks });
        break;
      }
    }
  }
  return wire;
}

function toWireTool(tool: ToolSpec): Anthropic.Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as Anthropic.Tool.InputSchema,
  };
}
