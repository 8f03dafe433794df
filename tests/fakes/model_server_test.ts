/**
 * Proves the scripted model server is indistinguishable from the real
 * services to the official OpenAI and Anthropic SDKs.
 *
 * @module
 */

import assert from "node:assert/strict";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { type ModelServer, startModelServer } from "./model_server.ts";

const WEATHER_TOOL = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

function openai(server: ModelServer, options: { maxRetries?: number; apiKey?: string } = {}) {
  return new OpenAI({
    apiKey: options.apiKey ?? "sk-test",
    baseURL: server.openaiBaseUrl,
    maxRetries: options.maxRetries ?? 0,
  });
}

function anthropic(server: ModelServer, options: { maxRetries?: number; apiKey?: string } = {}) {
  return new Anthropic({
    apiKey: options.apiKey ?? "sk-ant-test",
    baseURL: server.anthropicBaseUrl,
    maxRetries: options.maxRetries ?? 0,
  });
}

/** Runs `promise`, expecting it to reject, and returns what it rejected with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("Expected the promise to reject, but it resolved");
}

Deno.test("openai streaming text arrives in several chunks that the SDK joins", async () => {
  await using server = await startModelServer({
    replies: [{ text: "Hello from the fake model!", chunkSize: 5 }],
  });
  const stream = await openai(server).chat.completions.create({
    model: "gpt-test",
    messages: [{ role: "user", content: "Hi" }],
    stream: true,
  });

  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);

  assert.equal(chunks[0].choices[0].delta.role, "assistant");
  const contents = chunks.map((chunk) => chunk.choices[0]?.delta.content).filter(Boolean);
  assert.ok(contents.length > 1, `expected several content chunks, got ${contents.length}`);
  assert.equal(contents.join(""), "Hello from the fake model!");
  assert.equal(chunks.at(-1)?.choices[0].finish_reason, "stop");
  assert.ok(chunks.every((chunk) => chunk.object === "chat.completion.chunk"));
  assert.ok(chunks.every((chunk) => chunk.model === "gpt-test"));
  assert.ok(chunks.every((chunk) => !("usage" in chunk)), "usage is only sent when asked for");
});

Deno.test("openai streamed tool calls are split across chunks and reassembled by the SDK with usage", async () => {
  await using server = await startModelServer({
    replies: [{
      toolCalls: [
        { id: "call_w1", name: "get_weather", arguments: { city: "Tokyo" } },
        { id: "call_t2", name: "get_time", arguments: '{"tz": "Asia/Tokyo"}' },
      ],
      usage: { input: 81, output: 40 },
      chunkSize: 6,
    }],
  });
  const stream = openai(server).chat.completions.stream({
    model: "gpt-test",
    messages: [{ role: "user", content: "Weather and time in Tokyo?" }],
    tools: [WEATHER_TOOL],
    stream_options: { include_usage: true },
  });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  stream.on("chunk", (chunk) => chunks.push(chunk));

  const final = await stream.finalChatCompletion();

  const choice = final.choices[0];
  assert.equal(choice.finish_reason, "tool_calls");
  assert.deepEqual(
    choice.message.tool_calls?.map((call) => call.type === "function" && call),
    [
      {
        id: "call_w1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Tokyo"}' },
      },
      {
        id: "call_t2",
        type: "function",
        function: { name: "get_time", arguments: '{"tz": "Asia/Tokyo"}' },
      },
    ],
  );
  assert.deepEqual(
    {
      prompt: final.usage?.prompt_tokens,
      completion: final.usage?.completion_tokens,
      total: final.usage?.total_tokens,
    },
    { prompt: 81, completion: 40, total: 121 },
  );

  const fragments = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
  const firstOfEach = fragments.filter((fragment) => fragment.id !== undefined);
  assert.deepEqual(firstOfEach.map((fragment) => fragment.function?.arguments), ["", ""]);
  assert.ok(
    fragments.filter((fragment) => fragment.index === 0 && !fragment.id).length > 1,
    "the first call's arguments should arrive in several fragments",
  );
  const usageChunk = chunks.at(-1);
  assert.deepEqual(usageChunk?.choices, []);
  assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null));
});

Deno.test("openai non-streaming reply carries text and tool calls in one message", async () => {
  await using server = await startModelServer({
    replies: [{
      text: "Checking.",
      toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }],
      usage: { input: 7, output: 3 },
    }],
  });

  const completion = await openai(server).chat.completions.create({
    model: "gpt-test",
    messages: [{ role: "user", content: "Weather in Paris?" }],
    tools: [WEATHER_TOOL],
  });

  assert.equal(completion.object, "chat.completion");
  assert.equal(completion.choices[0].finish_reason, "tool_calls");
  assert.equal(completion.choices[0].message.content, "Checking.");
  assert.deepEqual(completion.choices[0].message.tool_calls, [
    {
      id: "call_1",
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Paris"}' },
    },
  ]);
  assert.equal(completion.usage?.total_tokens, 10);
});

Deno.test("anthropic streaming text and tool use are reassembled by the SDK's finalMessage", async () => {
  await using server = await startModelServer({
    replies: [{
      text: "Let me check the weather.",
      toolCalls: [{ id: "toolu_01A", name: "get_weather", arguments: { city: "Tokyo" } }],
      usage: { input: 472, output: 89 },
    }],
  });
  const stream = anthropic(server).messages.stream({
    model: "claude-test",
    max_tokens: 1024,
    messages: [{ role: "user", content: "Weather in Tokyo?" }],
    tools: [{ name: "get_weather", input_schema: { type: "object" } }],
  });
  const eventTypes: string[] = [];
  stream.on("streamEvent", (event) => eventTypes.push(event.type));

  const message = await stream.finalMessage();

  assert.equal(message.stop_reason, "tool_use");
  assert.equal(message.model, "claude-test");
  assert.deepEqual(message.content, [
    { type: "text", text: "Let me check the weather." },
    { type: "tool_use", id: "toolu_01A", name: "get_weather", input: { city: "Tokyo" } },
  ]);
  assert.equal(message.usage.input_tokens, 472);
  assert.equal(message.usage.output_tokens, 89);
  assert.equal(eventTypes[0], "message_start");
  assert.equal(eventTypes.at(-1), "message_stop");
  assert.ok(eventTypes.filter((type) => type === "content_block_delta").length > 4);
});

Deno.test("anthropic non-streaming reply is a message with text and tool_use blocks", async () => {
  await using server = await startModelServer({
    replies: [{
      text: "Sure.",
      toolCalls: [{ id: "toolu_9", name: "get_weather", arguments: '{"city":"Oslo"}' }],
      usage: { input: 20, output: 8 },
    }],
  });

  const message = await anthropic(server).messages.create({
    model: "claude-test",
    max_tokens: 256,
    messages: [{ role: "user", content: "Weather in Oslo?" }],
  });

  assert.equal(message.type, "message");
  assert.equal(message.role, "assistant");
  assert.equal(message.stop_reason, "tool_use");
  assert.deepEqual(message.content, [
    { type: "text", text: "Sure." },
    { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Oslo" } },
  ]);
  assert.equal(message.usage.output_tokens, 8);
});

Deno.test("a plain text answer ends the turn in both protocols", async () => {
  await using server = await startModelServer({ replies: [{ text: "Done." }, { text: "Done." }] });

  const completion = await openai(server).chat.completions.create({
    model: "gpt-test",
    messages: [{ role: "user", content: "Go" }],
  });
  const message = await anthropic(server).messages.create({
    model: "claude-test",
    max_tokens: 16,
    messages: [{ role: "user", content: "Go" }],
  });

  assert.equal(completion.choices[0].finish_reason, "stop");
  assert.equal(completion.choices[0].message.tool_calls, undefined);
  assert.equal(message.stop_reason, "end_turn");
  assert.deepEqual(message.content, [{ type: "text", text: "Done." }]);
});

Deno.test("an error reply surfaces as the SDK's APIError with the scripted status", async () => {
  await using server = await startModelServer({
    replies: [{ status: 429, message: "Slow down." }, { status: 500 }, { status: 529 }],
  });

  const openaiError = await rejection(
    openai(server).chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "Hi" }],
    }),
  );
  assert.ok(openaiError instanceof OpenAI.RateLimitError);
  assert.equal(openaiError.status, 429);
  assert.equal(openaiError.code, "rate_limit_exceeded");
  assert.match(openaiError.message, /Slow down\./);

  const streamError = await rejection(
    openai(server).chat.completions.stream({
      model: "gpt-test",
      messages: [{ role: "user", content: "Hi" }],
    }).finalChatCompletion(),
  );
  assert.ok(streamError instanceof OpenAI.InternalServerError);
  assert.equal(streamError.status, 500);

  const anthropicError = await rejection(
    anthropic(server).messages.create({
      model: "claude-test",
      max_tokens: 16,
      messages: [{ role: "user", content: "Hi" }],
    }),
  );
  assert.ok(anthropicError instanceof Anthropic.APIError);
  assert.equal(anthropicError.status, 529);
  assert.deepEqual(
    (anthropicError.error as { error?: { type?: string } }).error?.type,
    "overloaded_error",
  );
  assert.equal(server.requests.length, 3);
});

Deno.test("a retried error is followed by the next scripted reply", async () => {
  await using server = await startModelServer({
    replies: [{ status: 503, headers: { "retry-after-ms": "1" } }, { text: "Recovered." }],
  });

  const completion = await openai(server, { maxRetries: 1 }).chat.completions.create({
    model: "gpt-test",
    messages: [{ role: "user", content: "Hi" }],
  });

  assert.equal(completion.choices[0].message.content, "Recovered.");
  assert.equal(server.requests.length, 2);
  assert.equal(server.pendingReplies, 0);
});

Deno.test("requests are recorded with method, path, lowercased headers and parsed body", async () => {
  await using server = await startModelServer({ replies: [{ text: "a" }, { text: "b" }] });

  await openai(server).chat.completions.create({
    model: "gpt-test",
    messages: [
      { role: "system", content: "You are Herald." },
      { role: "user", content: "Hi" },
    ],
    tools: [WEATHER_TOOL],
  });
  await anthropic(server).messages.create({
    model: "claude-test",
    max_tokens: 64,
    system: "You are Herald.",
    messages: [{ role: "user", content: "Hi" }],
  });

  const [first, second] = server.requests;
  assert.equal(first.method, "POST");
  assert.equal(first.path, "/v1/chat/completions");
  assert.equal(first.protocol, "openai");
  assert.equal(first.headers["authorization"], "Bearer sk-test");
  assert.match(first.headers["content-type"], /^application\/json/);
  const openaiBody = first.body as OpenAI.ChatCompletionCreateParams;
  assert.deepEqual(openaiBody.messages[0], { role: "system", content: "You are Herald." });
  assert.deepEqual(openaiBody.tools, [WEATHER_TOOL]);
  assert.deepEqual(JSON.parse(first.rawBody), first.body);

  assert.equal(second.path, "/v1/messages");
  assert.equal(second.protocol, "anthropic");
  assert.ok(second.headers["anthropic-version"], "the SDK sends an API version");
  assert.equal(second.headers["authorization"], "Bearer sk-ant-test");
  const anthropicBody = second.body as Anthropic.MessageCreateParams;
  assert.equal(anthropicBody.system, "You are Herald.");
  assert.equal(anthropicBody.max_tokens, 64);
});

Deno.test("an exhausted queue answers 500 naming the missing reply, without SDK retries", async () => {
  await using server = await startModelServer();

  const openaiError = await rejection(
    openai(server, { maxRetries: 2 }).chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "Hi" }],
    }),
  );
  const anthropicError = await rejection(
    anthropic(server, { maxRetries: 2 }).messages.stream({
      model: "claude-test",
      max_tokens: 16,
      messages: [{ role: "user", content: "Hi" }],
    }).finalMessage(),
  );

  assert.ok(openaiError instanceof OpenAI.APIError);
  assert.equal(openaiError.status, 500);
  assert.equal(openaiError.code, "no_scripted_reply");
  assert.match(openaiError.message, /No scripted reply left for "POST \/v1\/chat\/completions"/);
  assert.ok(anthropicError instanceof Anthropic.APIError);
  assert.equal(anthropicError.status, 500);
  const anthropicBody = anthropicError.error as { error?: { message?: string } };
  assert.match(
    anthropicBody.error?.message ?? "",
    /No scripted reply left for "POST \/v1\/messages"/,
  );
  assert.equal(server.requests.length, 2, "x-should-retry: false stops the SDK retries");
});

Deno.test("requireKey rejects a wrong key with 401 and takes no reply", async () => {
  await using server = await startModelServer({
    requireKey: "sk-right",
    replies: [{ text: "OpenAI ok" }, { text: "Anthropic ok" }],
  });

  const openaiError = await rejection(openai(server, { apiKey: "sk-wrong" }).models.list());
  assert.ok(openaiError instanceof OpenAI.AuthenticationError);
  assert.equal(openaiError.code, "invalid_api_key");
  const anthropicError = await rejection(
    anthropic(server, { apiKey: "sk-wrong" }).messages.create({
      model: "claude-test",
      max_tokens: 16,
      messages: [{ role: "user", content: "Hi" }],
    }),
  );
  assert.ok(anthropicError instanceof Anthropic.AuthenticationError);
  assert.equal(server.pendingReplies, 2);

  const completion = await openai(server, { apiKey: "sk-right" }).chat.completions.create({
    model: "gpt-test",
    messages: [{ role: "user", content: "Hi" }],
  });
  assert.equal(completion.choices[0].message.content, "OpenAI ok");
  const response = await fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": "sk-right", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-test", max_tokens: 16, messages: [] }),
  });
  assert.equal(response.status, 200);
  assert.deepEqual((await response.json()).content, [{ type: "text", text: "Anthropic ok" }]);
});

Deno.test("a request the real service would refuse gets the provider's 400", async () => {
  await using server = await startModelServer({ replies: [{ text: "unused" }] });

  const response = await fetch(`${server.url}/v1/messages`, {
    method: "POST",
    headers: { "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-test", messages: [] }),
  });

  assert.equal(response.status, 400);
  const body = await response.json();
  assert.equal(body.type, "error");
  assert.equal(body.error.type, "invalid_request_error");
  assert.match(body.error.message, /max_tokens/);
  assert.equal(server.pendingReplies, 1);
});

Deno.test("the model list answers in each provider's shape", async () => {
  await using server = await startModelServer({ models: ["gpt-test", "claude-test"] });

  const openaiIds: string[] = [];
  for await (const model of openai(server).models.list()) openaiIds.push(model.id);
  const anthropicIds: string[] = [];
  for await (const model of anthropic(server).models.list()) anthropicIds.push(model.id);

  assert.deepEqual(openaiIds, ["gpt-test", "claude-test"]);
  assert.deepEqual(anthropicIds, ["gpt-test", "claude-test"]);
});

Deno.test("a reply hanging before the response can be aborted by the client", async () => {
  await using server = await startModelServer({
    replies: [{ text: "never", hang: "before-response" }],
  });
  const controller = new AbortController();

  const pending = rejection(
    openai(server).chat.completions.create(
      { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] },
      { signal: controller.signal },
    ),
  );
  while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();

  assert.ok((await pending) instanceof OpenAI.APIUserAbortError);
});

Deno.test("a reply hanging mid-stream delivers its content and can then be aborted", async () => {
  await using server = await startModelServer({
    replies: [{ text: "Partial answer", hang: "mid-stream" }],
  });
  const stream = anthropic(server).messages.stream({
    model: "claude-test",
    max_tokens: 64,
    messages: [{ role: "user", content: "Hi" }],
  });
  let text = "";
  stream.on("text", (delta) => {
    text += delta;
    if (text === "Partial answer") stream.abort();
  });

  const error = await rejection(stream.finalMessage());

  assert.ok(error instanceof Anthropic.APIUserAbortError);
  assert.equal(text, "Partial answer");
});

Deno.test("closing the server ends a stream that is still hanging", async () => {
  const server = await startModelServer({ replies: [{ text: "Cut short", hang: "mid-stream" }] });
  const stream = openai(server).chat.completions.stream({
    model: "gpt-test",
    messages: [{ role: "user", content: "Hi" }],
  });
  let text = "";
  stream.on("content", (delta) => {
    text += delta;
    if (text === "Cut short") server.close();
  });

  const error = await rejection(stream.finalChatCompletion());
  await server.close();

  assert.ok(error instanceof Error);
  assert.equal(text, "Cut short");
});

Deno.test("a delayed reply arrives after the delay", async () => {
  await using server = await startModelServer({ replies: [{ text: "Late", delayMs: 50 }] });
  const started = performance.now();

  const completion = await openai(server).chat.completions.create({
    model: "gpt-test",
    messages: [{ role: "user", content: "Hi" }],
  });

  assert.equal(completion.choices[0].message.content, "Late");
  assert.ok(performance.now() - started >= 45);
});

Deno.test("enqueue rejects a malformed scripted reply at once", async () => {
  await using server = await startModelServer();

  assert.throws(() => server.enqueue({ status: 200 }), RangeError);
  assert.throws(() => server.enqueue({ text: "x", chunkSize: 0 }), RangeError);
  assert.equal(server.pendingReplies, 0);
});
