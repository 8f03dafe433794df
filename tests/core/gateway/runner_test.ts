/**
 * The gateway runner under fake time: an in-memory test channel, in-memory
 * ledger and pairing ports, and real conversation objects over a scripted
 * turn runtime. Order within a chat, the queue's acknowledgement, `/stop`
 * and `/new` during a turn, silence, chunking, typing, failures told to the
 * user, and many chats at once.
 */

import assert from "node:assert/strict";
import { ModelError } from "../../../core/errors.ts";
import type { InboundAttachment } from "../../../core/channels/contract.ts";
import {
  NOTHING_RUNNING_TEXT,
  QUEUE_FULL_TEXT,
  QUEUED_TEXT,
  TYPING_INTERVAL_MS,
} from "../../../core/gateway/mod.ts";
import { settle, TestChannel, until } from "./_fixtures.ts";
import { allowOnly } from "./_access.ts";
import { rig } from "./_rig.ts";
import { protectedPathReason } from "../../../core/tools/write_guard.ts";

Deno.test("a chat's messages are answered in order; one sent during a turn is queued and acknowledged at once", async () => {
  await using r = await rig();
  r.backend.hold("first");
  await r.channel.say("c1", "first");
  await settle();
  await r.channel.say("c1", "second");
  await r.channel.say("c1", "third");
  await until(() => r.channel.sent.length === 2, "two acknowledgements");
  assert.deepEqual(r.channel.textsTo("c1"), [QUEUED_TEXT, QUEUED_TEXT]);
  assert.equal(r.runner.status().queued, 2);
  assert.equal(r.runner.status().running, 1);

  r.backend.release("first");
  await until(() => r.channel.sent.length === 5, "three answers");
  assert.deepEqual(r.channel.textsTo("c1").slice(2), [
    "echo: first",
    "echo: second",
    "echo: third",
  ]);
  // Each acknowledgement and answer goes back with the context of the message it answers.
  assert.deepEqual(r.channel.sent[0].context, { token: "rt-c1-second" });
  assert.deepEqual(r.channel.sent[4].context, { token: "rt-c1-third" });
  const [id] = [...r.backend.sessions.keys()];
  assert.deepEqual(
    r.backend.sessions.get(id),
    ["first", "second", "third"],
    "one session per chat",
  );
  assert.equal(r.sessions.get({ platform: "test", chatId: "c1" }), id);
  assert.ok(r.ledger.rows.every((row) => row.status === "delivered"));
  assert.equal(r.runner.status().undelivered, 0);
});

Deno.test("/stop interrupts the running turn at once, settles the channel's pending answer and drops the queue out loud", async () => {
  await using r = await rig();
  r.backend.hold("long job");
  await r.channel.say("c1", "long job", { context: { token: "rt-long" } });
  await r.channel.say("c1", "after it");
  await until(() => r.channel.sent.length === 1, "the queue acknowledgement");

  await r.channel.say("c1", "/stop");
  await until(() => r.channel.sent.length === 2, "the answer to /stop");
  assert.deepEqual(r.backend.aborted, ["long job"], "the turn was aborted without its release");
  assert.equal(r.channel.textsTo("c1")[1], "Stopped. The message waiting behind it was dropped.");
  assert.deepEqual(r.channel.cancelled.map((c) => c.context), [
    { token: "rt-long" },
    { token: "rt-c1-after it" },
  ]);
  await settle();
  assert.equal(r.channel.sent.length, 2, "the stopped turn's partial answer is not sent");
  assert.equal(r.runner.status().running, 0);

  await r.channel.say("c1", "/stop");
  await until(() => r.channel.sent.length === 3, "the answer to an idle /stop");
  assert.equal(r.channel.textsTo("c1")[2], NOTHING_RUNNING_TEXT);

  await r.channel.say("c1", "next question");
  await until(() => r.channel.sent.length === 4, "the next answer");
  assert.equal(r.channel.textsTo("c1")[3], "echo: next question");
});

Deno.test("/new during a turn stops it first, then starts a fresh session that the chat keeps", async () => {
  await using r = await rig();
  const chat = { platform: "test", chatId: "c1" };
  await r.channel.say("c1", "hello");
  await until(() => r.channel.sent.length === 1, "the first answer");
  const first = r.sessions.get(chat);
  assert.ok(first);

  r.backend.hold("slow");
  await r.channel.say("c1", "slow");
  await settle();
  await r.channel.say("c1", "/new");
  await until(() => r.channel.sent.length === 2, "the answer to /new");
  assert.deepEqual(r.backend.aborted, ["slow"]);
  assert.equal(r.channel.cancelled.length, 1);
  assert.equal(r.channel.textsTo("c1")[1], "Stopped the running turn. Started a new session.");
  assert.equal(r.sessions.get(chat), undefined, "no stored id until the new session stores a turn");

  await r.channel.say("c1", "fresh start");
  await until(() => r.channel.sent.length === 3, "the fresh answer");
  const second = r.sessions.get(chat);
  assert.ok(second && second !== first);
  assert.deepEqual(r.backend.sessions.get(second), ["fresh start"]);

  // Idle, /new goes through the conversation like any command.
  await r.channel.say("c1", "/new");
  await until(() => r.channel.sent.length === 4, "an idle /new");
  assert.equal(r.channel.textsTo("c1")[3], "Started a new session.");
});

Deno.test("a silent answer is stored but not delivered", async () => {
  await using r = await rig();
  r.backend.answers.set("heartbeat", "  [SILENT] ");
  await r.channel.say("c1", "heartbeat");
  await until(() => r.runner.status().running === 0, "the silent turn's end");
  await r.channel.say("c1", "ping");
  await until(() => r.channel.sent.length === 1, "the answer after the silent one");
  assert.deepEqual(r.channel.textsTo("c1"), ["echo: ping"]);
  const [id] = [...r.backend.sessions.keys()];
  assert.deepEqual(r.backend.sessions.get(id), ["heartbeat", "ping"], "the silent turn is stored");
  assert.equal(r.ledger.rows.length, 1, "nothing was owed for the silent answer");
  assert.ok(r.logs.some((line) => line.includes("silent")));
});

Deno.test("a long answer is sent in parts no longer than the channel's limit, split on paragraphs", async () => {
  await using r = await rig({ channel: new TestChannel("test", 100) });
  const paragraphs = Array.from(
    { length: 6 },
    (_, i) => `Paragraph ${i} ${"word ".repeat(10).trim()}.`,
  );
  r.backend.answers.set("essay", paragraphs.join("\n\n"));
  await r.channel.say("c1", "essay");
  await until(() => r.channel.sent.length === 1, "the essay");
  const texts = r.channel.sent[0].texts;
  assert.ok(texts.length > 1);
  assert.ok(texts.every((text) => text.length <= 100));
  assert.equal(texts.join("\n\n"), paragraphs.join("\n\n"));
});

Deno.test("the typing indicator is renewed while a turn runs and stops with it", async () => {
  await using r = await rig();
  r.backend.hold("think");
  await r.channel.say("c1", "think");
  await settle();
  assert.equal(r.channel.typing.length, 1);
  await r.clock.advance(TYPING_INTERVAL_MS * 3);
  assert.equal(r.channel.typing.length, 4);
  r.backend.release("think");
  await until(() => r.channel.sent.length === 1, "the answer");
  await r.clock.advance(TYPING_INTERVAL_MS * 3);
  assert.equal(r.channel.typing.length, 4, "no indicator after the answer");
});

Deno.test("a turn that fails tells the user what failed in one short message", async () => {
  await using r = await rig();
  r.backend.fail.set(
    "hi",
    new ModelError("model_unavailable", "The model server at 127.0.0.1:9 did not answer", "custom"),
  );
  r.backend.fail.set("boom", new TypeError("secret internals sk-abc are here"));
  await r.channel.say("c1", "hi");
  await until(() => r.channel.sent.length === 1, "the first failure message");
  await r.channel.say("c1", "boom");
  await until(() => r.channel.sent.length === 2, "two failure messages");
  assert.deepEqual(r.channel.textsTo("c1"), [
    "Sorry, I could not answer that: The model server at 127.0.0.1:9 did not answer",
    "Sorry, something went wrong while answering; the gateway log says what.",
  ]);
});

Deno.test("more messages than the queue holds are refused out loud, never dropped", async () => {
  await using r = await rig({ maxQueuedPerChat: 1 });
  r.backend.hold("busy");
  await r.channel.say("c1", "busy");
  await settle();
  await r.channel.say("c1", "one");
  await r.channel.say("c1", "two");
  await until(() => r.channel.sent.length === 2, "ack and refusal");
  assert.deepEqual(r.channel.textsTo("c1"), [QUEUED_TEXT, QUEUE_FULL_TEXT]);
  r.backend.release("busy");
  await until(() => r.channel.sent.length === 4, "the answers");
  assert.deepEqual(r.channel.textsTo("c1").slice(2), ["echo: busy", "echo: one"]);
});

Deno.test("a refused attachment is answered with its reason; an admitted text file reaches the model", async () => {
  await using r = await rig();
  const binary: InboundAttachment = {
    kind: "file",
    name: "tool.exe",
    mimeType: "application/x-msdownload",
    size: 10,
    fetch: () => Promise.resolve(new Uint8Array(10)),
  };
  const notes: InboundAttachment = {
    kind: "file",
    name: "notes.md",
    mimeType: "text/markdown",
    fetch: () => Promise.resolve(new TextEncoder().encode("# Plan\nship it")),
  };
  await r.channel.say("c1", "", { attachments: [binary] });
  await until(() => r.channel.sent.length === 1, "the refusal");
  assert.match(r.channel.textsTo("c1")[0], /"tool\.exe".*was not read/);
  assert.equal(r.backend.sessions.size, 0, "a message with nothing admitted runs no turn");

  await r.channel.say("c1", "summarise", { attachments: [notes, binary] });
  await until(() => r.channel.sent.length === 3, "refusal and answer");
  assert.match(r.channel.textsTo("c1")[1], /"tool\.exe".*was not read/);
  const [id] = [...r.backend.sessions.keys()];
  const prompt = r.backend.sessions.get(id)![0];
  assert.match(prompt, /^summarise\n\nThe user attached 2 files:/);
  assert.match(prompt, /Text file "notes\.md":\n```md\n# Plan\nship it\n```/);
});

Deno.test("a hundred chats talking at once each get their own answers, in order", async () => {
  await using r = await rig();
  const chats = Array.from({ length: 100 }, (_, i) => `chat${i}`);
  await Promise.all(chats.flatMap((chat) => [
    r.channel.say(chat, `q1 from ${chat}`),
    r.channel.say(chat, `q2 from ${chat}`),
  ]));
  await until(
    () => r.channel.sent.filter((s) => !s.texts[0].startsWith("Queued")).length === 200,
    "200 answers",
  );
  for (const chat of chats) {
    const answers = r.channel.textsTo(chat).filter((text) => text.startsWith("echo:"));
    assert.deepEqual(answers, [`echo: q1 from ${chat}`, `echo: q2 from ${chat}`]);
  }
  assert.equal(new Set(r.sessions.map.values()).size, 100, "one session per chat");
  assert.equal(r.runner.status().chats, 100);
});

Deno.test("threads of one chat are separate conversations", async () => {
  await using r = await rig();
  await r.channel.say("c1", "in topic a", { threadId: "a" });
  await r.channel.say("c1", "in topic b", { threadId: "b" });
  await until(() => r.channel.sent.length === 2, "two answers");
  assert.equal(r.sessions.map.size, 2);
  assert.deepEqual(r.channel.sent.map((s) => s.to.threadId).sort(), ["a", "b"]);
});

Deno.test("past the bound, the least recently used idle conversation is closed and resumed on its next message", async () => {
  await using r = await rig({ maxConversations: 2 });
  for (const chat of ["c1", "c2", "c3"]) {
    await r.channel.say(chat, `hello from ${chat}`);
    await until(() => r.channel.textsTo(chat).length === 1, `the answer in ${chat}`);
  }
  assert.equal(r.runner.status().conversations, 2);
  assert.equal(r.backend.closed, 1, "c1's conversation was closed");
  const c1 = r.sessions.get({ platform: "test", chatId: "c1" })!;
  await r.channel.say("c1", "still me");
  await until(() => r.channel.textsTo("c1").length === 2, "c1's second answer");
  assert.deepEqual(
    r.backend.sessions.get(c1),
    ["hello from c1", "still me"],
    "c1 resumed its session",
  );
  assert.equal(r.runner.status().conversations, 2);
});

Deno.test("a group that is not allowed is ignored, and the log does not hold its text", async () => {
  await using r = await rig({ access: () => allowOnly(["friend"]) });
  await r.channel.say("g1", "secret plans", { chatKind: "group", userId: "stranger" });
  await settle();
  assert.equal(r.channel.attempts.length, 0);
  assert.equal(r.backend.opened, 0);
  assert.ok(r.logs.some((line) => line.includes("test:g1") && line.includes("stranger")));
  assert.ok(r.logs.every((line) => !line.includes("secret plans")));
});

Deno.test("stop interrupts running turns, closes every conversation and stops the channels", async () => {
  const r = await rig();
  r.backend.hold("forever");
  await r.channel.say("c1", "forever");
  await r.channel.say("c2", "quick");
  await until(() => r.channel.textsTo("c2").length === 1, "c2's answer");
  await r.runner.stop();
  assert.deepEqual(r.backend.aborted, ["forever"]);
  assert.equal(r.backend.closed, r.backend.opened);
  assert.ok(r.channel.stopped);
  assert.ok(r.channel.host?.signal.aborted);
  assert.equal(r.runner.status().platforms[0].state, "stopped");
  assert.equal(r.channel.textsTo("c1").length, 0, "no partial answer at shutdown");
});

Deno.test("a chat whose stored session is gone starts a new one and keeps its id", async () => {
  await using r = await rig();
  const chat = { platform: "test", chatId: "c1" };
  r.sessions.set(chat, "ses_deleted");
  await r.channel.say("c1", "hello");
  await until(() => r.channel.sent.length === 1, "the answer");
  assert.deepEqual(r.channel.textsTo("c1"), ["echo: hello"]);
  const id = r.sessions.get(chat);
  assert.ok(id && id !== "ses_deleted");
  assert.ok(
    r.logs.some((line) => line.includes("ses_deleted") && line.includes("starting a new one")),
  );
});

Deno.test("Telegram's /command@botname form is read as the command", async () => {
  await using r = await rig();
  await r.channel.say("g1", "/stop@herald_bot", { chatKind: "group" });
  await until(() => r.channel.sent.length === 1, "the answer to /stop");
  assert.deepEqual(r.channel.textsTo("g1"), [NOTHING_RUNNING_TEXT]);
  await r.channel.say("g1", "/title@herald_bot Weekly plans");
  await until(() => r.channel.sent.length === 2, "the answer to /title");
  assert.equal(r.channel.textsTo("g1")[1], 'Title set to "Weekly plans".');
});

Deno.test("a file an answer names is sent unless protected: MEDIA: of a .env gets a line, not the file", async () => {
  const refusals: string[] = [];
  await using r = await rig({
    mediaRefusal: (path) => {
      const why = protectedPathReason(path, "/home/u", "/home/u/.herald");
      if (why) refusals.push(path);
      return why;
    },
  });
  // The scripted model answers `echo: <text>`: the MEDIA: lines come back as its answer's lines.
  await r.channel.say("c1", "here\nMEDIA:/home/u/.herald/.env\nMEDIA:/tmp/report.pdf");
  await until(() => r.channel.sent.length === 1, "the answer");
  const parts = r.channel.sent[0].reply.parts;
  assert.deepEqual(
    parts.filter((part) => part.kind === "media").map((part) => part.media.path),
    ["/tmp/report.pdf"],
  );
  assert.ok(
    r.channel.textsTo("c1").some((text) =>
      text === "(The file .env was not sent: a .env file holds secrets.)"
    ),
  );
  assert.deepEqual(refusals, ["/home/u/.herald/.env"]);
  assert.ok(r.logs.some((line) => line.includes("a file in the answer was not sent")));
});
