/**
 * The slow-response postback machine through the real channel, over real
 * HTTP against the fake LINE platform, on fake time: the button spends the
 * reply token at the threshold (PENDING), the answer is held (READY), a tap
 * delivers it with the tap's fresh token (DELIVERED), later taps say it was
 * answered, a tap while PENDING says it is still working, and a stopped
 * turn's button resolves to the interruption text (ERROR, the orphan).
 */

import assert from "node:assert/strict";
import type { InboundMessage, OutboundReply } from "../../../core/channels/contract.ts";
import { DEFAULT_SLOW_RESPONSE_TEXTS } from "../../../core/channels/line/postback.ts";
import { RECOVERED_NOTICE } from "../../../core/channels/reply.ts";
import type { FakeSource } from "../../fakes/line_api.ts";
import { type LineRig, runTurn, startLineRig } from "./_line_rig.ts";
import { join } from "node:path";
import { HELD_FILE } from "../../../adapters/channels/line/held.ts";
import { plugin } from "../../../adapters/channels/line/mod.ts";
import type { LineChannel } from "../../../adapters/channels/line/channel.ts";

const ALICE = "U4af4980629" + "a".repeat(22);
const GROUP = "C" + "1".repeat(32);

const SETTINGS = {
  LINE_PENDING_TEXT: "Thinking hard. Tap below for the answer.",
  LINE_BUTTON_LABEL: "Fetch it",
  LINE_DELIVERED_TEXT: "Sent already.",
  LINE_INTERRUPTED_TEXT: "That run was stopped.",
};

function answer(text: string): OutboundReply {
  return { parts: [{ kind: "text", text }] };
}

async function said(rig: LineRig, text: string, group = false): Promise<InboundMessage> {
  const before = rig.host.messages.length;
  await rig.fake.userSays(group ? { group: GROUP, user: ALICE } : { user: ALICE }, text);
  return (await rig.host.messageCount(before + 1))[before];
}

/** Runs the message's turn to the threshold and returns the button's postback data. */
async function pendingButton(rig: LineRig, message: InboundMessage): Promise<string> {
  const before = rig.fake.sent.length;
  await runTurn(rig, message, 45);
  const [button] = (await rig.fake.waitForSent(before + 1)).slice(before);
  assert.equal(button.via, "reply");
  assert.equal(button.replyToken, (message.replyContext as { replyToken: string }).replyToken);
  const [template] = button.messages as {
    type: string;
    altText: string;
    template: {
      type: string;
      text: string;
      actions: { type: string; label: string; data: string }[];
    };
  }[];
  assert.equal(template.type, "template");
  assert.equal(template.template.type, "buttons");
  assert.equal(template.template.text, SETTINGS.LINE_PENDING_TEXT);
  assert.equal(template.altText, SETTINGS.LINE_PENDING_TEXT);
  const [action] = template.template.actions;
  assert.equal(action.type, "postback");
  assert.equal(action.label, SETTINGS.LINE_BUTTON_LABEL);
  return action.data;
}

/** Taps the button and returns the texts of the batch that answered the tap. */
async function tap(
  rig: LineRig,
  data: string,
  source: FakeSource = { user: ALICE },
): Promise<string[]> {
  const before = rig.fake.sent.length;
  const delivery = await rig.fake.tap(source, data);
  assert.equal(delivery.status, 200);
  const batch = (await rig.fake.waitForSent(before + 1))[before];
  assert.equal(batch.via, "reply");
  assert.equal(batch.replyToken, (delivery.events[0] as { replyToken: string }).replyToken);
  return batch.messages.map((message) => String(message.text));
}

Deno.test("PENDING → READY → DELIVERED: the held answer goes out with the tap's fresh token", async () => {
  await using rig = await startLineRig(SETTINGS);
  const message = await said(rig, "a hard question");
  await runTurn(rig, message, 44);
  assert.equal(rig.fake.sent.length, 0);
  const data = await pendingButton(rig, message);

  // A tap while PENDING: still working.
  assert.deepEqual(await tap(rig, data), [DEFAULT_SLOW_RESPONSE_TEXTS.stillWorking]);

  await runTurn(rig, message, 30);
  const sentBefore = rig.fake.sent.length;
  const receipt = await rig.channel.outbound.send(
    message.chat,
    answer("the answer, at last"),
    message.replyContext,
  );
  assert.deepEqual(receipt, { messageIds: [], held: true });
  assert.equal(rig.fake.sent.length, sentBefore);
  assert.equal(rig.fake.requestsTo("/v2/bot/message/push").length, 0);

  rig.clock.tick(10 * 60_000);
  assert.deepEqual(await tap(rig, data), ["the answer, at last"]);
  // A tap right after can meet the answer still on its way (the fake records the reply before
  // the channel hears it went out); once it is out, a tap says it was answered.
  let again = await tap(rig, data);
  while (again[0] === DEFAULT_SLOW_RESPONSE_TEXTS.sending) again = await tap(rig, data);
  assert.deepEqual(again, [SETTINGS.LINE_DELIVERED_TEXT]);
  assert.equal(rig.fake.requestsTo("/v2/bot/message/push").length, 0);
});

Deno.test("a held answer longer than five messages goes five with the tap's token, the rest by push", async () => {
  await using rig = await startLineRig(SETTINGS);
  const message = await said(rig, "a long one");
  const data = await pendingButton(rig, message);
  const long: OutboundReply = {
    parts: Array.from({ length: 7 }, (_, i) => ({ kind: "text" as const, text: `part ${i}` })),
  };
  assert.equal(
    (await rig.channel.outbound.send(message.chat, long, message.replyContext)).held,
    true,
  );
  const before = rig.fake.sent.length;
  await rig.fake.tap({ user: ALICE }, data);
  const [viaTap, viaPush] = (await rig.fake.waitForSent(before + 2)).slice(before);
  assert.deepEqual([viaTap.via, viaTap.messages.length], ["reply", 5]);
  assert.deepEqual([viaPush.via, viaPush.messages.length], ["push", 2]);
});

Deno.test("/stop while PENDING: the orphaned button resolves to the interruption text", async () => {
  await using rig = await startLineRig(SETTINGS);
  const message = await said(rig, "start something long");
  const data = await pendingButton(rig, message);
  await runTurn(rig, message, 8);
  // The runner stops the turn (/stop) and tells the channel.
  rig.channel.outbound.cancelled(message.chat, message.replyContext);
  rig.clock.tick(60_000);
  assert.deepEqual(await tap(rig, data), [SETTINGS.LINE_INTERRUPTED_TEXT]);
  assert.deepEqual(await tap(rig, data), [SETTINGS.LINE_INTERRUPTED_TEXT]);
});

Deno.test("the button works in groups, and a tap from another chat learns nothing", async () => {
  await using rig = await startLineRig(SETTINGS);
  const message = await said(rig, "group question", true);
  const data = await pendingButton(rig, message);
  await rig.channel.outbound.send(message.chat, answer("group answer"), message.replyContext);
  const [stranger] = await tap(rig, data, { user: "U" + "e".repeat(32) });
  assert.equal(stranger, DEFAULT_SLOW_RESPONSE_TEXTS.unknown);
  assert.deepEqual(await tap(rig, data, { group: GROUP, user: ALICE }), ["group answer"]);
});

Deno.test("an answer before the threshold goes by reply and no button is sent", async () => {
  await using rig = await startLineRig(SETTINGS);
  const message = await said(rig, "quick one");
  await runTurn(rig, message, 20);
  await rig.channel.outbound.send(message.chat, answer("quick"), message.replyContext);
  await runTurn(rig, message, 60);
  assert.deepEqual(rig.fake.sent.map((b) => [b.via, b.messages[0].type]), [["reply", "text"]]);
});

Deno.test("threshold 0 disables the button: a late answer is pushed", async () => {
  await using rig = await startLineRig({ ...SETTINGS, LINE_SLOW_RESPONSE_THRESHOLD: "0" });
  const message = await said(rig, "slow one");
  await runTurn(rig, message, 120);
  assert.equal(rig.fake.sent.length, 0);
  const receipt = await rig.channel.outbound.send(
    message.chat,
    answer("late"),
    message.replyContext,
  );
  assert.deepEqual(rig.fake.sent.map((b) => b.via), ["push"]);
  assert.deepEqual(receipt.messageIds, rig.fake.sent[0].ids);
});

Deno.test("a button LINE refuses means the answer is pushed", async () => {
  await using rig = await startLineRig(SETTINGS);
  const message = await said(rig, "question");
  rig.fake.failNext("reply", { status: 400, message: "Invalid reply token" });
  await runTurn(rig, message, 45);
  await rig.fake.waitForRequests("/v2/bot/message/reply");
  const receipt = await rig.channel.outbound.send(
    message.chat,
    answer("late"),
    message.replyContext,
  );
  assert.equal(receipt.held, undefined);
  assert.deepEqual(rig.fake.sent.map((b) => b.via), ["push"]);
  assert.ok(rig.host.logs.some((line) => line.includes("will be pushed")));
});

Deno.test("a held answer is kept on disk until tapped, and a restart before the tap pushes it", async () => {
  await using rig = await startLineRig(SETTINGS);
  const file = join(rig.context.dataDir, HELD_FILE);
  const tapped = await said(rig, "tapped later");
  await runTurn(rig, tapped, 45);
  const data = await pendingButton(rig, tapped);
  await rig.channel.outbound.send(tapped.chat, answer("fetched by tap"), tapped.replyContext);
  assert.deepEqual(heldTexts(await Deno.readTextFile(file)), ["fetched by tap"]);
  assert.deepEqual(await tap(rig, data), ["fetched by tap"]);
  await rig.channel.outbound.idle();
  assert.deepEqual(heldTexts(await Deno.readTextFile(file)), [], "delivered: gone from the file");

  const waiting = await said(rig, "never tapped");
  await runTurn(rig, waiting, 45);
  await pendingButton(rig, waiting);
  await rig.channel.outbound.send(
    waiting.chat,
    answer("owed across a restart"),
    waiting.replyContext,
  );
  assert.deepEqual(heldTexts(await Deno.readTextFile(file)), ["owed across a restart"]);
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);

  // The gateway stops before the tap; the next run's channel pushes what was held.
  await rig.channel.stop();
  const pushesBefore = rig.fake.requestsTo("/v2/bot/message/push").length;
  const next = await plugin.create(rig.context) as LineChannel;
  try {
    await next.start(rig.host);
    const sentBefore = rig.fake.sent.length;
    const [pushed] = (await rig.fake.waitForSent(sentBefore + 1)).slice(sentBefore);
    assert.equal(pushed.via, "push");
    assert.deepEqual(pushed.messages.map((message) => message.text), [
      `${RECOVERED_NOTICE}\n\nowed across a restart`,
    ]);
    await next.outbound.idle();
    assert.equal(rig.fake.requestsTo("/v2/bot/message/push").length, pushesBefore + 1);
    assert.deepEqual(heldTexts(await Deno.readTextFile(file)), []);
  } finally {
    await next.stop();
  }
});

/** The texts of the answers a held-answers file holds. */
function heldTexts(text: string): string[] {
  const { answers } = JSON.parse(text) as { answers: { reply: OutboundReply }[] };
  return answers.flatMap((held) =>
    held.reply.parts.flatMap((part) => part.kind === "text" ? [part.text] : [])
  );
}
