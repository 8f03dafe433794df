/**
 * Outbound LINE against the fake platform over real HTTP: the reply token
 * first and push after, five messages per call, a stale or refused token,
 * files refused without LINE_PUBLIC_URL and served with it, refusals sorted
 * into permanent and retried, the push retry key kept across a retry, the
 * loading animation in direct chats only, and Markdown as plain text.
 */

import assert from "node:assert/strict";
import {
  type InboundMessage,
  type OutboundReply,
  PermanentSendError,
} from "../../../core/channels/contract.ts";
import { tempDir } from "../../_helpers.ts";
import { startLineRig, userChat } from "./_line_rig.ts";

const ALICE = "U4af4980629" + "a".repeat(22);
const GROUP = "C" + "1".repeat(32);

function texts(...items: string[]): OutboundReply {
  return { parts: items.map((text) => ({ kind: "text" as const, text })) };
}

function textsOf(messages: Record<string, unknown>[]): unknown[] {
  return messages.map((message) => message.text);
}

async function said(rig: Awaited<ReturnType<typeof startLineRig>>, text: string) {
  const before = rig.host.messages.length;
  await rig.fake.userSays({ user: ALICE }, text);
  const messages = await rig.host.messageCount(before + 1);
  return messages[before] as InboundMessage;
}

Deno.test("an answer goes by reply while the token is fresh, the next one for the message by push", async () => {
  await using rig = await startLineRig();
  const message = await said(rig, "hi");
  const outbound = rig.channel.outbound;
  const first = await outbound.send(message.chat, texts("hello"), message.replyContext);
  const second = await outbound.send(message.chat, texts("and more"), message.replyContext);
  const [reply, push] = rig.fake.sent;
  assert.equal(reply.via, "reply");
  assert.equal(reply.replyToken, (message.replyContext as { replyToken: string }).replyToken);
  assert.deepEqual(textsOf(reply.messages), ["hello"]);
  assert.deepEqual(first, { messageIds: reply.ids });
  assert.equal(push.via, "push");
  assert.equal(push.to, ALICE);
  assert.match(push.retryKey!, /^[0-9a-f-]{36}$/);
  assert.deepEqual(second, { messageIds: push.ids });
  const [request] = rig.fake.requestsTo("/v2/bot/message/reply");
  assert.equal(request.headers.authorization, `Bearer ${rig.fake.token}`);
  assert.equal(request.headers["content-type"], "application/json");
});

Deno.test("a token past its life is not tried: the answer is pushed", async () => {
  await using rig = await startLineRig({ LINE_SLOW_RESPONSE_THRESHOLD: "0" });
  const message = await said(rig, "hi");
  rig.clock.tick(60_000);
  await rig.channel.outbound.send(message.chat, texts("late"), message.replyContext);
  assert.deepEqual(rig.fake.sent.map((batch) => batch.via), ["push"]);
  assert.equal(rig.fake.requestsTo("/v2/bot/message/reply").length, 0);
});

Deno.test("a reply token LINE no longer takes falls back to push", async () => {
  await using rig = await startLineRig();
  const message = await said(rig, "hi");
  rig.fake.expireReplyToken((message.replyContext as { replyToken: string }).replyToken);
  const receipt = await rig.channel.outbound.send(message.chat, texts("x"), message.replyContext);
  assert.equal(rig.fake.requestsTo("/v2/bot/message/reply")[0].status, 400);
  assert.deepEqual(rig.fake.sent.map((batch) => batch.via), ["push"]);
  assert.deepEqual(receipt.messageIds, rig.fake.sent[0].ids);
  assert.ok(rig.host.logs.some((line) => line.includes("pushing")));
});

Deno.test("seven parts go as five by reply and two by push; twelve without a token as 5, 5, 2", async () => {
  await using rig = await startLineRig();
  const message = await said(rig, "long one");
  const seven = texts(...Array.from({ length: 7 }, (_, i) => `part ${i + 1}`));
  const receipt = await rig.channel.outbound.send(message.chat, seven, message.replyContext);
  assert.deepEqual(rig.fake.sent.map((b) => [b.via, b.messages.length]), [["reply", 5], [
    "push",
    2,
  ]]);
  assert.deepEqual(
    rig.fake.sent.flatMap((b) => textsOf(b.messages)),
    seven.parts.map((p) => p.kind === "text" ? p.text : ""),
  );
  assert.deepEqual(receipt.messageIds, rig.fake.sent.flatMap((b) => b.ids));

  const twelve = texts(...Array.from({ length: 12 }, (_, i) => `n${i}`));
  await rig.channel.outbound.send(userChat(ALICE), twelve);
  assert.deepEqual(rig.fake.sent.slice(2).map((b) => [b.via, b.messages.length]), [
    ["push", 5],
    ["push", 5],
    ["push", 2],
  ]);
});

Deno.test("a text over LINE's 5000-character limit is split, never refused", async () => {
  await using rig = await startLineRig();
  const long = "word ".repeat(1500).trim();
  await rig.channel.outbound.send(userChat(ALICE), texts(long));
  const [batch] = rig.fake.sent;
  assert.equal(batch.messages.length, 2);
  for (const message of batch.messages) assert.ok(String(message.text).length <= 5000);
});

Deno.test("files without LINE_PUBLIC_URL are refused before anything is sent", async () => {
  await using rig = await startLineRig();
  await using dir = await tempDir();
  const path = `${dir.path}/chart.png`;
  await Deno.writeFile(path, new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  const message = await said(rig, "send the chart");
  const reply: OutboundReply = {
    parts: [{ kind: "text", text: "Here:" }, { kind: "media", media: { path, asDocument: false } }],
  };
  await assert.rejects(
    () => rig.channel.outbound.send(message.chat, reply, message.replyContext),
    (error: unknown) => {
      assert.ok(error instanceof PermanentSendError);
      assert.match(error.message, /LINE_PUBLIC_URL must be set/);
      return true;
    },
  );
  assert.equal(rig.fake.sent.length, 0);
  assert.equal(rig.fake.requests.length, 0);
});

Deno.test("with LINE_PUBLIC_URL an image goes as an image the webhook server serves, a document as a link", async () => {
  await using rig = await startLineRig({ LINE_PUBLIC_URL: "https://bot.example.test/" });
  await using dir = await tempDir();
  const png = `${dir.path}/chart.png`;
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  await Deno.writeFile(png, bytes);
  const pdf = `${dir.path}/report final.pdf`;
  await Deno.writeTextFile(pdf, "%PDF-1.4");
  const reply: OutboundReply = {
    parts: [
      { kind: "media", media: { path: png, asDocument: false } },
      { kind: "media", media: { path: pdf, asDocument: true } },
    ],
  };
  await rig.channel.outbound.send(userChat(ALICE), reply);
  const [image, link] = rig.fake.sent[0].messages;
  assert.equal(image.type, "image");
  const url = String(image.originalContentUrl);
  assert.equal(image.previewImageUrl, url);
  assert.match(url, /^https:\/\/bot\.example\.test\/line\/media\/[0-9a-f]{36}\/chart\.png$/);
  const served = await fetch(`${rig.base}${new URL(url).pathname}`);
  assert.equal(served.status, 200);
  assert.equal(served.headers.get("content-type"), "image/png");
  assert.deepEqual(new Uint8Array(await served.arrayBuffer()), bytes);
  assert.equal(link.type, "text");
  const linkUrl = /https:\S+/.exec(String(link.text))![0];
  assert.match(String(link.text), /report final\.pdf/);
  const document = await fetch(`${rig.base}${new URL(linkUrl).pathname}`);
  assert.equal(await document.text(), "%PDF-1.4");
  // An unknown token, or the right token with another name, is not served.
  const unknown = await fetch(`${rig.base}/line/media/${"0".repeat(36)}/chart.png`);
  assert.equal(unknown.status, 404);
  await unknown.body?.cancel();
  const renamed = await fetch(`${rig.base}${new URL(url).pathname.replace("chart", "other")}`);
  assert.equal(renamed.status, 404);
  await renamed.body?.cancel();
  // A file that is gone is a permanent refusal.
  await assert.rejects(
    () =>
      rig.channel.outbound.send(userChat(ALICE), {
        parts: [{ kind: "media", media: { path: `${dir.path}/gone.png`, asDocument: false } }],
      }),
    PermanentSendError,
  );
});

Deno.test("a 4xx is permanent; 429, 5xx and a dropped connection are retried", async () => {
  await using rig = await startLineRig();
  const chat = userChat(ALICE);
  rig.fake.failNext("push", { status: 400, message: "The property, 'to', is invalid" });
  await assert.rejects(
    () => rig.channel.outbound.send(chat, texts("a")),
    (error: unknown) => {
      assert.ok(error instanceof PermanentSendError);
      assert.equal(error.status, 400);
      assert.match(error.message, /'to', is invalid/);
      return true;
    },
  );
  rig.fake.failNext("push", { status: 403 });
  await assert.rejects(() => rig.channel.outbound.send(chat, texts("b")), PermanentSendError);
  for (const failure of [{ status: 429 }, { status: 500 }, "drop" as const]) {
    rig.fake.failNext("push", failure);
    await assert.rejects(
      () => rig.channel.outbound.send(chat, texts("c")),
      (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.ok(!(error instanceof PermanentSendError), `${JSON.stringify(failure)}: ${error}`);
        return true;
      },
    );
  }
  assert.equal(rig.fake.sent.length, 0);
});

Deno.test("a retried reply goes on where it stopped, with the same retry key, and a 409 counts as sent", async () => {
  await using rig = await startLineRig();
  const chat = userChat(ALICE);
  const outbound = rig.channel.outbound;
  const reply = texts(...Array.from({ length: 7 }, (_, i) => `q${i}`));
  // LINE takes the first push but its answer is lost (500).
  rig.fake.failNext("push", { status: 500, accept: true });
  await assert.rejects(() => outbound.send(chat, reply));
  assert.equal(rig.fake.sent.length, 1);
  const receipt = await outbound.send(chat, reply); // the runner retries the same reply
  const pushes = rig.fake.requestsTo("/v2/bot/message/push");
  assert.deepEqual(pushes.map((p) => p.status), [500, 409, 200]);
  assert.equal(pushes[0].headers["x-line-retry-key"], pushes[1].headers["x-line-retry-key"]);
  assert.notEqual(pushes[1].headers["x-line-retry-key"], pushes[2].headers["x-line-retry-key"]);
  assert.equal(rig.fake.sent.length, 2);
  assert.deepEqual(textsOf(rig.fake.sent[0].messages), ["q0", "q1", "q2", "q3", "q4"]);
  assert.deepEqual(textsOf(rig.fake.sent[1].messages), ["q5", "q6"]);
  assert.deepEqual(receipt.messageIds, [...rig.fake.sent[0].ids, ...rig.fake.sent[1].ids]);
});

Deno.test("the loading animation is shown in direct chats only, renewed at most every 15 s", async () => {
  await using rig = await startLineRig();
  const outbound = rig.channel.outbound;
  await outbound.typing(userChat(ALICE));
  await outbound.typing({ platform: "line", chatId: GROUP });
  rig.clock.tick(4_000);
  await outbound.typing(userChat(ALICE));
  rig.clock.tick(12_000);
  await outbound.typing(userChat(ALICE));
  const calls = rig.fake.requestsTo("/v2/bot/chat/loading/start");
  assert.deepEqual(calls.map((call) => [call.body, call.status]), [
    [{ chatId: ALICE, loadingSeconds: 20 }, 202],
    [{ chatId: ALICE, loadingSeconds: 20 }, 202],
  ]);
  // A failing animation is logged, never thrown.
  rig.fake.failNext("loading", { status: 500 });
  rig.clock.tick(20_000);
  await outbound.typing(userChat(ALICE));
  assert.ok(rig.host.logs.some((line) => line.includes("loading animation")));
});

Deno.test("answers are formatted as plain text with a chunk limit of 4500", async () => {
  await using rig = await startLineRig();
  const outbound = rig.channel.outbound;
  assert.equal(outbound.chunkLimit, 4500);
  assert.equal(
    outbound.format("**Done**: see [docs](https://x.y)"),
    "Done: see docs (https://x.y)",
  );
});
