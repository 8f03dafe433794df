/**
 * The API server platform of a real `herald gateway run` subprocess, driven
 * by the official `openai` SDK: the key is required, `/v1/models` names the
 * profile's model, chat completions answer streaming and not, and a named
 * `conversation` continues across two `/v1/responses` calls.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import OpenAI from "openai";
import { startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";
import { configureModel } from "./_herald.ts";
import { runGateway } from "./_gateway.ts";

const KEY = "e2e-api-server-key-0123456789abcdef";

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("the gateway's API server answers the openai SDK: models, completions (streamed and not), a continued conversation", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [
      { text: "Plain answer." },
      { text: "Streamed answer." },
      { text: "My name is noted." },
      { text: "You are Ann." },
    ],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  const port = freePort();
  await Deno.writeTextFile(
    join(home.path, ".env"),
    `API_SERVER_ENABLED=true\nAPI_SERVER_KEY=${KEY}\nAPI_SERVER_PORT=${port}\n`,
  );
  await using _gateway = await runGateway({ root: home.path, profileHome: home.path });
  const baseURL = `http://127.0.0.1:${port}/v1`;
  const client = new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });

  const wrong = new OpenAI({ apiKey: "not-the-key", baseURL, maxRetries: 0 });
  await assert.rejects(wrong.models.list(), (error: unknown) => {
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 401);
    return true;
  });

  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), ["herald"]);

  const plain = await client.chat.completions.create({
    model: "herald",
    messages: [{ role: "user", content: "hello" }],
  });
  assert.equal(plain.choices[0].message.content, "Plain answer.");

  const stream = await client.chat.completions.create({
    model: "herald",
    messages: [{ role: "user", content: "stream it" }],
    stream: true,
  });
  let streamed = "";
  for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? "";
  assert.equal(streamed, "Streamed answer.");

  const first = await client.responses.create({
    model: "herald",
    input: "My name is Ann.",
    conversation: "e2e",
  });
  assert.equal(first.output_text, "My name is noted.");
  const second = await client.responses.create({
    model: "herald",
    input: "What is my name?",
    conversation: "e2e",
  });
  assert.equal(second.output_text, "You are Ann.");
  // The second call's model request carried the first exchange: the conversation continued.
  const last = model.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
  const said = JSON.stringify(last.messages);
  assert.ok(said.includes("My name is Ann.") && said.includes("My name is noted."), said);
});
