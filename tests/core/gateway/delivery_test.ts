/**
 * The gateway's delivery promise under fake time: every reply goes through
 * the ledger, passing failures are retried with backoff (a platform's
 * `retryAfterMs` honoured), a permanent refusal or the last attempt is
 * logged, and after a crash what was not confirmed is sent again (marked
 * as a possible duplicate when the send was mid-flight) and nothing
 * delivered is resent.
 */

import assert from "node:assert/strict";
import { type OutboundReply, PermanentSendError } from "../../../core/channels/contract.ts";
import type { Obligation } from "../../../core/channels/ports.ts";
import { RECOVERED_NOTICE } from "../../../core/channels/reply.ts";
import { DEFAULT_DELIVERY_OPTIONS, retryDelay } from "../../../core/gateway/mod.ts";
import { openDeliveryLedger } from "../../../adapters/sqlite/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { HandClock, MemoryLedger, RateLimited, TestChannel, until } from "./_fixtures.ts";
import { rig } from "./_rig.ts";

const HOUR = 60 * 60 * 1000;

function textReply(text: string): OutboundReply {
  return { parts: [{ kind: "text", text }] };
}

Deno.test("the backoff doubles from the base up to the cap, and a platform's retry-after wins", () => {
  const options = { ...DEFAULT_DELIVERY_OPTIONS, baseDelayMs: 1000, maxDelayMs: 5000 };
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => retryDelay(n, new Error("x"), options)), [
    1000,
    2000,
    4000,
    5000,
    5000,
  ]);
  assert.equal(retryDelay(1, new RateLimited(30_000), options), 30_000);
  assert.equal(retryDelay(1, new RateLimited(10 * HOUR), options), 15 * 60 * 1000);
});

Deno.test("a passing send failure is retried with backoff until the platform takes the reply", async () => {
  await using r = await rig();
  r.channel.failures.push(new Error("connection reset"), new Error("502 Bad Gateway"));
  await r.channel.say("c1", "hello");
  await until(() => r.channel.attempts.length === 1, "the first attempt");
  assert.equal(r.ledger.rows[0].status, "pending", "back to pending after a passing failure");
  assert.equal(r.runner.status().undelivered, 1);

  await r.clock.advance(999);
  assert.equal(r.channel.attempts.length, 1, "no retry before the backoff");
  await r.clock.advance(1);
  assert.equal(r.channel.attempts.length, 2);
  await r.clock.advance(2000);
  assert.equal(r.channel.attempts.length, 3);
  assert.deepEqual(r.channel.textsTo("c1"), ["echo: hello"]);
  const [row] = r.ledger.rows;
  assert.equal(row.status, "delivered");
  assert.equal(row.attempts, 3);
  assert.equal(r.runner.status().undelivered, 0);
});

Deno.test("a platform's retryAfterMs is waited out before the next attempt", async () => {
  await using r = await rig();
  r.channel.failures.push(new RateLimited(30_000));
  await r.channel.say("c1", "hello");
  await until(() => r.channel.attempts.length === 1, "the first attempt");
  await r.clock.advance(29_999);
  assert.equal(r.channel.attempts.length, 1);
  await r.clock.advance(1);
  assert.deepEqual(r.channel.textsTo("c1"), ["echo: hello"]);
});

Deno.test("a permanent refusal fails the obligation at once and is logged, never silent", async () => {
  await using r = await rig();
  r.channel.failures.push(new PermanentSendError("Forbidden: bot was blocked by the user", 403));
  await r.channel.say("c1", "hello");
  await until(() => r.ledger.rows[0]?.status === "failed", "the failed obligation");
  assert.equal(r.channel.attempts.length, 1);
  assert.equal(r.ledger.rows[0].lastError, "Forbidden: bot was blocked by the user");
  const line = r.logs.find((l) => l.includes("not delivered"));
  assert.ok(line, "the log says what was not delivered");
  assert.match(line, /Reply 1 to test:c1 not delivered: the platform refused it: Forbidden/);
  assert.ok(!line.includes("echo: hello"), "the log names the reply, not its text");
});

Deno.test("a reply whose every attempt fails is given up after the last one and logged", async () => {
  await using r = await rig({ delivery: { maxAttempts: 2 } });
  r.channel.failures.push(new Error("timeout"), new Error("timeout again"));
  await r.channel.say("c1", "hello");
  await until(() => r.channel.attempts.length === 1, "the first attempt");
  await r.clock.advance(1000);
  await until(() => r.ledger.rows[0].status === "failed", "the failed obligation");
  assert.equal(r.channel.attempts.length, 2);
  assert.ok(
    r.logs.some((l) => /not delivered: 2 attempts failed, the last with: timeout again/.test(l)),
  );
  assert.equal(r.runner.status().undelivered, 0);
});

Deno.test("replies to one chat keep their order while an earlier one waits for a retry", async () => {
  await using r = await rig();
  r.channel.failures.push(new Error("503"));
  await r.channel.say("c1", "one");
  await until(() => r.channel.attempts.length === 1, "the first attempt");
  await r.channel.say("c1", "two");
  await r.channel.say("c2", "other chat");
  await until(() => r.channel.textsTo("c2").length === 1, "the other chat's answer");
  assert.deepEqual(r.channel.textsTo("c1"), [], "c1's second answer waits behind its first");
  await r.clock.advance(1000);
  await until(() => r.channel.textsTo("c1").length === 2, "c1's answers");
  assert.deepEqual(r.channel.textsTo("c1"), ["echo: one", "echo: two"]);
});

Deno.test("after a crash mid-send the reply is sent once more with the duplicate notice, and nothing delivered is resent", async () => {
  const clock = new HandClock();
  const ledger = new MemoryLedger(clock);
  // The first gateway: its platform call never returns (the process dies before the confirmation).
  const hanging = new TestChannel();
  hanging.outbound.send = () => new Promise(() => {});
  const first = await rig({ clock, ledger, channel: hanging });
  await first.channel.say("c1", "important");
  await until(() => ledger.rows[0]?.status === "sending", "the send in flight");
  // Other rows an earlier run left: one never sent, one delivered, one too old, one out of attempts.
  const seed = (text: string, status: Obligation["status"], age: number, attempts = 0) => {
    const row = ledger.record({ to: { platform: "test", chatId: "c2" }, reply: textReply(text) });
    const stored = ledger.rows.find((candidate) => candidate.id === row.id)!;
    Object.assign(stored, { status, attempts, createdAt: clock.now() - age });
  };
  seed("never sent", "pending", HOUR);
  seed("already delivered", "delivered", HOUR, 1);
  seed("too old", "pending", 25 * HOUR);
  seed("out of attempts", "pending", HOUR, DEFAULT_DELIVERY_OPTIONS.maxAttempts);
  // The process is gone: no stop. A new gateway starts on the same ledger.

  await using second = await rig({ clock, ledger });
  await until(() => second.channel.sent.length === 2, "the redeliveries");
  await second.clock.advance(HOUR);
  assert.equal(second.channel.sent.length, 2, "nothing else was resent");
  const c1 = second.channel.sent.find((sent) => sent.to.chatId === "c1")!;
  assert.equal(c1.reply.possibleDuplicate, true);
  assert.equal(c1.texts[0], `${RECOVERED_NOTICE}\n\necho: important`);
  assert.deepEqual(c1.context, { token: "rt-c1-important" }, "the stored context goes with it");
  const c2 = second.channel.sent.find((sent) => sent.to.chatId === "c2")!;
  assert.deepEqual(c2.texts, ["never sent"], "a pending row is sent as it was planned");
  assert.equal(c2.reply.possibleDuplicate, undefined);
  // Past the bounds: given up and said so, never left pending without a word.
  assert.deepEqual(
    ledger.rows.map((row) => row.status),
    ["delivered", "delivered", "delivered", "failed", "failed"],
  );
  assert.ok(second.logs.some((line) => line.includes("2 unfinished replies")));
  assert.ok(second.logs.some((line) => /not delivered: it is older than 24 h/.test(line)));
  assert.ok(
    second.logs.some((line) =>
      line.includes(`not delivered: it was tried ${DEFAULT_DELIVERY_OPTIONS.maxAttempts} times`)
    ),
  );
});

Deno.test("a platform down for hours is tried until it is back: the reply is not given up", async () => {
  const clock = new HandClock();
  const ledger = new MemoryLedger(clock);
  const channel = new TestChannel();
  // Six hours of 503s at the longest wait (60 s): far more failures than a few quick retries.
  for (let i = 0; i < 6 * 60 + 10; i++) channel.failures.push(new Error("503"));
  await using r = await rig({ clock, ledger, channel });
  await r.channel.say("c1", "still there?");
  await until(() => r.channel.attempts.length === 1, "the first attempt");
  for (let minute = 0; minute < 7 * 60 && r.channel.textsTo("c1").length === 0; minute++) {
    await r.clock.advance(60_000);
  }
  assert.deepEqual(r.channel.textsTo("c1"), ["echo: still there?"]);
  assert.equal(ledger.rows[0].status, "delivered");
});

Deno.test("a reply failing for longer than its age bound is given up and logged", async () => {
  const clock = new HandClock();
  const ledger = new MemoryLedger(clock);
  const channel = new TestChannel();
  channel.outbound.send = () => Promise.reject(new Error("503 Service Unavailable"));
  await using r = await rig({ clock, ledger, channel, delivery: { maxAgeMs: 10 * 60_000 } });
  await r.channel.say("c1", "hello");
  await until(() => ledger.rows.length === 1, "the obligation");
  for (let minute = 0; minute < 15 && ledger.rows[0].status !== "failed"; minute++) {
    await r.clock.advance(60_000);
  }
  assert.equal(ledger.rows[0].status, "failed");
  assert.ok(r.logs.some((line) => /not delivered: \d+ attempts failed over 10 min/.test(line)));
});

Deno.test("a redelivered reply goes out before a new answer to the same chat", async () => {
  const clock = new HandClock();
  const ledger = new MemoryLedger(clock);
  ledger.record({ to: { platform: "test", chatId: "c1" }, reply: textReply("from before") });
  const channel = new TestChannel();
  channel.failures.push(new Error("still down"));
  await using r = await rig({ clock, ledger, channel });
  await r.channel.say("c1", "new question");
  await until(() => r.ledger.rows.length === 2, "the new answer's obligation");
  await r.clock.advance(1000);
  await until(() => r.channel.sent.length === 2, "both replies");
  assert.deepEqual(r.channel.textsTo("c1"), ["from before", "echo: new question"]);
});

Deno.test("stopping during a retry keeps the reply pending, and the next start sends it", async () => {
  const clock = new HandClock();
  const ledger = new MemoryLedger(clock);
  const first = await rig({ clock, ledger });
  first.channel.failures.push(new Error("503"));
  await first.channel.say("c1", "hello");
  await until(() => first.channel.attempts.length === 1, "the failed attempt");
  await first.runner.stop();
  assert.equal(ledger.rows[0].status, "pending");
  assert.ok(first.logs.some((line) => line.includes("kept for the next start")));

  await using second = await rig({ clock, ledger });
  await until(() => second.channel.sent.length === 1, "the redelivery");
  assert.deepEqual(second.channel.textsTo("c1"), ["echo: hello"]);
  assert.equal(second.channel.sent[0].reply.possibleDuplicate, undefined);
});

Deno.test("a channel that fails to start is shown as retrying and started again; the others run", async () => {
  const broken = new TestChannel("broken");
  broken.startFailures.push(new Error("getMe answered 502"));
  const working = new TestChannel("test");
  await using r = await rig({ channel: working, channels: [working, broken] });
  const state = () => Object.fromEntries(r.runner.status().platforms.map((p) => [p.platform, p]));
  assert.equal(state().test.state, "connected");
  assert.equal(state().broken.state, "retrying");
  assert.equal(state().broken.lastError, "getMe answered 502");
  await r.channel.say("c1", "hello");
  await until(() => r.channel.sent.length === 1, "the working channel's answer");

  await r.clock.advance(5000);
  assert.equal(broken.starts, 2);
  assert.equal(state().broken.state, "connected");
  assert.equal(state().broken.lastError, undefined);
  await broken.say("c9", "now me");
  await until(() => broken.sent.length === 1, "the restarted channel's answer");
});

Deno.test("on the SQLite ledger, a crash between the send and its confirmation means exactly one more send, marked", async () => {
  await using dir = await tempDir();
  const dbPath = `${dir.path}/state.db`;
  const clock = new HandClock();
  const now = () => clock.now();
  // The first gateway dies while the platform call is in flight.
  const firstLedger = openDeliveryLedger(dbPath, { now });
  const hanging = new TestChannel();
  hanging.outbound.send = () => new Promise(() => {});
  const first = await rig({
    clock,
    ledger: firstLedger,
    channel: hanging,
  });
  await first.channel.say("c1", "important");
  await until(() => firstLedger.get(1)?.status === "sending", "the send in flight");
  firstLedger.close();

  // The restarted gateway opens the same file.
  const secondLedger = openDeliveryLedger(dbPath, { now });
  try {
    const second = await rig({ clock, ledger: secondLedger });
    await until(() => secondLedger.get(1)?.status === "delivered", "the redelivery");
    assert.equal(second.channel.sent.length, 1);
    assert.equal(second.channel.sent[0].reply.possibleDuplicate, true);
    assert.equal(second.channel.sent[0].texts[0], `${RECOVERED_NOTICE}\n\necho: important`);
    assert.deepEqual(secondLedger.messageIds(1), ["m1"]);
    await second.runner.stop();

    // A third start finds nothing left to send.
    const third = await rig({ clock, ledger: secondLedger });
    await third.clock.advance(HOUR);
    assert.equal(third.channel.attempts.length, 0);
    await third.runner.stop();
  } finally {
    secondLedger.close();
  }
});
