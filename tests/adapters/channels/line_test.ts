/**
 * The LINE channel against the fake LINE platform over real HTTP: the
 * webhook server (health, signature vectors, forged, missing, truncated and
 * oversized bodies), inbound events (chats, attachments, dedupe, what is
 * dropped), the probe, the credential key and the configuration errors.
 * Outbound sends are in line_outbound_test.ts, the slow-response button in
 * line_slow_response_test.ts.
 */

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { HeraldError } from "../../../core/errors.ts";
import { plugin } from "../../../adapters/channels/line/mod.ts";
import { FAKE_BOT_USER_ID, FAKE_LINE_SECRET, startFakeLine } from "../../fakes/line_api.ts";
import { tempDir } from "../../_helpers.ts";
import { channelContext, RecordingHost } from "./_host.ts";
import { lineEnv, startLineRig } from "./_line_rig.ts";

const ALICE = "U4af4980629" + "a".repeat(22);
/** The user of the reference vectors (33 hex digits: a docs sample, not a real id). */
const VECTOR_USER = "U4af4980629aaaaaaaaaaaaaaaaaaaaaaa";
const BOB = "U" + "b".repeat(32);
const GROUP = "C" + "1".repeat(32);
const ROOM = "R" + "2".repeat(32);

const vectors = JSON.parse(
  await Deno.readTextFile(
    new URL("../../core/channels/line_signature_vectors.json", import.meta.url),
  ),
) as { channelSecret: string; vectors: { name: string; body: string; xLineSignature: string }[] };

function assertNoSecrets(lines: string[], secrets: string[]): void {
  for (const line of lines) {
    for (const secret of secrets) {
      assert.ok(!line.includes(secret), `a log line has a secret: ${line}`);
    }
  }
}

Deno.test("the webhook server reports its port, answers the health check and says when it listens", async () => {
  await using rig = await startLineRig();
  assert.equal(typeof rig.channel.port, "number");
  assert.ok(rig.channel.port! > 0);
  assert.equal(rig.host.states.at(-1)?.state, "connected");
  assert.ok(
    rig.host.logs.some((line) =>
      line.includes(`http://127.0.0.1:${rig.channel.port}/line/webhook`)
    ),
  );
  const response = await fetch(`${rig.base}/line/webhook/health`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: "ok", platform: "line" });
  const wrong = await fetch(`${rig.base}/line/webhook`);
  assert.equal(wrong.status, 405);
  await wrong.body?.cancel();
  const missing = await fetch(`${rig.base}/elsewhere`);
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});

Deno.test("every reference vector's exact body is accepted with its signature", async () => {
  assert.equal(vectors.channelSecret, FAKE_LINE_SECRET);
  await using rig = await startLineRig();
  for (const vector of vectors.vectors) {
    const delivery = await rig.fake.deliver([], {
      rawBody: new TextEncoder().encode(vector.body),
      signature: vector.xLineSignature,
    });
    assert.equal(delivery.status, 200, vector.name);
  }
  // The text message vector became a message; the postback is not Herald's button.
  const [message] = await rig.host.messageCount(1);
  assert.equal(message.text, "こんにちは 👋");
  assert.equal(message.userId, VECTOR_USER);
  await rig.fake.userSays({ user: BOB }, "after");
  await rig.host.messageCount(2);
  assert.deepEqual(rig.host.messages.map((m) => m.text), ["こんにちは 👋", "after"]);
});

Deno.test("forged, missing and truncated signatures are refused with 400 and logged without secrets", async () => {
  await using rig = await startLineRig();
  const event = rig.fake.messageEvent({ user: ALICE }, { type: "text", text: "forged" });
  const forged = await rig.fake.deliver([event], { secret: "f".repeat(32) });
  assert.equal(forged.status, 400);
  assert.deepEqual(JSON.parse(forged.body), { message: "invalid signature" });
  const missing = await rig.fake.deliver([event], { signature: null });
  assert.equal(missing.status, 400);
  const full = new TextEncoder().encode(
    JSON.stringify({ destination: FAKE_BOT_USER_ID, events: [event] }),
  );
  const truncated = await rig.fake.deliver([event], {
    rawBody: full.slice(0, full.byteLength - 5),
    signedBody: full,
  });
  assert.equal(truncated.status, 400);
  const garbage = await rig.fake.deliver([event], { signature: "not-a-signature" });
  assert.equal(garbage.status, 400);
  assert.equal(rig.host.messages.length, 0);
  assert.equal(rig.host.logs.filter((line) => line.includes("invalid signature")).length, 4);
  assertNoSecrets(rig.logs(), [rig.fake.secret, rig.fake.token]);
  // The real event still goes through afterwards.
  assert.equal((await rig.fake.deliver([event])).status, 200);
  await rig.host.messageCount(1);
});

Deno.test("a body over 1 MiB is refused with 413, announced or streamed, and never processed", async () => {
  await using rig = await startLineRig();
  const big = new Uint8Array(1024 * 1024 + 1).fill(0x20);
  const announced = await rig.fake.deliver([], { rawBody: big });
  assert.equal(announced.status, 413);
  // Streamed with no length: counted while reading, refused once past the cap.
  let produced = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (produced >= 64 * 1024 * 1024) {
        controller.close();
        return;
      }
      produced += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const streamed = await rig.fake.deliver([], { rawBody: endless, signature: "x" });
  assert.equal(streamed.status, 413);
  assert.ok(produced < 64 * 1024 * 1024, `the whole stream was read (${produced} bytes)`);
  assert.ok(rig.host.logs.some((line) => line.includes("over 1 MiB")));
  // Exactly 1 MiB is still read (and then checked).
  const edge = await rig.fake.deliver([], {
    rawBody: new Uint8Array(1024 * 1024).fill(0x20),
    signature: null,
  });
  assert.equal(edge.status, 400);
});

Deno.test("a signed body that is not JSON or has no events is refused with 400", async () => {
  await using rig = await startLineRig();
  const notJson = new TextEncoder().encode("{not json");
  assert.equal((await rig.fake.deliver([], { rawBody: notJson })).status, 400);
  const noEvents = new TextEncoder().encode(JSON.stringify({ destination: FAKE_BOT_USER_ID }));
  assert.equal((await rig.fake.deliver([], { rawBody: noEvents })).status, 400);
  // The console's "Verify" (no events) is fine.
  assert.equal((await rig.fake.deliver([])).status, 200);
});

Deno.test("text from a user, a group and a room becomes inbound messages of the right chat", async () => {
  await using rig = await startLineRig();
  const direct = await rig.fake.userSays({ user: ALICE }, "hello");
  await rig.fake.userSays({ group: GROUP, user: BOB }, "in a group");
  await rig.fake.userSays({ room: ROOM, user: ALICE }, "in a room");
  const [one, two, three] = await rig.host.messageCount(3);
  const event = direct.events[0] as {
    replyToken: string;
    timestamp: number;
    message: { id: string };
  };
  assert.deepEqual(one.chat, { platform: "line", chatId: ALICE });
  assert.equal(one.chatKind, "direct");
  assert.equal(one.userId, ALICE);
  assert.equal(one.text, "hello");
  assert.equal(one.messageId, event.message.id);
  assert.equal(one.receivedAt, event.timestamp);
  assert.deepEqual(one.attachments, []);
  assert.deepEqual(one.replyContext, { replyToken: event.replyToken, receivedAt: rig.clock.now });
  assert.deepEqual(two.chat, { platform: "line", chatId: GROUP });
  assert.equal(two.chatKind, "group");
  assert.equal(two.userId, BOB);
  assert.deepEqual(three.chat, { platform: "line", chatId: ROOM });
  assert.equal(three.chatKind, "room");
  assert.equal(three.userId, ALICE);
});

Deno.test("a redelivered event is processed once", async () => {
  await using rig = await startLineRig();
  const first = await rig.fake.userSays({ user: ALICE }, "once");
  await rig.host.messageCount(1);
  const again = await rig.fake.redeliver(first.events[0]);
  assert.equal(again.status, 200);
  // Same body twice in one delivery, too.
  const twin = rig.fake.messageEvent({ user: BOB }, { type: "text", text: "twin" });
  await rig.fake.deliver([twin, twin]);
  await rig.fake.userSays({ user: ALICE }, "last");
  await rig.host.messageCount(3);
  assert.deepEqual(rig.host.messages.map((m) => m.text), ["once", "twin", "last"]);
});

Deno.test("an event first seen as a redelivery is processed, answered by push (no reply token)", async () => {
  await using rig = await startLineRig();
  const event = rig.fake.messageEvent({ user: ALICE }, { type: "text", text: "late" });
  await rig.fake.redeliver(event);
  const [message] = await rig.host.messageCount(1);
  assert.deepEqual(message.replyContext, { receivedAt: rig.clock.now });
});

Deno.test("the bot's own messages, standby events and other event types are dropped", async () => {
  await using rig = await startLineRig();
  const own = rig.fake.messageEvent({ user: FAKE_BOT_USER_ID }, { type: "text", text: "me" });
  const standby = {
    ...rig.fake.messageEvent({ user: ALICE }, { type: "text", text: "standby" }),
    mode: "standby",
  };
  const follow = { ...rig.fake.messageEvent({ user: ALICE }, {}), type: "follow" };
  const unknown = rig.fake.messageEvent({ user: ALICE }, { type: "imagemap" });
  await rig.fake.deliver([own, standby, follow, unknown]);
  await rig.fake.userSays({ user: ALICE }, "real");
  // Bodies are handled in order: once "real" arrived, the four before it were dropped.
  const [message] = await rig.host.messageCount(1);
  assert.equal(message.text, "real");
  assert.equal(rig.host.messages.length, 1);
});

Deno.test("images and files are fetched from the data API; stickers become text, locations a text file", async () => {
  await using rig = await startLineRig();
  const image = rig.fake.messageEvent({ user: ALICE }, {
    type: "image",
    contentProvider: { type: "line" },
  });
  const imageId = (image.message as { id: string }).id;
  rig.fake.addContent(imageId, new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg");
  const file = rig.fake.messageEvent({ user: ALICE }, {
    type: "file",
    fileName: "notes.md",
    fileSize: 7,
  });
  rig.fake.addContent((file.message as { id: string }).id, "# notes", "text/markdown");
  const sticker = rig.fake.messageEvent({ user: ALICE }, {
    type: "sticker",
    packageId: "446",
    stickerId: "1988",
    stickerResourceType: "STATIC",
    keywords: ["happy", "smile"],
  });
  const location = rig.fake.messageEvent({ user: ALICE }, {
    type: "location",
    title: "Office",
    address: "1-1 Example, Tokyo",
    latitude: 35.65910807942215,
    longitude: 139.70372892916203,
  });
  const gone = rig.fake.messageEvent({ user: ALICE }, {
    type: "video",
    duration: 1000,
    contentProvider: { type: "line" },
  });
  await rig.fake.deliver([image, file, sticker, location, gone]);
  const [fromImage, fromFile, fromSticker, fromLocation, fromGone] = await rig.host.messageCount(5);

  const [photo] = fromImage.attachments;
  assert.equal(photo.kind, "image");
  assert.deepEqual(await photo.fetch(), new Uint8Array([0xff, 0xd8, 0xff, 0xe0]));
  assert.equal(photo.mimeType, "image/jpeg");
  const [download] = rig.fake.requestsTo(`/v2/bot/message/${imageId}/content`);
  assert.equal(download.host, "data");
  assert.equal(download.headers.authorization, `Bearer ${rig.fake.token}`);

  const [doc] = fromFile.attachments;
  assert.equal(doc.kind, "file");
  assert.equal(doc.name, "notes.md");
  assert.equal(doc.size, 7);
  assert.equal(new TextDecoder().decode(await doc.fetch()), "# notes");

  assert.equal(fromSticker.text, "[sticker: happy, smile]");
  assert.deepEqual(fromSticker.attachments, []);

  const [place] = fromLocation.attachments;
  assert.equal(place.kind, "location");
  const described = new TextDecoder().decode(await place.fetch());
  assert.match(described, /Office\n1-1 Example, Tokyo\nlatitude 35\.659/);

  await assert.rejects(() => fromGone.attachments[0].fetch(), /LINE did not hand over the file/);
});

Deno.test("the probe names the bot; a refused token says which variable to fix", async () => {
  await using rig = await startLineRig();
  assert.deepEqual(await rig.channel.probe(), {
    ok: true,
    identity: "Herald Test Bot (@123herald)",
  });
  await using fake = await startFakeLine({ token: "another-token-0123456789" });
  await using dir = await tempDir();
  const clock = FakeTimers.createClock();
  const logs: string[] = [];
  const wrong = await plugin.create(
    channelContext(
      lineEnv(fake, { LINE_CHANNEL_ACCESS_TOKEN: "wrong-token-0123456789" }),
      clock,
      logs,
      dir.path,
    ),
  );
  const probe = await wrong.probe!();
  assert.equal(probe.ok, false);
  assert.match(probe.error!, /LINE_CHANNEL_ACCESS_TOKEN/);
  assert.ok(!probe.error!.includes("wrong-token-0123456789"));
});

Deno.test("the credential key is the SHA-256 of the token, never the token", async () => {
  await using rig = await startLineRig();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(rig.fake.token));
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  assert.equal(rig.channel.credentialKey, hex);
  assert.equal(rig.channel.id, "line");
  assert.equal(plugin.id, "line");
});

Deno.test("a missing token or secret, or a bad setting, is platform_not_configured naming it", async () => {
  await using fake = await startFakeLine();
  await using dir = await tempDir();
  const clock = FakeTimers.createClock();
  const create = (extra: Record<string, string | undefined>) =>
    plugin.create(channelContext(lineEnv(fake, extra), clock, [], dir.path));
  const cases: [Record<string, string | undefined>, string][] = [
    [{ LINE_CHANNEL_ACCESS_TOKEN: undefined }, "LINE_CHANNEL_ACCESS_TOKEN"],
    [{ LINE_CHANNEL_SECRET: "" }, "LINE_CHANNEL_SECRET"],
    [{ LINE_PORT: "eighty" }, "LINE_PORT"],
    [{ LINE_SLOW_RESPONSE_THRESHOLD: "soon" }, "LINE_SLOW_RESPONSE_THRESHOLD"],
    [{ LINE_PUBLIC_URL: "bot.example.com" }, "LINE_PUBLIC_URL"],
    [{ LINE_API_BASE: "ftp://x" }, "LINE_API_BASE"],
  ];
  for (const [extra, variable] of cases) {
    await assert.rejects(
      async () => await create(extra),
      (error: unknown) => {
        assert.ok(error instanceof HeraldError);
        assert.equal(error.code, "platform_not_configured");
        assert.match(error.message, new RegExp(variable));
        assert.ok(!error.message.includes(fake.secret) && !error.message.includes(fake.token));
        return true;
      },
      variable,
    );
  }
});

Deno.test("a port already in use is refused with a message naming LINE_PORT", async () => {
  await using first = await startLineRig();
  await using dir = await tempDir();
  const clock = FakeTimers.createClock();
  const channel = await plugin.create(
    channelContext(
      lineEnv(first.fake, { LINE_PORT: String(first.channel.port) }),
      clock,
      [],
      dir.path,
    ),
  );
  const host = new RecordingHost();
  await assert.rejects(() => channel.start!(host), /LINE_PORT/);
  assert.equal(host.states.at(-1)?.state, "refused");
});

Deno.test("stop closes the webhook server", async () => {
  const rig = await startLineRig();
  const base = rig.base;
  await rig[Symbol.asyncDispose]();
  await assert.rejects(() => fetch(`${base}/line/webhook/health`));
  assert.equal(rig.host.states.at(-1)?.state, "stopped");
});
