/**
 * The Anthropic client's wire shape: top-level system, tools with
 * input_schema, assistant turns as text and tool_use blocks, tool results
 * as one user message, max_tokens, cache usage and stream error events.
 */

import assert from "node:assert/strict";
import type { ChatMessage, ToolSpec } from "../../../core/models/types.ts";
import {
  createAnthropicClient,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
} from "../../../adapters/models/anthropic.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import { FAST, rawServer, settingsFor, sseResponse, typedEvent, WIRES } from "./_setup.ts";

const ANTHROPIC = WIRES[1];

const WEATHER: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

Deno.test("the next request carries tool_use blocks and merged tool results in Anthropic's shape", async () => {
  await using server = await startModelServer({
    replies: [
      {
        text: "Let me check.",
        toolCalls: [
          { id: "toolu_a", name: "get_weather", arguments: { city: "Tokyo" } },
          { id: "toolu_b", name: "get_weather", arguments: { city: "Osaka" } },
        ],
      },
      { text: "Tokyo is sunny." },
    ],
  });
  const client = createAnthropicClient(settingsFor(server, ANTHROPIC), FAST);
  const messages: ChatMessage[] = [{ role: "user", content: "Weather in Tokyo and Osaka?" }];
  const first = await client.complete({ system: "Be brief.", messages, tools: [WEATHER] });
  assert.equal(first.finishReason, "tool_calls");
  messages.push({ role: "assistant", content: first.text, toolCalls: first.toolCalls });
  messages.push({ role: "tool", toolCallId: "toolu_a", name: "get_weather", content: "18°C" });
  messages.push({
    role: "tool",
    toolCallId: "toolu_b",
    name: "get_weather",
    content: "city not found",
    isError: true,
  });
  const second = await client.complete({ system: "Be brief.", messages, tools: [WEATHER] });
  assert.equal(second.text, "Tokyo is sunny.");

  const body = server.requests[1].body as Record<string, unknown>;
  assert.equal(server.requests[1].path, "/v1/messages");
  assert.equal(body.model, "claude-test");
  assert.equal(body.system, "Be brief.");
  assert.equal(body.max_tokens, DEFAULT_ANTHROPIC_MAX_TOKENS);
  assert.equal(body.stream, true);
  assert.deepEqual(body.tools, [{
    name: "get_weather",
    description: "Current weather for a city",
    input_schema: WEATHER.parameters,
  }]);
  assert.deepEqual(body.messages, [
    { role: "user", content: "Weather in Tokyo and Osaka?" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Tokyo" } },
        { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Osaka" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: "18°C", is_error: false },
        { type: "tool_result", tool_use_id: "toolu_b", content: "city not found", is_error: true },
      ],
    },
  ]);
});

Deno.test("stored arguments that are not JSON are sent as an empty input", async () => {
  await using server = await startModelServer({ replies: [{ text: "ok" }] });
  const client = createAnthropicClient(settingsFor(server, ANTHROPIC, { maxTokens: 512 }), FAST);
  await client.complete({
    system: "",
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "toolu_x", name: "run", arguments: '{"cmd": "ls' }],
      },
      { role: "tool", toolCallId: "toolu_x", name: "run", content: "bad arguments" },
      { role: "user", content: "try again" },
    ],
    tools: [],
  });
  const body = server.requests[0].body as Record<string, unknown>;
  assert.equal(body.max_tokens, 512);
  assert.equal("system" in body, false);
  assert.equal("tools" in body, false);
  assert.deepEqual(body.messages, [
    { role: "user", content: "go" },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_x", name: "run", input: {} }] },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_x", content: "bad arguments", is_error: false },
        { type: "text", text: "try again" },
      ],
    },
  ]);
});

Deno.test("a refusal stop is reported as content_filter", async () => {
  await using server = await startModelServer({
    replies: [{ text: "I can't help.", finishReason: "content_filter" }],
  });
  const answer = await createAnthropicClient(settingsFor(server, ANTHROPIC), FAST).complete({
    system: "",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
  });
  assert.equal(answer.finishReason, "content_filter");
});

const messageStart = (usage: Record<string, number>) =>
  typedEvent({
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });

const textBlock = (text: string) => [
  typedEvent({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  typedEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
  typedEvent({ type: "content_block_stop", index: 0 }),
];

Deno.test("usage includes cache read and cache creation tokens", async () => {
  await using local = await rawServer(() =>
    sseResponse([
      messageStart({
        input_tokens: 12,
        output_tokens: 1,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 40,
      }),
      ...textBlock("Cached hello"),
      typedEvent({
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 9 },
      }),
      typedEvent({ type: "message_stop" }),
    ])
  );
  const client = createAnthropicClient(
    { provider: "anthropic", model: "claude-test", baseUrl: local.url, apiKey: "k", maxRetries: 0 },
    FAST,
  );
  const answer = await client.complete({
    system: "",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
  });
  assert.equal(answer.text, "Cached hello");
  assert.equal(answer.finishReason, "stop");
  assert.deepEqual(answer.usage, {
    inputTokens: 12,
    outputTokens: 9,
    cacheReadTokens: 900,
    cacheWriteTokens: 40,
  });
});

Deno.test("an overloaded error event before any text is retried", async () => {
  let calls = 0;
  await using local = await rawServer(() =>
    ++calls === 1
      ? sseResponse([
        messageStart({ input_tokens: 5, output_tokens: 1 }),
        typedEvent({
          type: "error",
          error: { type: "overloaded_error", message: "Overloaded" },
        }),
      ])
      : sseResponse([
        messageStart({ input_tokens: 5, output_tokens: 1 }),
        ...textBlock("Second try"),
        typedEvent({
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: 2 },
        }),
        typedEvent({ type: "message_stop" }),
      ])
  );
  const client = createAnthropicClient(
    { provider: "anthropic", model: "claude-test", baseUrl: local.url, apiKey: "k", maxRetries: 2 },
    FAST,
  );
  const answer = await client.complete({
    system: "",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
  });
  assert.equal(answer.text, "Second try");
  assert.equal(local.hits, 2);
});
