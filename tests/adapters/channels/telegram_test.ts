/**
 * The Telegram channel against the fake Bot API over real HTTP: inbound
 * long polling (private, group and topic messages, attachments, what is
 * ignored), outbound sends (chunks, HTML refused and resent plain, files as
 * multipart, permanent and passing refusals), retries under fake time, a
 * refused token, the probe and the configuration errors.
 */

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import {
  type ChannelContext,
  type OutboundReply,
  PermanentSendError,
} from "../../../core/channels/contract.ts";
import { HeraldError } from "../../../core/errors.ts";
import { RESENT_NOTICE } from "../../../core/channels/reply.ts";
import { plugin } from "../../../adapters/channels/telegram/mod.ts";
import {
  createTelegramChannel,
  type TelegramChannelOptions,
} from "../../../adapters/channels/telegram/channel.ts";
import { TelegramOutbound } from "../../../adapters/channels/telegram/outbound.ts";
import {
  FAKE_TELEGRAM_TOKEN,
  type FakeBot,
  type FakeTelegram,
  startFakeTelegram,
} from "../../fakes/telegram_api.ts";
import { tempDir } from "../../_helpers.ts";
import { channelContext, RecordingHost, until } from "./_host.ts";

const WRONG_TOKEN = "987654321:AAHwrongTokenNobodyKnows_abcdefghijk";

interface Harness extends AsyncDisposable {
  fake: FakeTelegram;
  bot: FakeBot;
  host: RecordingHost;
  clock: FakeTimers.Clock;
  logs: string[];
  context: ChannelContext;
  channel: Awaited<ReturnType<typeof createTelegramChannel>>;
  outbound: TelegramOutbound;
  /** Fires the one pending timer (a backoff or a request timeout) and returns how long it was. */
  fireTimer(): number;
}

async function harness(
  options: { token?: string; start?: boolean; channel?: TelegramChannelOptions } = {},
): Promise<Harness> {
  const dir = await tempDir();
  const fake = await startFakeTelegram();
  const bot = fake.bot();
  const clock = FakeTimers.createClock();
  const logs: string[] = [];
  const context = channelContext(
    {
      TELEGRAM_BOT_TOKEN: options.token ?? FAKE_TELEGRAM_TOKEN,
      TELEGRAM_API_BASE: fake.baseUrl,
    },
    clock,
    logs,
    dir.path,
  );
  const channel = await createTelegramChannel(context, { random: null, ...options.channel });
  const host = new RecordingHost();
  if (options.start !== false) await channel.start!(host);
  return {
    fake,
    bot,
    host,
    clock,
    logs,
    context,
    channel,
    outbound: channel.outbound as TelegramOutbound,
    fireTimer() {
      assert.equal(clock.countTimers(), 1, "exactly one timer should be pending");
      const before = clock.now;
      clock.next();
      return clock.now - before;
    },
    async [Symbol.asyncDispose]() {
      host.abort();
      await channel.stop?.();
      await fake.close();
      await dir[Symbol.asyncDispose]();
      for (const line of [...logs, ...host.logs, ...host.states.map((s) => s.error ?? "")]) {
        assert.ok(!line.includes(FAKE_TELEGRAM_TOKEN), `a log line shows the token: ${line}`);
        assert.ok(!line.includes(WRONG_TOKEN), `a log line shows the token: ${line}`);
      }
    },
  };
}

function text(...parts: string[]): OutboundReply {
  return { parts: parts.map((part) => ({ kind: "text" as const, text: part })) };
}

// ---------------------------------------------------------------- inbound

Deno.test("a private message arrives with its document, downloaded through getFile", async () => {
  await using h = await harness();
  h.bot.userSays(42, { id: 42, firstName: "Ada", lastName: "L", username: "ada" }, "see this", {
    document: { name: "notes.txt", mimeType: "text/plain", bytes: "hello file" },
  });
  const [message] = await h.host.messageCount(1);
  assert.deepEqual(message.chat, { platform: "telegram", chatId: "42" });
  assert.equal(message.chatKind, "direct");
  assert.equal(message.userId, "42");
  assert.equal(message.userName, "Ada L (@ada)");
  assert.equal(message.text, "see this");
  assert.equal(message.attachments.length, 1);
  const [file] = message.attachments;
  assert.equal(file.kind, "file");
  assert.equal(file.name, "notes.txt");
  assert.equal(file.mimeType, "text/plain");
  assert.equal(file.size, 10);
  assert.equal(new TextDecoder().decode(await file.fetch()), "hello file");
  assert.equal(h.host.state, "connected");
});

Deno.test("a photo arrives as its largest size", async () => {
  await using h = await harness();
  h.bot.userSays(42, 42, "", { photo: { bytes: "full-size-photo-bytes" } });
  const [message] = await h.host.messageCount(1);
  assert.equal(message.text, "");
  assert.equal(message.attachments[0].kind, "image");
  assert.equal(message.attachments[0].mimeType, "image/jpeg");
  assert.equal(
    new TextDecoder().decode(await message.attachments[0].fetch()),
    "full-size-photo-bytes",
  );
});

Deno.test("a file over Telegram's download limit is refused with a reason", async () => {
  await using h = await harness();
  h.bot.userSays(42, 42, "big one", {
    video: { name: "big.mp4", bytes: "x", size: 30 * 1024 * 1024 },
  });
  const [message] = await h.host.messageCount(1);
  assert.equal(message.attachments[0].kind, "video");
  assert.equal(message.attachments[0].size, 30 * 1024 * 1024);
  await assert.rejects(message.attachments[0].fetch(), /20 MB/);
});

Deno.test("a group message has chatKind group and a topic message carries its thread", async () => {
  await using h = await harness();
  h.bot.userSays(-100123, 7, "/new@herald_test_bot fresh start");
  h.bot.userSays({ id: -100555, type: "supergroup", forum: true }, 8, "in a topic", {
    threadId: 12,
  });
  const [group, topic] = await h.host.messageCount(2);
  assert.equal(group.chatKind, "group");
  assert.deepEqual(group.chat, { platform: "telegram", chatId: "-100123" });
  assert.equal(group.userId, "7");
  assert.equal(group.text, "/new fresh start", "the bot's name is dropped from a group command");
  assert.equal(topic.chatKind, "group");
  assert.deepEqual(topic.chat, { platform: "telegram", chatId: "-100555", threadId: "12" });

  await h.outbound.send(topic.chat, text("answer in the topic"));
  const [sent] = await h.bot.waitForSent(-100555);
  assert.equal(sent.threadId, 12);
});

Deno.test("messages from bots and channel posts are not handed to the gateway", async () => {
  await using h = await harness();
  h.bot.userSays(42, { id: 99, isBot: true }, "I am a bot");
  h.bot.channelPost(-100777, "news");
  h.bot.userSays(42, 42, "a person");
  const messages = await h.host.messageCount(1);
  await until(() => h.bot.pendingUpdates === 0, "every update confirmed");
  assert.deepEqual(messages.map((m) => m.text), ["a person"]);
});

Deno.test("getUpdates asks for messages only, confirms with offset and long-polls", async () => {
  await using h = await harness();
  h.bot.userSays(42, 42, "one");
  await h.host.messageCount(1);
  const confirming = () =>
    h.bot.callsOf("getUpdates").find((call) => call.params.offset !== undefined);
  await until(() => confirming() !== undefined, "a getUpdates with an offset");
  const [first] = h.bot.callsOf("getUpdates");
  assert.deepEqual(first.params.allowed_updates, ["message"]);
  assert.equal(first.params.timeout, 0, "the first poll is short, to report connected at once");
  assert.equal(confirming()!.params.offset, Number(h.bot.history[0].update_id) + 1);
  assert.equal(confirming()!.params.timeout, 30);
  assert.equal(h.bot.pendingUpdates, 0);
});

// ---------------------------------------------------------------- retries

Deno.test("500, 429 and a dropped connection on getUpdates are retried, then connected", async () => {
  await using h = await harness({ start: false });
  h.bot.failNext("getUpdates", { status: 500 });
  h.bot.failNext("getUpdates", { status: 429, retryAfter: 7 });
  h.bot.failNext("getUpdates", "drop");
  await h.channel.start!(h.host);
  const waited: number[] = [];
  for (let change = 2; change <= 4; change++) {
    await h.host.stateCount(change);
    assert.equal(h.host.state, "retrying");
    waited.push(h.fireTimer());
  }
  await h.host.stateCount(5);
  assert.deepEqual(h.host.states.map((s) => s.state), [
    "starting",
    "retrying",
    "retrying",
    "retrying",
    "connected",
  ]);
  assert.deepEqual(waited, [1_000, 7_000, 4_000], "backoff doubles; 429's retry_after is honoured");
  assert.match(h.host.states[1].error!, /500/);
  assert.match(h.host.states[2].error!, /429/);

  h.bot.userSays(42, 42, "after the storm");
  assert.equal((await h.host.messageCount(1))[0].text, "after the storm");
});

Deno.test("a getUpdates that hangs times out on the channel's clock and is retried", async () => {
  await using h = await harness({ start: false });
  h.bot.failNext("getUpdates", "hang");
  await h.channel.start!(h.host);
  await h.bot.waitForCall("getUpdates");
  await until(() => h.clock.countTimers() === 1, "the request timer");
  assert.equal(h.fireTimer(), 10_000, "a short poll may take 10 s");
  await h.host.stateCount(2);
  assert.equal(h.host.state, "retrying");
  assert.match(h.host.states[1].error!, /did not answer getUpdates within 10 s/);
  h.fireTimer();
  await h.host.stateCount(3);
  assert.equal(h.host.state, "connected");
});

Deno.test("the backoff is bounded and jittered by the injected random", async () => {
  await using h = await harness({
    start: false,
    channel: { random: () => 1, backoff: { baseMs: 1_000, maxMs: 3_000 } },
  });
  h.bot.failNext("getUpdates", { status: 502 }, 4);
  await h.channel.start!(h.host);
  const waited: number[] = [];
  for (let change = 2; change <= 5; change++) {
    await h.host.stateCount(change);
    waited.push(h.fireTimer());
  }
  await h.host.stateCount(6);
  assert.equal(h.host.state, "connected");
  assert.deepEqual(waited, [1_250, 2_500, 3_000, 3_000]);
});

Deno.test("a second poller (409) is named, and polling goes on once it is gone", async () => {
  await using h = await harness({ start: false });
  h.bot.setWebhook(true);
  await h.channel.start!(h.host);
  await h.host.stateCount(2);
  assert.equal(h.host.state, "retrying");
  assert.match(h.host.states[1].error!, /webhook is set for this bot.*deleteWebhook/);
  h.bot.setWebhook(false);
  h.fireTimer();
  await h.host.stateCount(3);
  assert.equal(h.host.state, "connected");
});

Deno.test("a wrong token ends in refused, says what to do, and stops polling", async () => {
  await using h = await harness({ token: WRONG_TOKEN });
  await h.host.stateCount(2);
  assert.equal(h.host.state, "refused");
  assert.match(h.host.states[1].error!, /bot token was refused.*401.*TELEGRAM_BOT_TOKEN/);
  await h.channel.stop!();
  assert.equal(h.clock.countTimers(), 0, "no retry is scheduled");
});

Deno.test("an unreachable API is retried and the error names no token", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await using dir = await tempDir();
  const clock = FakeTimers.createClock();
  const logs: string[] = [];
  const context = channelContext(
    { TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN, TELEGRAM_API_BASE: `http://127.0.0.1:${port}` },
    clock,
    logs,
    dir.path,
  );
  const channel = await createTelegramChannel(context, { random: null });
  const host = new RecordingHost();
  await channel.start!(host);
  await host.stateCount(2);
  assert.equal(host.state, "retrying");
  assert.match(host.states[1].error!, /Could not reach Telegram for getMe/);
  for (const line of [host.states[1].error!, ...host.logs]) {
    assert.ok(!line.includes(FAKE_TELEGRAM_TOKEN), `the token leaked: ${line}`);
  }
  const probe = await channel.probe!();
  assert.equal(probe.ok, false);
  assert.ok(!probe.error!.includes(FAKE_TELEGRAM_TOKEN));
  host.abort();
  await channel.stop!();
});

Deno.test("aborting the host's signal ends a held long poll at once", async () => {
  await using h = await harness();
  await until(() => h.host.state === "connected", "connected");
  await until(
    () => h.bot.callsOf("getUpdates").some((call) => call.params.timeout === 30),
    "a long poll in flight",
  );
  h.host.abort();
  await h.channel.stop!();
  assert.equal(h.clock.countTimers(), 0, "no request or backoff timer is left");
});

Deno.test("stopping mid-batch confirms what was handed over and keeps the rest", async () => {
  await using h = await harness({ start: false });
  h.bot.userSays(42, 42, "one");
  h.bot.userSays(42, 42, "two");
  const host = new RecordingHost();
  host.receive = (message) => {
    host.messages.push(message);
    host.abort(); // the gateway stops while taking the first message
    return Promise.resolve();
  };
  await h.channel.start!(host);
  await host.messageCount(1);
  await h.channel.stop!();
  assert.deepEqual(host.messages.map((m) => m.text), ["one"]);
  assert.equal(h.bot.pendingUpdates, 1, "the second message waits for the next start");
});

Deno.test("a second gateway polling the same bot is named in the first one's state", async () => {
  await using h = await harness();
  await until(
    () => h.bot.callsOf("getUpdates").some((call) => call.params.timeout === 30),
    "a long poll in flight",
  );
  const second = await createTelegramChannel(h.context, { random: null });
  const otherHost = new RecordingHost();
  await second.start!(otherHost);
  await until(() => h.host.state === "retrying", "the first channel retrying");
  assert.match(h.host.states.at(-1)!.error!, /another program is polling this bot's updates/);
  otherHost.abort();
  await second.stop!();
});

// ---------------------------------------------------------------- outbound

const TO = { platform: "telegram", chatId: "42" };

Deno.test("a long answer goes out as several messages, in order", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat(42);
  const long = Array.from({ length: 300 }, (_, i) => `line ${i} ${"x".repeat(30)}`).join("\n");
  assert.ok(long.length > 2 * 4096);
  const receipt = await h.outbound.send(TO, text("<b>first</b>", "second", long));
  const sent = h.bot.sent;
  assert.ok(sent.length >= 5, `expected at least 5 messages, got ${sent.length}`);
  assert.deepEqual(receipt.messageIds, sent.map((m) => String(m.messageId)));
  assert.deepEqual(sent.slice(0, 2).map((m) => m.text), ["<b>first</b>", "second"]);
  for (const message of sent) {
    assert.equal(message.parseMode, "HTML");
    assert.ok(message.text!.length <= 4096);
  }
  assert.equal(sent.slice(2).map((m) => m.text).join("\n"), long);
  assert.equal(h.outbound.chunkLimit, 4096);
});

Deno.test("HTML that Telegram refuses is resent as plain text", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat(42);
  const receipt = await h.outbound.send(TO, text("<b>bold</b> and x < y &amp; z"));
  const calls = h.bot.callsOf("sendMessage");
  assert.equal(calls.length, 2);
  assert.equal(calls[0].params.parse_mode, "HTML");
  assert.equal(calls[0].status, 400);
  assert.equal(calls[1].params.parse_mode, undefined);
  assert.equal(h.bot.sent.length, 1);
  assert.equal(h.bot.sent[0].text, "bold and x < y & z");
  assert.deepEqual(receipt.messageIds, [String(h.bot.sent[0].messageId)]);
});

Deno.test("format converts Markdown to Telegram HTML", async () => {
  await using h = await harness({ start: false });
  assert.equal(h.outbound.format("**hi** & bye"), "<b>hi</b> &amp; bye");
});

Deno.test("403 and an unknown chat are permanent; 429 carries retryAfterMs; 5xx is passing", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat(42);
  h.bot.block(42);
  const blocked = await h.outbound.send(TO, text("hello")).catch((e) => e);
  assert.ok(blocked instanceof PermanentSendError);
  assert.equal(blocked.status, 403);
  assert.match(blocked.message, /blocked by the user/);

  const unknown = await h.outbound.send({ ...TO, chatId: "777" }, text("hello")).catch((e) => e);
  assert.ok(unknown instanceof PermanentSendError);
  assert.equal(unknown.status, 400);
  assert.match(unknown.message, /chat not found/);

  h.bot.knowChat(43);
  h.bot.failNext("sendMessage", { status: 429, retryAfter: 5 });
  const limited = await h.outbound.send({ ...TO, chatId: "43" }, text("hello")).catch((e) => e);
  assert.ok(limited instanceof Error && !(limited instanceof PermanentSendError));
  assert.equal((limited as Error & { retryAfterMs?: number }).retryAfterMs, 5_000);

  h.bot.failNext("sendMessage", { status: 500 });
  const failing = await h.outbound.send({ ...TO, chatId: "43" }, text("hello")).catch((e) => e);
  assert.ok(failing instanceof Error && !(failing instanceof PermanentSendError));
  assert.match(failing.message, /500/);
  assert.ok(!failing.message.includes(FAKE_TELEGRAM_TOKEN));
});

Deno.test("a retried reply goes on from the part Telegram did not confirm", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat(42);
  h.bot.failNext("sendMessage", { status: 502 }, 1, 1);
  const reply = text("part one", "part two");
  await assert.rejects(h.outbound.send(TO, reply), /502/);
  const receipt = await h.outbound.send(TO, reply);
  assert.deepEqual(h.bot.sent.map((m) => m.text), ["part one", "part two"]);
  assert.deepEqual(receipt.messageIds, h.bot.sent.map((m) => String(m.messageId)));
});

Deno.test("a group that became a supergroup is followed", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat(-1001234);
  h.bot.failNext("sendMessage", {
    status: 400,
    description: "Bad Request: group chat was upgraded to a supergroup chat",
    migrateToChatId: -1001234,
  });
  await h.outbound.send({ ...TO, chatId: "-55" }, text("hello"));
  assert.equal(h.bot.sent[0].chatId, -1001234);
  assert.ok(h.logs.some((line) => line.includes("telegram:-1001234")));
});

Deno.test("documents, photos, audio and video are uploaded as multipart", async () => {
  await using h = await harness({ start: false });
  await using dir = await tempDir();
  h.bot.knowChat(42);
  const files: Record<string, string> = {
    "chart.png": "png-bytes",
    "report.pdf": "pdf-bytes",
    "song.mp3": "mp3-bytes",
    "clip.mp4": "mp4-bytes",
  };
  for (const [name, content] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir.path}/${name}`, content);
  }
  const media = (name: string, asDocument = false) => ({
    kind: "media" as const,
    media: { path: `${dir.path}/${name}`, asDocument },
  });
  const receipt = await h.outbound.send({ ...TO }, {
    parts: [
      { kind: "text", text: "here they are" },
      media("chart.png"),
      media("chart.png", true),
      media("report.pdf"),
      media("song.mp3"),
      media("clip.mp4"),
    ],
  });
  assert.equal(receipt.messageIds.length, 6);
  const uploads = h.bot.calls.filter((call) => call.method !== "sendMessage");
  assert.deepEqual(uploads.map((call) => [call.method, Object.keys(call.files)]), [
    ["sendPhoto", ["photo"]],
    ["sendDocument", ["document"]],
    ["sendDocument", ["document"]],
    ["sendAudio", ["audio"]],
    ["sendVideo", ["video"]],
  ]);
  for (const call of uploads) {
    assert.equal(call.encoding, "multipart");
    assert.equal(call.params.chat_id, "42");
    const file = Object.values(call.files)[0];
    assert.equal(new TextDecoder().decode(file.bytes), files[file.name]);
  }
});

Deno.test("a missing file is a permanent error naming it", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat(42);
  const error = await h.outbound.send(TO, {
    parts: [{ kind: "media", media: { path: "/nonexistent/answer.pdf", asDocument: true } }],
  }).catch((e) => e);
  assert.ok(error instanceof PermanentSendError);
  assert.match(error.message, /\/nonexistent\/answer\.pdf/);
  assert.equal(h.bot.calls.length, 0);
});

Deno.test("typing sends the typing action to the chat and topic", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat({ id: -100555, forum: true });
  await h.outbound.typing({ platform: "telegram", chatId: "-100555", threadId: "3" });
  const [call] = h.bot.callsOf("sendChatAction");
  assert.deepEqual(call.params, { chat_id: -100555, message_thread_id: 3, action: "typing" });
  assert.equal(call.status, 200);
  await h.outbound.typing({ platform: "telegram", chatId: "999" });
  assert.ok(h.logs.some((line) => line.includes("typing")), "a failed typing action is logged");
});

// ---------------------------------------------------------------- setup, probe

Deno.test("probe asks getMe for the bot's name; a wrong token is explained", async () => {
  await using h = await harness({ start: false });
  assert.deepEqual(await h.channel.probe!(), { ok: true, identity: "@herald_test_bot" });
  await using wrong = await harness({ start: false, token: WRONG_TOKEN });
  const probe = await wrong.channel.probe!();
  assert.equal(probe.ok, false);
  assert.match(probe.error!, /refused the bot token \(401\).*TELEGRAM_BOT_TOKEN/);
});

Deno.test("the plugin needs TELEGRAM_BOT_TOKEN and keys the credential by its hash", async () => {
  await using dir = await tempDir();
  const clock = FakeTimers.createClock();
  assert.equal(plugin.id, "telegram");
  const missing = await Promise.resolve()
    .then(() => plugin.create(channelContext({}, clock, [], dir.path)))
    .catch((e) => e);
  assert.ok(missing instanceof HeraldError);
  assert.equal(missing.code, "platform_not_configured");
  assert.match(missing.message, /TELEGRAM_BOT_TOKEN/);

  const badBase = await Promise.resolve()
    .then(() =>
      plugin.create(
        channelContext(
          { TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN, TELEGRAM_API_BASE: "ftp://x" },
          clock,
          [],
          dir.path,
        ),
      )
    )
    .catch((e) => e);
  assert.ok(badBase instanceof HeraldError);
  assert.match(badBase.message, /TELEGRAM_API_BASE "ftp:\/\/x"/);

  const channel = await plugin.create(
    channelContext({ TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN }, clock, [], dir.path),
  );
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(FAKE_TELEGRAM_TOKEN),
  );
  const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  assert.equal(channel.credentialKey, hex);
  assert.equal(channel.outbound?.chunkLimit, 4096);
  const same = channelContext({ TELEGRAM_BOT_TOKEN: FAKE_TELEGRAM_TOKEN }, clock, [], dir.path);
  assert.equal(await channel.reload!(same), true);
  const other = channelContext({ TELEGRAM_BOT_TOKEN: WRONG_TOKEN }, clock, [], dir.path);
  assert.equal(await channel.reload!(other), false);
});

Deno.test("a part whose send got no answer is sent again behind a line saying it may be a duplicate", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat(42);
  h.bot.failNext("sendMessage", "drop", 1, 1);
  const reply = text("part one", "part two");
  await assert.rejects(h.outbound.send(TO, reply));
  await h.outbound.send(TO, reply);
  const texts = h.bot.sent.map((m) => m.text ?? "");
  assert.equal(texts.length, 2);
  assert.equal(texts[0], "part one", "the confirmed part is not marked or resent");
  assert.ok(texts[1].startsWith(RESENT_NOTICE), texts[1]);
  assert.ok(texts[1].endsWith("part two"));

  // A refusal with a status means Telegram did not take it: the retry carries no notice.
  h.bot.failNext("sendMessage", { status: 502 });
  const again = text("third");
  await assert.rejects(h.outbound.send(TO, again), /502/);
  await h.outbound.send(TO, again);
  assert.equal(h.bot.sent.at(-1)?.text, "third");
});

Deno.test("a notice that went as its own message is not sent again when the part needs another try", async () => {
  await using h = await harness({ start: false });
  h.bot.knowChat(42);
  const full = "x".repeat(4096);
  const reply = text(full);
  h.bot.failNext("sendMessage", "drop");
  await assert.rejects(h.outbound.send(TO, reply));
  // The notice does not fit in front of a full part: it goes first, then the part drops again.
  h.bot.failNext("sendMessage", "drop", 1, 1);
  await assert.rejects(h.outbound.send(TO, reply));
  await h.outbound.send(TO, reply);
  assert.deepEqual(h.bot.sent.map((m) => m.text), [RESENT_NOTICE, full]);
});
