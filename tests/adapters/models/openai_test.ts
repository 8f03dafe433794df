/**
 * The OpenAI-compatible client's wire shape: messages, tools, tool calls and
 * tool results as the next request carries them, and streams from servers
 * that put usage on the last content chunk or drop the connection.
 */

import assert from "node:assert/strict";
import { ModelError } from "../../../core/errors.ts";
import type { ChatMessage, ToolSpec } from "../../../core/models/types.ts";
import { createOpenAIClient } from "../../../adapters/models/openai.ts";
import { startModelServer } from "../../fakes/model_server.ts";
import {
  dataEvent,
  FAST,
  rawServer,
  settingsFor,
  sseResponse,
  streamServer,
  WIRES,
} from "./_setup.ts";

const OPENAI = WIRES[0];

const WEATHER: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

Deno.test("the next request carries assistant tool_calls and tool results in OpenAI's shape", async () => {
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [
          { id: "call_w1", name: "get_weather", arguments: { city: "Tokyo" } },
          { id: "call_w2", name: "get_weather", arguments: { city: "Osaka" } },
        ],
      },
      { text: "Tokyo is sunny, Osaka rains." },
    ],
  });
  const client = createOpenAIClient(settingsFor(server, OPENAI), FAST);
  const messages: ChatMessage[] = [{ role: "user", content: "Weather in Tokyo and Osaka?" }];
  const first = await client.complete({ system: "Be brief.", messages, tools: [WEATHER] });
  assert.equal(first.finishReason, "tool_calls");
  messages.push({ role: "assistant", content: first.text || null, toolCalls: first.toolCalls });
  messages.push({
    role: "tool",
    toolCallId: "call_w1",
    name: "get_weather",
    content: "18°C, clear",
  });
  messages.push({
    role: "tool",
    toolCallId: "call_w2",
    name: "get_weather",
    content: "city not found",
    isError: true,
  });
  const second = await client.complete({ system: "Be brief.", messages, tools: [WEATHER] });
  assert.equal(second.text, "Tokyo is sunny, Osaka rains.");

  const body = server.requests[1].body as Record<string, unknown>;
  assert.equal(body.model, "gpt-test");
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.deepEqual(body.tools, [{
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: WEATHER.parameters,
    },
  }]);
  assert.deepEqual(body.messages, [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Weather in Tokyo and Osaka?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_w1",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Tokyo"}' },
        },
        {
          id: "call_w2",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Osaka"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_w1", content: "18°C, clear" },
    { role: "tool", tool_call_id: "call_w2", content: "city not found" },
  ]);
});

Deno.test("no tools means no tools field, and maxTokens is sent as max_tokens", async () => {
  await using server = await startModelServer({ replies: [{ text: "ok" }] });
  const client = createOpenAIClient(settingsFor(server, OPENAI, { maxTokens: 300 }), FAST);
  await client.complete({ system: "", messages: [{ role: "user", content: "hi" }], tools: [] });
  const body = server.requests[0].body as Record<string, unknown>;
  assert.equal("tools" in body, false);
  assert.equal(body.max_tokens, 300);
  assert.deepEqual(body.messages, [{ role: "user", content: "hi" }]);
});

const chunk = (delta: unknown, finish: string | null = null, usage?: unknown) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1767225600,
  model: "local",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...(usage ? { usage } : {}),
});

Deno.test("usage on the last content chunk is accepted", async () => {
  await using local = await rawServer(() =>
    sseResponse([
      dataEvent(chunk({ role: "assistant", content: "" })),
      dataEvent(chunk({ content: "Hello" })),
      dataEvent(chunk({}, "stop", {
        prompt_tokens: 17,
        completion_tokens: 3,
        total_tokens: 20,
        prompt_tokens_details: { cached_tokens: 8 },
      })),
      dataEvent("[DONE]"),
    ])
  );
  const client = createOpenAIClient(
    { provider: "custom", model: "local", baseUrl: `${local.url}/v1`, maxRetries: 0 },
    FAST,
  );
  const answer = await client.complete({
    system: "",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
  });
  assert.equal(answer.text, "Hello");
  assert.equal(answer.finishReason, "stop");
  assert.deepEqual(answer.usage, {
    inputTokens: 17,
    outputTokens: 3,
    cacheReadTokens: 8,
    cacheWriteTokens: 0,
  });
});

Deno.test("a stream that breaks after text was shown is not retried", async () => {
  await using local = streamServer(() => ({
    events: [
      dataEvent(chunk({ role: "assistant", content: "" })),
      dataEvent(chunk({ content: "Partial " })),
      dataEvent(chunk({ content: "answer" })),
    ],
    drop: true,
  }));
  const client = createOpenAIClient(
    { provider: "custom", model: "local", baseUrl: `${local.url}/v1`, maxRetries: 3 },
    FAST,
  );
  const shown: string[] = [];
  const error = await client.complete(
    { system: "", messages: [{ role: "user", content: "hi" }], tools: [] },
    { onText: (delta) => shown.push(delta) },
  ).then(() => assert.fail("expected the broken stream to fail"), (error: unknown) => error);
  assert.ok(error instanceof ModelError);
  assert.equal(error.code, "model_unavailable");
  assert.match(
    error.message,
    /^The connection to custom at http:\S+ failed: .+ \(part of the answer had arrived, so it was not retried\)$/,
  );
  assert.deepEqual(shown, ["Partial ", "answer"]);
  assert.equal(local.hits, 1);
});

Deno.test("a stream that breaks before any text is retried", async () => {
  await using local = streamServer((hit) =>
    hit === 1 ? { events: [dataEvent(chunk({ role: "assistant", content: "" }))], drop: true } : {
      events: [
        dataEvent(chunk({ content: "Second try" })),
        dataEvent(chunk({}, "stop")),
        dataEvent("[DONE]"),
      ],
    }
  );
  const client = createOpenAIClient(
    { provider: "custom", model: "local", baseUrl: `${local.url}/v1`, maxRetries: 3 },
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
