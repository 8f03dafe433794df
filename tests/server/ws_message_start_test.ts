/**
 * `/api/ws`: every turn opens with `message.start` before its first
 * `message.delta`; slash commands that run no turn send none.
 */

import assert from "node:assert/strict";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { tempDir } from "../_helpers.ts";
import { RpcClient, startLiveServer } from "./_live.ts";

Deno.test("message.start comes before the first delta of each turn, naming the session", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [{ text: "first answer", chunkSize: 3 }, { text: "second answer", chunkSize: 3 }],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"));
  const { session_key } = await client.call<{ session_key: string }>("session.start", {});

  const first = await client.call<{ session_id: string }>("session.send", {
    session_key,
    text: "hello",
  });
  await client.call("session.send", { session_key, text: "/title Greetings" });
  await client.call("session.send", { session_key, text: "again" });
  await client.waitFor("message.complete", () => client.named("message.complete").length === 2);

  const order = client.events
    .filter((event) => event.params.session_key === session_key)
    .map((event) => event.method)
    .filter((method) => method.startsWith("message."))
    .filter((method, i, all) => method !== all[i - 1]);
  assert.deepEqual(order, [
    "message.start",
    "message.delta",
    "message.complete",
    "message.start",
    "message.delta",
    "message.complete",
  ]);
  const starts = client.named("message.start");
  assert.deepEqual(starts.map((event) => event.params), [
    { session_key, session_id: first.session_id },
    { session_key, session_id: first.session_id },
  ]);
});
