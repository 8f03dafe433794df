/**
 * The gateway's inbound journal with the runner: what the platform was told
 * arrived is written down in a real state.db before `receive` resolves, and
 * settled when it needs nothing more (in the ledger's transaction when its
 * answer is recorded). A stop (or a crash) leaves the rest for the next
 * start, which answers it once, without repeating "Queued".
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openDeliveryLedger, openInboundJournal } from "../../../adapters/sqlite/mod.ts";
import type { InboundAttachment } from "../../../core/channels/contract.ts";
import { QUEUED_TEXT, REPLAY_NOTE } from "../../../core/gateway/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { HandClock, MemoryLedger, settle, TestChannel, until } from "./_fixtures.ts";
import type { Obligation } from "../../../core/channels/ports.ts";
import { allowOnly } from "./_access.ts";
import { rig } from "./_rig.ts";

const HOUR = 3_600_000;

/** A state.db with the journal and the ledger open on it, closed at the end. */
async function stateDb() {
  const dir = await tempDir();
  const path = join(dir.path, "state.db");
  const clock = new HandClock();
  const journal = openInboundJournal(path, { now: () => clock.now() });
  const ledger = openDeliveryLedger(path, { now: () => clock.now() });
  return {
    path,
    clock,
    journal,
    ledger,
    /** A runner over this state.db (and its clock); `extra` adds or overrides options. */
    rig: (extra: Parameters<typeof rig>[0] = {}) => rig({ ledger, journal, clock, ...extra }),
    async [Symbol.asyncDispose]() {
      journal.close();
      ledger.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("a message is in the journal once receive resolves, and leaves it in the transaction that records its answer", async () => {
  await using db = await stateDb();
  await using r = await db.rig();
  r.backend.hold("question");
  await r.channel.say("c1", "question");
  const [entry] = db.journal.unsettled("test");
  assert.equal(entry.message.text, "question");
  assert.deepEqual(entry.message.replyContext, { token: "rt-c1-question" });

  r.backend.release("question");
  await until(() => r.channel.sent.length === 1, "the answer");
  assert.deepEqual(db.journal.unsettled("test"), []);
  assert.equal(db.ledger.get(1)?.status, "delivered");
});

Deno.test("/stop, a dropped queue, a silent answer and a refusal settle their messages", async () => {
  await using db = await stateDb();
  await using r = await db.rig({ access: () => allowOnly(["u-c1"]) });
  r.backend.hold("long");
  await r.channel.say("c1", "long");
  await r.channel.say("c1", "behind it");
  await r.channel.say("c1", "/stop");
  await until(() => r.channel.sent.length === 2, "Queued and Stopped");
  r.backend.answers.set("quiet", "NO_REPLY");
  await r.channel.say("c1", "quiet");
  await r.channel.say("stranger", "let me in");
  await until(() => r.runner.status().running === 0, "the silent turn's end");
  await settle();
  assert.deepEqual(db.journal.unsettled("test"), [], "nothing is owed an answer");
});

Deno.test("what a stop leaves unanswered is answered at the next start, once, without a second Queued", async () => {
  await using db = await stateDb();
  const chat = { platform: "test", chatId: "c1" };
  {
    const r = await db.rig();
    r.backend.hold("first");
    await r.channel.say("c1", "first");
    await r.channel.say("c1", "second");
    await until(() => r.channel.sent.length === 1, "the Queued notice");
    assert.deepEqual(r.channel.textsTo("c1"), [QUEUED_TEXT]);
    await r.runner.stop();
    assert.deepEqual(r.backend.aborted, ["first"]);
    assert.deepEqual(db.journal.unsettled("test").map((e) => e.message.text), ["first", "second"]);
  }
  const channel = new TestChannel();
  await using again = await db.rig({ channel });
  await until(() => channel.sent.length === 2, "both answers after the restart");
  assert.deepEqual(channel.textsTo("c1"), [
    `echo: ${REPLAY_NOTE}\n\nfirst`,
    `echo: ${REPLAY_NOTE}\n\nsecond`,
  ]);
  assert.deepEqual(db.journal.unsettled("test"), []);
  assert.ok(
    again.logs.some((line) => line.includes("answering 2 messages taken in by an earlier run")),
  );
  // The replayed answers go back with the context the messages came with.
  assert.deepEqual(channel.sent[0].context, { token: "rt-c1-first" });
  assert.deepEqual(channel.sent[0].to, chat);
});

Deno.test("a journaled message older than the delivery bound is given up out loud, not answered", async () => {
  await using db = await stateDb();
  db.journal.record({
    chat: { platform: "test", chatId: "c9" },
    chatKind: "direct",
    userId: "u-c9",
    text: "ancient",
    attachments: [],
    receivedAt: 0,
  });
  // Two of a platform this gateway no longer runs: one as old, one younger.
  db.journal.record({
    chat: { platform: "gone", chatId: "g1" },
    chatKind: "direct",
    userId: "u-g1",
    text: "from a platform since disabled",
    attachments: [],
    receivedAt: 0,
  });
  await db.clock.advance(2 * HOUR);
  db.journal.record({
    chat: { platform: "gone", chatId: "g2" },
    chatKind: "direct",
    userId: "u-g2",
    text: "recent, kept for when it is enabled again",
    attachments: [],
    receivedAt: 0,
  });
  await db.clock.advance(23 * HOUR);
  const channel = new TestChannel();
  await using r = await db.rig({ channel });
  await settle();
  assert.equal(channel.sent.length, 0);
  assert.deepEqual(db.journal.unsettled("test"), []);
  assert.ok(
    r.logs.some((line) =>
      /c9: a message from user u-c9 was not answered: it is older than 24 h/.test(line)
    ),
  );
  assert.ok(r.logs.some((line) => /gone:g1: a message from user u-g1 was not answered/.test(line)));
  assert.deepEqual(db.journal.unsettled("gone").map((entry) => entry.message.chat.chatId), ["g2"]);
});

Deno.test("a replayed message's file is refused with the reason (it cannot be fetched again), its text answered", async () => {
  await using db = await stateDb();
  {
    const r = await db.rig();
    r.backend.hold("busy");
    const file: InboundAttachment = {
      kind: "file",
      name: "notes.txt",
      mimeType: "text/plain",
      size: 5,
      fetch: () => Promise.resolve(new TextEncoder().encode("notes")),
    };
    await r.channel.say("c1", "busy");
    await r.channel.say("c1", "see the file", { attachments: [file] });
    await r.runner.stop();
  }
  const channel = new TestChannel();
  await using _again = await db.rig({ channel });
  await until(() => channel.textsTo("c1").length === 3, "two answers and a refusal");
  const texts = channel.textsTo("c1");
  assert.equal(texts[0], `echo: ${REPLAY_NOTE}\n\nbusy`);
  assert.match(texts[1], /notes\.txt.*could not be fetched again; send it again/);
  assert.ok(texts[2].startsWith(`echo: ${REPLAY_NOTE}\n\nsee the file`), texts[2]);
});

Deno.test("a message the platform sends again after a restart is answered once", async () => {
  await using db = await stateDb();
  {
    const r = await db.rig();
    await r.channel.say("c1", "only once", { messageId: "m1" });
    await until(() => r.channel.sent.length === 1, "the answer");
    await r.runner.stop();
  }
  const channel = new TestChannel();
  await using again = await db.rig({ channel });
  await channel.say("c1", "only once", { messageId: "m1" });
  await channel.say("c1", "a new one", { messageId: "m2" });
  await until(() => channel.sent.length === 1, "the new message's answer");
  await settle();
  assert.deepEqual(channel.textsTo("c1"), ["echo: a new one"]);
  assert.ok(again.logs.some((line) => /message m1 came again/.test(line)));
});

Deno.test("a message taken in while the gateway stops is written down and answered at the next start", async () => {
  await using db = await stateDb();
  {
    const r = await db.rig();
    const stopping = r.runner.stop();
    await r.channel.say("c1", "just in time");
    await stopping;
    assert.equal(r.channel.sent.length, 0);
  }
  const channel = new TestChannel();
  await using _again = await db.rig({ channel });
  await until(() => channel.sent.length === 1, "the answer after the restart");
  assert.deepEqual(channel.textsTo("c1"), [`echo: ${REPLAY_NOTE}\n\njust in time`]);
});

Deno.test("when the ledger cannot record an answer, the answer still goes and its message is settled", async () => {
  await using db = await stateDb();
  class FailingLedger extends MemoryLedger {
    override record(): Obligation {
      throw new Error("database is locked");
    }
  }
  await using r = await rig({
    ledger: new FailingLedger(db.clock),
    journal: db.journal,
    clock: db.clock,
  });
  await r.channel.say("c1", "question");
  await until(() => r.channel.sent.length === 1, "the answer, sent without a record");
  await settle();
  assert.deepEqual(db.journal.unsettled("test"), [], "not answered again at the next start");
  assert.ok(r.logs.some((line) => line.includes("Delivery ledger unavailable")));
});
