/**
 * The API server driven by the official `openai` SDK over real HTTP, with
 * the profile's real agent runtime behind it and the scripted model server
 * as its model: models, keys, Chat Completions and the Responses API,
 * streaming and not, and the stored state that continues a conversation.
 */

import { noListener } from "../../../adapters/runtime/channel_defaults.ts";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { HeraldError } from "../../../core/errors.ts";
import { plugin } from "../../../adapters/channels/api_server/mod.ts";
import { modelMessages, startApiServer, TEST_KEY } from "./_api_server.ts";

/** The text of the last user message the model received in request `index`. */
function lastUserText(messages: { role: string; content: string | null }[]): string {
  return messages.filter((message) => message.role === "user").at(-1)?.content ?? "";
}

Deno.test("/v1/models lists one model named after the profile", async () => {
  await using rig = await startApiServer([]);
  const models = [];
  for await (const model of rig.client.models.list()) models.push(model);
  assert.deepEqual(models.map((model) => [model.id, model.object, model.owned_by]), [
    ["herald-api", "model", "herald"],
  ]);
  assert.equal((await rig.client.models.retrieve("herald-api")).id, "herald-api");
  await assert.rejects(rig.client.models.retrieve("gpt-4o"), OpenAI.NotFoundError);
  assert.deepEqual(rig.states, ["connected"]);
  assert.ok(rig.logs.includes(`API server listening on ${rig.url}`), rig.logs.join("\n"));
});

Deno.test("API_SERVER_MODEL_NAME renames the model the server answers as", async () => {
  await using rig = await startApiServer([{ text: "Hi." }], {
    env: { API_SERVER_MODEL_NAME: "my-agent" },
  });
  const page = await rig.client.models.list();
  assert.deepEqual(page.data.map((model) => model.id), ["my-agent"]);
  const completion = await rig.client.chat.completions.create({
    model: "anything",
    messages: [{ role: "user", content: "hello" }],
  });
  assert.equal(completion.model, "my-agent");
});

Deno.test("a request without the key or with a wrong one is refused with 401 in OpenAI's shape", async () => {
  await using rig = await startApiServer([]);
  const wrong = new OpenAI({ apiKey: "sk-wrong", baseURL: `${rig.url}/v1`, maxRetries: 0 });
  const error = await wrong.models.list().then(() => undefined, (error) => error);
  assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
  assert.equal(error.status, 401);
  assert.equal(error.code, "invalid_api_key");

  const bare = await fetch(`${rig.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "herald-api", messages: [{ role: "user", content: "hi" }] }),
  });
  assert.equal(bare.status, 401);
  const body = await bare.json();
  assert.equal(body.error.code, "invalid_api_key");
  assert.equal(body.error.type, "authentication_error");
  assert.match(body.error.message, /Authorization: Bearer/);
  assert.ok(!JSON.stringify(body).includes(TEST_KEY), "the key is never echoed");
  assert.equal(rig.model.requests.length, 0, "nothing reached the model");

  const health = await fetch(`${rig.url}/health`);
  assert.deepEqual(await health.json(), { status: "ok", platform: "api_server" });
});

Deno.test("the API server is not created without API_SERVER_KEY, even on loopback", () => {
  const context = {
    profile: "default",
    env: (name: string) => name === "API_SERVER_ENABLED" ? "true" : undefined,
    settings: {},
    fetch,
    clock: { now: () => 0, setTimeout: () => 0, clearTimeout: () => {} },
    dataDir: "/nonexistent",
    log: () => {},
    conversations: { open: () => Promise.reject(new Error("not used")) },
    listen: noListener,
  };
  assert.throws(
    () => plugin.create(context),
    (error) =>
      error instanceof HeraldError && error.code === "platform_not_configured" &&
      /API_SERVER_KEY/.test(error.message),
  );
});

Deno.test("chat completions answer with the agent's turn, not streamed", async () => {
  await using rig = await startApiServer([{ text: "Paris.", usage: { input: 12, output: 3 } }]);
  const completion = await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [{ role: "user", content: "Capital of France?" }],
  });
  assert.equal(completion.object, "chat.completion");
  assert.match(completion.id, /^chatcmpl-/);
  assert.equal(completion.model, "herald-api");
  assert.equal(completion.choices[0].message.role, "assistant");
  assert.equal(completion.choices[0].message.content, "Paris.");
  assert.equal(completion.choices[0].finish_reason, "stop");
  assert.deepEqual(completion.usage, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
  assert.equal(lastUserText(modelMessages(rig.model, 0)), "Capital of France?");
});

Deno.test("chat completions stream chunks, the usage chunk and data: [DONE]", async () => {
  await using rig = await startApiServer([
    { text: "One, two, three.", chunkSize: 5 },
    { text: "Raw stream." },
  ]);
  const stream = await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [{ role: "user", content: "Count to three" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.ok(chunks.every((chunk) => chunk.object === "chat.completion.chunk"));
  assert.equal(new Set(chunks.map((chunk) => chunk.id)).size, 1, "one id for the whole stream");
  assert.equal(chunks[0].choices[0].delta.role, "assistant");
  const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
  assert.equal(text, "One, two, three.");
  assert.ok(
    chunks.filter((chunk) => chunk.choices[0]?.delta.content).length > 1,
    "streamed in pieces",
  );
  const finish = chunks.filter((chunk) => chunk.choices[0]?.finish_reason);
  assert.deepEqual(finish.map((chunk) => chunk.choices[0].finish_reason), ["stop"]);
  const usage = chunks.at(-1)!;
  assert.deepEqual(usage.choices, []);
  assert.equal(usage.usage?.total_tokens, 15);

  const raw = await fetch(`${rig.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "again" }], stream: true }),
  });
  assert.match(raw.headers.get("content-type") ?? "", /^text\/event-stream/);
  const wire = await raw.text();
  assert.ok(wire.trimEnd().endsWith("data: [DONE]"), wire);
  assert.ok(!wire.includes("event:"), "chat chunks are data: lines only");
});

Deno.test("earlier chat messages reach the agent as a transcript in front of the last one", async () => {
  await using rig = await startApiServer([{ text: "Blue." }]);
  await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [
      { role: "system", content: "Answer in one word." },
      { role: "user", content: "What colour is the sky?" },
      { role: "assistant", content: "Blue." },
      { role: "user", content: [{ type: "text", text: "And the sea?" }] },
    ],
  });
  const prompt = lastUserText(modelMessages(rig.model, 0));
  assert.equal(
    prompt,
    [
      "The API client sent these earlier messages of the conversation; answer the last one.",
      "",
      "[system]",
      "Answer in one word.",
      "",
      "[user]",
      "What colour is the sky?",
      "",
      "[assistant]",
      "Blue.",
      "",
      "[user]",
      "And the sea?",
    ].join("\n"),
  );
});

Deno.test("file parts, non-image data URLs and images are refused with 400 unsupported_content_type", async () => {
  await using rig = await startApiServer([]);
  const refused = async (content: OpenAI.Chat.ChatCompletionContentPart[]) => {
    const error = await rig.client.chat.completions.create({
      model: "herald-api",
      messages: [{ role: "user", content }],
    }).then(() => undefined, (error) => error);
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.equal(error.code, "unsupported_content_type");
    return error.message;
  };
  const file = await refused([
    { type: "text", text: "Summarise this" },
    { type: "file", file: { filename: "a.pdf", file_data: "data:application/pdf;base64,JVBER" } },
  ]);
  assert.match(file, /messages\[0\]\.content\[1\] is a file/);
  const pdf = await refused([
    { type: "image_url", image_url: { url: "data:application/pdf;base64,JVBER" } },
  ]);
  assert.match(pdf, /application\/pdf/);
  await refused([{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }]);

  const responses = await rig.client.responses.create({
    model: "herald-api",
    input: [{
      role: "user",
      content: [{
        type: "input_file",
        file_data: "data:application/pdf;base64,JVBER",
        filename: "a.pdf",
      }],
    }],
  }).then(() => undefined, (error) => error);
  assert.ok(responses instanceof OpenAI.BadRequestError);
  assert.equal(responses.code, "unsupported_content_type");
  assert.equal(rig.model.requests.length, 0, "nothing reached the model");
});

Deno.test("responses answer without streaming, are stored, fetched and deleted", async () => {
  await using rig = await startApiServer([{
    text: "Stored answer.",
    usage: { input: 7, output: 2 },
  }]);
  const response = await rig.client.responses.create({
    model: "herald-api",
    input: "Remember this",
    instructions: "Be brief.",
    metadata: { ticket: "42" },
  });
  assert.match(response.id, /^resp_[0-9a-f]{32}$/);
  assert.equal(response.status, "completed");
  assert.equal(response.output_text, "Stored answer.");
  assert.equal(response.model, "herald-api");
  assert.equal(response.usage?.total_tokens, 9);
  assert.deepEqual(response.metadata, { ticket: "42" });
  assert.match(
    lastUserText(modelMessages(rig.model, 0)),
    /\[system\]\nBe brief\.\n\n\[user\]\nRemember this$/,
  );

  const fetched = await rig.client.responses.retrieve(response.id);
  assert.equal(fetched.id, response.id);
  assert.equal(fetched.output_text, "Stored answer.");
  await rig.client.responses.delete(response.id);
  await assert.rejects(rig.client.responses.retrieve(response.id), OpenAI.NotFoundError);
  await assert.rejects(rig.client.responses.delete(response.id), OpenAI.NotFoundError);
});

Deno.test("responses stream created, text deltas, output items and completed", async () => {
  await using rig = await startApiServer([{ text: "Streaming works fine.", chunkSize: 6 }]);
  const stream = rig.client.responses.stream({ model: "herald-api", input: "Stream please" });
  const types: string[] = [];
  const deltas: string[] = [];
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === "response.output_text.delta") deltas.push(event.delta);
  }
  const final = await stream.finalResponse();
  assert.equal(final.status, "completed");
  assert.equal(final.output_text, "Streaming works fine.");
  assert.equal(deltas.join(""), "Streaming works fine.");
  assert.ok(deltas.length > 1, "streamed in pieces");
  const distinct = types.filter((type, index) => types[index - 1] !== type);
  assert.deepEqual(distinct, [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
  ]);
  const stored = await rig.client.responses.retrieve(final.id);
  assert.equal(stored.output_text, "Streaming works fine.");
});

Deno.test("a named conversation continues across calls without the client sending ids", async () => {
  await using rig = await startApiServer([
    { text: "Nice to meet you, Ada." },
    { text: "Your name is Ada." },
  ]);
  const first = await rig.client.responses.create({
    model: "herald-api",
    input: "My name is Ada.",
    conversation: "support-7",
  });
  const second = await rig.client.responses.create({
    model: "herald-api",
    input: "What is my name?",
    conversation: "support-7",
    stream: false,
  });
  assert.equal(second.output_text, "Your name is Ada.");
  assert.deepEqual(second.conversation, { id: "support-7" });
  assert.equal(first.previous_response_id, null);
  const messages = modelMessages(rig.model, 1);
  const exchange = messages.filter((message) => message.role !== "system")
    .map((message) => [message.role, message.content]);
  assert.deepEqual(exchange, [
    ["user", "My name is Ada."],
    ["assistant", "Nice to meet you, Ada."],
    ["user", "What is my name?"],
  ]);
});

Deno.test("previous_response_id continues that response's session; an unknown one is 404", async () => {
  await using rig = await startApiServer([
    { text: "Noted: 7." },
    { text: "It was 7." },
  ]);
  const first = await rig.client.responses.create({ model: "herald-api", input: "Remember 7." });
  const stream = rig.client.responses.stream({
    model: "herald-api",
    input: "Which number?",
    previous_response_id: first.id,
  });
  const second = await stream.finalResponse();
  assert.equal(second.output_text, "It was 7.");
  assert.equal(second.previous_response_id, first.id);
  const exchange = modelMessages(rig.model, 1).filter((message) => message.role !== "system")
    .map((message) => message.content);
  assert.deepEqual(exchange, ["Remember 7.", "Noted: 7.", "Which number?"]);

  const error = await rig.client.responses.create({
    model: "herald-api",
    input: "Hello?",
    previous_response_id: "resp_00000000000000000000000000000000",
  }).then(() => undefined, (error) => error);
  assert.ok(error instanceof OpenAI.NotFoundError, String(error));
  assert.equal(error.code, "response_not_found");
  assert.equal(error.param, "previous_response_id");
  assert.equal(rig.model.requests.length, 2, "the unknown id reached no model");
});

Deno.test("the channel probes as listening, and stop closes the port", async () => {
  await using rig = await startApiServer([]);
  const port = rig.channel.port!;
  assert.ok(port > 0);
  assert.deepEqual(await rig.channel.probe!(), {
    ok: true,
    identity: `listening on 127.0.0.1:${port}`,
  });
  await rig.channel.stop!();
  assert.equal(rig.channel.port, undefined);
  await assert.rejects(fetch(`${rig.url}/health`), TypeError);
  const probe = await rig.channel.probe!();
  assert.equal(probe.ok, false);
});
