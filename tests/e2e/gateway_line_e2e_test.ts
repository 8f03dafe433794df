/**
 * LINE through the real gateway: `herald gateway run` as a subprocess with
 * LINE enabled, the fake LINE platform signing and POSTing webhooks to the
 * gateway's webhook server and taking its API calls, the scripted model
 * server answering. A message is answered with its reply token; a
 * redelivered event is answered once; a forged one is refused; an answer
 * slower than the threshold waits behind the "Get answer" button and goes
 * out with the tap's fresh token.
 */

import { RECOVERED_NOTICE } from "../../core/channels/reply.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startModelServer } from "../fakes/model_server.ts";
import { FAKE_LINE_SECRET, FAKE_LINE_TOKEN, startFakeLine } from "../fakes/line_api.ts";
import { tempDir } from "../_helpers.ts";
import { configureModel } from "./_herald.ts";
import { runGateway, until, WAIT_MS } from "./_gateway.ts";

const ALICE = "U4af4980629" + "a".repeat(22);

/** A port nothing listens on right now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A profile home with the model server and LINE (Alice allowed) configured; its webhook port. */
async function lineHome(root: string, modelBaseUrl: string, extra = ""): Promise<number> {
  await configureModel(root, modelBaseUrl, "platforms:\n  line:\n    enabled: true\n");
  const port = freePort();
  await Deno.writeTextFile(
    join(root, ".env"),
    `LINE_CHANNEL_ACCESS_TOKEN=${FAKE_LINE_TOKEN}\nLINE_CHANNEL_SECRET=${FAKE_LINE_SECRET}\n` +
      `LINE_ALLOWED_USERS=${ALICE}\nLINE_PORT=${port}\n${extra}`,
  );
  return port;
}

Deno.test("a LINE message is answered through the gateway with its reply token; a redelivery once; a forgery refused", async () => {
  await using home = await tempDir();
  await using line = await startFakeLine();
  await using model = await startModelServer({ replies: [{ text: "Hello from Herald" }] });
  const port = await lineHome(home.path, model.openaiBaseUrl);
  await using _gateway = await runGateway({
    root: home.path,
    profileHome: home.path,
    env: { LINE_API_BASE: line.apiBase, LINE_DATA_API_BASE: line.dataBase },
  });
  line.webhookUrl = `http://127.0.0.1:${port}/line/webhook`;

  const delivery = await line.userSays({ user: ALICE }, "hello");
  assert.equal(delivery.status, 200);
  const [batch] = await line.waitForSent(1, WAIT_MS);
  assert.equal(batch.via, "reply");
  assert.equal(batch.replyToken, (delivery.events[0] as { replyToken: string }).replyToken);
  assert.deepEqual(batch.messages.map((m) => m.text), ["Hello from Herald"]);

  // LINE delivers the same event again: it is not answered twice (no second model call).
  assert.equal((await line.redeliver(delivery.events[0])).status, 200);
  const forged = await line.deliver([
    line.messageEvent({ user: ALICE }, { type: "text", text: "x" }),
  ], {
    secret: "not-the-channel-secret",
  });
  assert.equal(forged.status, 400);
  // A later message shows the queue has moved past both.
  model.enqueue({ text: "Second answer" });
  await line.userSays({ user: ALICE }, "again");
  const batches = await line.waitForSent(2, WAIT_MS);
  assert.deepEqual(batches[1].messages.map((m) => m.text), ["Second answer"]);
  assert.equal(line.sent.length, 2);
  assert.equal(model.requests.length, 2);
});

Deno.test("a LINE answer slower than the threshold waits behind the button and goes out with the tap's token", async () => {
  await using home = await tempDir();
  await using line = await startFakeLine();
  await using model = await startModelServer({
    replies: [{ text: "The slow answer", delayMs: 2500 }],
  });
  const port = await lineHome(
    home.path,
    model.openaiBaseUrl,
    "LINE_SLOW_RESPONSE_THRESHOLD=1\nLINE_PENDING_TEXT=Still thinking. Tap for the answer.\n",
  );
  await using _gateway = await runGateway({
    root: home.path,
    profileHome: home.path,
    env: { LINE_API_BASE: line.apiBase, LINE_DATA_API_BASE: line.dataBase },
  });
  line.webhookUrl = `http://127.0.0.1:${port}/line/webhook`;

  const asked = await line.userSays({ user: ALICE }, "a hard question");
  const [button] = await line.waitForSent(1, WAIT_MS);
  assert.equal(button.via, "reply");
  assert.equal(button.replyToken, (asked.events[0] as { replyToken: string }).replyToken);
  const template = button.messages[0] as {
    template: { text: string; actions: { data: string }[] };
  };
  assert.equal(template.template.text, "Still thinking. Tap for the answer.");
  const data = template.template.actions[0].data;

  // The answer arrives and is held: nothing is pushed.
  await until(
    "the model's answer to be held",
    () => Promise.resolve(model.requests.length === 1 ? true : undefined),
  );
  const held = join(home.path, "gateway", "line", "held_answers.json");
  await until("the held answer on disk", async () => {
    const text = await Deno.readTextFile(held).catch(() => "");
    return text.includes("The slow answer") ? true : undefined;
  });
  assert.equal(line.requestsTo("/v2/bot/message/push").length, 0);

  const tapped = await line.tap({ user: ALICE }, data);
  const [, answer] = await line.waitForSent(2, WAIT_MS);
  assert.equal(answer.via, "reply");
  assert.equal(answer.replyToken, (tapped.events[0] as { replyToken: string }).replyToken);
  assert.deepEqual(answer.messages.map((m) => m.text), ["The slow answer"]);
  await until("the delivered answer to leave the file", async () => {
    const text = await Deno.readTextFile(held).catch(() => "");
    return text.includes("The slow answer") ? undefined : true;
  });
});

Deno.test("kill -9 while a LINE answer waits behind its button: the next start pushes it", async () => {
  await using home = await tempDir();
  await using line = await startFakeLine();
  await using model = await startModelServer({
    replies: [{ text: "Owed across the crash", delayMs: 2500 }],
  });
  const port = await lineHome(home.path, model.openaiBaseUrl, "LINE_SLOW_RESPONSE_THRESHOLD=1\n");
  const env = { LINE_API_BASE: line.apiBase, LINE_DATA_API_BASE: line.dataBase };
  const first = await runGateway({ root: home.path, profileHome: home.path, env });
  line.webhookUrl = `http://127.0.0.1:${port}/line/webhook`;
  await line.userSays({ user: ALICE }, "a hard question");
  await line.waitForSent(1, WAIT_MS);
  const held = join(home.path, "gateway", "line", "held_answers.json");
  await until("the held answer on disk", async () => {
    const text = await Deno.readTextFile(held).catch(() => "");
    return text.includes("Owed across the crash") ? true : undefined;
  });
  await first.kill();

  await using _second = await runGateway({ root: home.path, profileHome: home.path, env });
  const [, pushed] = await line.waitForSent(2, WAIT_MS);
  assert.equal(pushed.via, "push");
  assert.equal(pushed.to, ALICE);
  assert.deepEqual(pushed.messages.map((m) => m.text), [
    `${RECOVERED_NOTICE}\n\nOwed across the crash`,
  ]);
  assert.equal(model.requests.length, 1, "the turn did not run again");
});
