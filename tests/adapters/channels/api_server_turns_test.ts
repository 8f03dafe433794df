/**
 * The API server's turns when things go wrong or overlap: a model failure
 * in both endpoints, a client that closes its stream, two requests on one
 * named conversation at once, slash commands, oversized and malformed
 * requests. The official `openai` SDK is the client.
 */

import assert from "node:assert/strict";
import OpenAI from "openai";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { MAX_API_BODY_BYTES } from "../../../adapters/channels/api_server/mod.ts";
import { eventually, modelMessages, startApiServer, TEST_KEY } from "./_api_server.ts";

Deno.test("a model failure is a 502 in OpenAI's shape, and response.failed when streaming", async () => {
  await using rig = await startApiServer([
    { status: 401, message: "bad upstream key" },
    { status: 401, message: "bad upstream key" },
  ]);
  const error = await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [{ role: "user", content: "hello" }],
  }).then(() => undefined, (error) => error);
  assert.ok(error instanceof OpenAI.InternalServerError, String(error));
  assert.equal(error.status, 502);
  assert.equal(error.code, "model_auth");

  const stream = rig.client.responses.stream({ model: "herald-api", input: "hello" });
  const types: string[] = [];
  const failure = await (async () => {
    for await (const event of stream) types.push(event.type);
  })().then(() => undefined, (error) => error);
  assert.ok(failure instanceof OpenAI.APIError, String(failure));
  assert.match(failure.message, /model/i);
  assert.deepEqual(types.slice(0, 2), ["response.created", "response.in_progress"]);
  assert.ok(types.includes("response.failed"), types.join(", "));
  assert.ok(rig.logs.some((line) => line.includes("failed")), rig.logs.join("\n"));
});

Deno.test("a client that closes its stream stops the turn and the conversation closes", async () => {
  await using rig = await startApiServer([
    { text: "A long answer that never ends", hang: "mid-stream" },
    { text: "Still serving." },
  ]);
  const stream = await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [{ role: "user", content: "Talk forever" }],
    stream: true,
  });
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta.content) break; // leaving the loop closes the stream
  }
  await eventually("the conversation to close", () => rig.opened[0]?.closed === true);
  const sessionId = rig.opened[0].sessionId!;
  const store = openStateStore(rig.paths.stateDb);
  try {
    assert.ok(store.getSession(sessionId), "the interrupted turn's session stays stored");
  } finally {
    store.close();
  }
  const next = await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [{ role: "user", content: "Are you there?" }],
  });
  assert.equal(next.choices[0].message.content, "Still serving.");
});

Deno.test("two requests on one named conversation at once take turns", async () => {
  await using rig = await startApiServer([
    { text: "First answer.", delayMs: 200 },
    { text: "Second answer." },
  ]);
  const ask = (input: string) =>
    rig.client.responses.create({ model: "herald-api", input, conversation: "shared" });
  const [first, second] = await Promise.all([ask("first question"), ask("second question")]);
  const answers = new Set([first.output_text, second.output_text]);
  assert.deepEqual(answers, new Set(["First answer.", "Second answer."]));
  const later = modelMessages(rig.model, 1).filter((message) => message.role !== "system");
  assert.equal(later.length, 3, "the second turn saw the whole first exchange");
  assert.equal(later[1].content, "First answer.");
  assert.equal(
    rig.opened[0].sessionId,
    rig.opened[1].sessionId,
    "one session for the conversation",
  );
});

Deno.test("a named conversation and a previous_response_id into its session take turns too", async () => {
  await using rig = await startApiServer([
    { text: "Opening answer." },
    { text: "Slow answer.", delayMs: 200 },
    { text: "Other answer." },
  ]);
  const opening = await rig.client.responses.create({
    model: "herald-api",
    input: "opening question",
    conversation: "shared",
  });
  await Promise.all([
    rig.client.responses.create({ model: "herald-api", input: "by name", conversation: "shared" }),
    rig.client.responses.create({
      model: "herald-api",
      input: "by id",
      previous_response_id: opening.id,
    }),
  ]);
  const seen = [1, 2].map((index) =>
    modelMessages(rig.model, index).filter((message) => message.role !== "system").length
  );
  assert.deepEqual(seen, [3, 5], "the later turn saw the earlier one's exchange");
});

Deno.test("a slash command in a single message is answered like on every surface", async () => {
  await using rig = await startApiServer([]);
  const completion = await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [{ role: "user", content: "/nosuchcommand" }],
  });
  assert.match(completion.choices[0].message.content ?? "", /Unknown command \/nosuchcommand/);
  assert.equal(rig.model.requests.length, 0);
});

Deno.test("requests the server cannot take are refused in OpenAI's shape", async () => {
  await using rig = await startApiServer([]);
  const post = (path: string, body: string) =>
    fetch(`${rig.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json" },
      body,
    });

  const huge = await post(
    "/v1/chat/completions",
    JSON.stringify({ messages: [{ role: "user", content: "x".repeat(MAX_API_BODY_BYTES) }] }),
  );
  assert.equal(huge.status, 413);
  assert.equal((await huge.json()).error.code, "body_too_large");

  const notJson = await post("/v1/chat/completions", "{not json");
  assert.equal(notJson.status, 400);
  assert.equal((await notJson.json()).error.type, "invalid_request_error");

  const badRole = await post("/v1/chat/completions", JSON.stringify({ messages: [{ role: "x" }] }));
  assert.equal(badRole.status, 400);
  assert.equal((await badRole.json()).error.param, "messages[0].role");

  const lastAssistant = await post(
    "/v1/chat/completions",
    JSON.stringify({ messages: [{ role: "assistant", content: "hi" }] }),
  );
  assert.match((await lastAssistant.json()).error.message, /last message must be the user's/);

  const both = await post(
    "/v1/responses",
    JSON.stringify({ input: "hi", conversation: "a", previous_response_id: "resp_x" }),
  );
  assert.equal(both.status, 400);
  assert.match((await both.json()).error.message, /not both/);

  const toolOutput = await post(
    "/v1/responses",
    JSON.stringify({ input: [{ type: "function_call_output", call_id: "c", output: "1" }] }),
  );
  assert.equal(toolOutput.status, 400);
  assert.equal((await toolOutput.json()).error.code, "unsupported_input_item");

  const unknown = await fetch(`${rig.url}/v1/embeddings`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).error.code, "unknown_url");
  assert.equal(rig.model.requests.length, 0);
});

Deno.test("store: false answers but keeps no response to fetch or continue", async () => {
  await using rig = await startApiServer([{ text: "Not kept." }]);
  const response = await rig.client.responses.create({
    model: "herald-api",
    input: "Forget this",
    store: false,
  });
  assert.equal(response.output_text, "Not kept.");
  await assert.rejects(rig.client.responses.retrieve(response.id), OpenAI.NotFoundError);
  await assert.rejects(
    rig.client.responses.create({
      model: "herald-api",
      input: "More",
      previous_response_id: response.id,
    }),
    OpenAI.NotFoundError,
  );
});

Deno.test("the agent's tools run server-side; a stream shows what it said before them", async () => {
  await using rig = await startApiServer([
    { text: "Let me look.", toolCalls: [{ name: "terminal", arguments: { command: "echo hi" } }] },
    { text: "It printed hi." },
    { text: "Checking.", toolCalls: [{ name: "terminal", arguments: { command: "echo hi" } }] },
    { text: "Same again." },
  ]);
  const stream = await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [{ role: "user", content: "Run echo" }],
    stream: true,
  });
  let streamed = "";
  for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
  assert.equal(streamed, "Let me look.\n\nIt printed hi.");
  const toolResult = modelMessages(rig.model, 1).at(-1)!;
  assert.equal(toolResult.role, "tool");
  assert.match(toolResult.content ?? "", /hi/);

  const plain = await rig.client.chat.completions.create({
    model: "herald-api",
    messages: [{ role: "user", content: "Run echo again" }],
  });
  assert.equal(plain.choices[0].message.content, "Same again.", "the answer is the final text");
});
