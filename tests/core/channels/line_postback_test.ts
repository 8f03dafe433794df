/**
 * The reply-token ledger and slow-response machine of LINE, every
 * transition walked under fake time (@sinonjs/fake-timers): PENDING →
 * READY → DELIVERED, taps in each state, ERROR after a stop and the orphan
 * it leaves, the threshold disabled, the bounds in number and age.
 */

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import type { ChatAddress, OutboundReply } from "../../../core/channels/contract.ts";
import {
  DEFAULT_SLOW_RESPONSE_TEXTS,
  parsePostbackData,
  postbackData,
  type SlowRequest,
  type SlowResponseOptions,
  SlowResponses,
} from "../../../core/channels/line/postback.ts";

const USER = "U4af4980629aaaaaaaaaaaaaaaaaaaaaaa";
const CHAT: ChatAddress = { platform: "line", chatId: USER };
const TOKEN = "38ef843bde154d9b91c21320ffd17a0f";

function answer(text: string): OutboundReply {
  return { parts: [{ kind: "text", text }] };
}

interface Rig {
  clock: FakeTimers.Clock;
  slow: SlowResponses;
  buttons: SlowRequest[];
  expired: { request: SlowRequest; replies: OutboundReply[] }[];
  /** Renews "typing" every 4 s, as the gateway does while a turn runs; returns the stopper. */
  turn(token: string): () => void;
}

function rig(options: Partial<SlowResponseOptions> = {}): Rig {
  const clock = FakeTimers.createClock(1_700_000_000_000);
  const buttons: SlowRequest[] = [];
  const expired: Rig["expired"] = [];
  const slow = new SlowResponses({
    clock: {
      now: () => clock.now,
      setTimeout: (callback, ms) => clock.setTimeout(callback, ms),
      clearTimeout: (handle) => clock.clearTimeout(handle as FakeTimers.TimerId),
    },
    thresholdMs: 45_000,
    onSlow: (request) => buttons.push(request),
    onExpired: (request, replies) => expired.push({ request, replies }),
    ...options,
  });
  const turn = (token: string) => {
    slow.alive(token);
    const handle = clock.setInterval(() => slow.alive(token), 4000);
    return () => clock.clearInterval(handle);
  };
  return { clock, slow, buttons, expired, turn };
}

/** Watches a message, runs its turn past the threshold and arms the button. */
function pending(r: Rig, token = TOKEN): { id: string; stopTurn: () => void } {
  r.slow.watch(token, CHAT, r.clock.now);
  const stopTurn = r.turn(token);
  r.clock.tick(45_000);
  const request = r.buttons.at(-1)!;
  r.slow.armed(request.id, true);
  return { id: request.id, stopTurn };
}

Deno.test("an answer before the threshold spends the reply token and no button follows", () => {
  const r = rig();
  r.slow.watch(TOKEN, CHAT, r.clock.now);
  const stop = r.turn(TOKEN);
  r.clock.tick(10_000);
  assert.deepEqual(r.slow.claim(TOKEN, r.clock.now - 10_000, answer("hi")), { kind: "reply" });
  r.clock.tick(60_000);
  stop();
  assert.equal(r.buttons.length, 0);
  // Single use: the next answer for the same message is pushed.
  assert.deepEqual(r.slow.claim(TOKEN, r.clock.now, answer("more")), { kind: "push" });
});

Deno.test("PENDING → READY → DELIVERED: the cached answer goes out on the tap", () => {
  const r = rig();
  const receivedAt = r.clock.now;
  r.slow.watch(TOKEN, CHAT, receivedAt);
  const stopTurn = r.turn(TOKEN);
  r.clock.tick(44_999);
  assert.equal(r.buttons.length, 0);
  r.clock.tick(1);
  assert.equal(r.buttons.length, 1);
  const [request] = r.buttons;
  assert.deepEqual(request.chat, CHAT);
  assert.equal(request.replyToken, TOKEN);
  assert.equal(r.slow.state(request.id), "arming");
  assert.equal(r.slow.requestOf(TOKEN)?.id, request.id);
  // An answer while LINE has not yet confirmed the button waits for it.
  assert.deepEqual(r.slow.claim(TOKEN, receivedAt, answer("x")), {
    kind: "wait",
    requestId: request.id,
  });
  r.slow.armed(request.id, true);
  assert.equal(r.slow.state(request.id), "pending");

  // A tap while PENDING: still working.
  assert.deepEqual(r.slow.tap(request.id, USER), {
    kind: "say",
    text: DEFAULT_SLOW_RESPONSE_TEXTS.stillWorking,
  });

  r.clock.tick(20_000);
  stopTurn();
  const reply = answer("the slow answer");
  assert.deepEqual(r.slow.claim(TOKEN, receivedAt, reply), { kind: "hold", requestId: request.id });
  assert.equal(r.slow.state(request.id), "ready");

  r.clock.tick(120_000);
  const tap = r.slow.tap(request.id, USER);
  assert.equal(tap.kind, "deliver");
  assert.deepEqual(tap.kind === "deliver" ? tap.replies : [], [reply]);
  // A second tap while the first one's delivery is in flight is told it is on its way.
  assert.deepEqual(r.slow.tap(request.id, USER), {
    kind: "say",
    text: DEFAULT_SLOW_RESPONSE_TEXTS.sending,
  });
  r.slow.delivered(request.id);
  assert.equal(r.slow.state(request.id), "delivered");
  assert.deepEqual(r.slow.tap(request.id, USER), {
    kind: "say",
    text: DEFAULT_SLOW_RESPONSE_TEXTS.delivered,
  });
});

Deno.test("a failed delivery of the cached answer stays READY for the next tap", () => {
  const r = rig();
  const { id, stopTurn } = pending(r);
  stopTurn();
  r.slow.claim(TOKEN, 0, answer("a"));
  assert.equal(r.slow.tap(id, USER).kind, "deliver");
  r.slow.deliveryFailed(id);
  assert.equal(r.slow.state(id), "ready");
  const again = r.slow.tap(id, USER);
  assert.equal(again.kind, "deliver");
});

Deno.test("/stop while PENDING makes it ERROR and a tap on the orphan gets the interruption text", () => {
  const r = rig({ texts: { interrupted: "Run was stopped, nothing to fetch." } });
  const { id, stopTurn } = pending(r);
  r.clock.tick(5_000);
  r.slow.cancel(TOKEN);
  stopTurn();
  assert.equal(r.slow.state(id), "error");
  r.clock.tick(60_000);
  assert.deepEqual(r.slow.tap(id, USER), {
    kind: "say",
    text: "Run was stopped, nothing to fetch.",
  });
  // Nothing is held for an ERROR request: a late answer would be pushed.
  assert.deepEqual(r.slow.claim(TOKEN, 0, answer("late")), { kind: "push" });
  assert.equal(r.slow.state(id), "error");
});

Deno.test("a stop while the button is being sent makes the request ERROR once LINE took it", () => {
  const r = rig();
  r.slow.watch(TOKEN, CHAT, r.clock.now);
  const stopTurn = r.turn(TOKEN);
  r.clock.tick(45_000);
  const [request] = r.buttons;
  r.slow.cancel(TOKEN);
  stopTurn();
  assert.equal(r.slow.state(request.id), "arming");
  r.slow.armed(request.id, true);
  assert.equal(r.slow.state(request.id), "error");
  assert.deepEqual(r.slow.tap(request.id, USER), {
    kind: "say",
    text: DEFAULT_SLOW_RESPONSE_TEXTS.interrupted,
  });
});

Deno.test("a stop before the threshold means no button, and the token stays usable", () => {
  const r = rig();
  r.slow.watch(TOKEN, CHAT, r.clock.now);
  const stopTurn = r.turn(TOKEN);
  r.clock.tick(10_000);
  r.slow.cancel(TOKEN);
  stopTurn();
  r.clock.tick(30_000);
  assert.equal(r.buttons.length, 0);
  assert.deepEqual(r.slow.claim(TOKEN, 0, answer("Stopped.")), { kind: "reply" });
});

Deno.test("a refused button forgets the request and the answer is pushed", () => {
  const r = rig();
  r.slow.watch(TOKEN, CHAT, r.clock.now);
  const stopTurn = r.turn(TOKEN);
  r.clock.tick(45_000);
  stopTurn();
  const [request] = r.buttons;
  r.slow.armed(request.id, false);
  assert.equal(r.slow.state(request.id), undefined);
  assert.deepEqual(r.slow.claim(TOKEN, 0, answer("a")), { kind: "push" });
});

Deno.test("threshold 0 disables the button: a late answer is pushed", () => {
  const r = rig({ thresholdMs: 0 });
  const receivedAt = r.clock.now;
  r.slow.watch(TOKEN, CHAT, receivedAt);
  const stopTurn = r.turn(TOKEN);
  r.clock.tick(300_000);
  stopTurn();
  assert.equal(r.buttons.length, 0);
  assert.deepEqual(r.slow.claim(TOKEN, receivedAt, answer("late")), { kind: "push" });
});

Deno.test("a turn that ended without an answer (typing stopped) gets no button", () => {
  const r = rig();
  r.slow.watch(TOKEN, CHAT, r.clock.now);
  const stopTurn = r.turn(TOKEN);
  r.clock.tick(8_000);
  stopTurn(); // a silent answer: nothing sent, nothing cancelled
  r.clock.tick(60_000);
  assert.equal(r.buttons.length, 0);
});

Deno.test("a message whose turn never starts (a stranger the gateway ignores) gets no button", () => {
  const r = rig();
  r.slow.watch(TOKEN, CHAT, r.clock.now);
  r.clock.tick(120_000);
  assert.equal(r.buttons.length, 0);
});

Deno.test("a threshold past the reply token's life sends no button: the answer is pushed", () => {
  const r = rig({ thresholdMs: 90_000 });
  const receivedAt = r.clock.now;
  r.slow.watch(TOKEN, CHAT, receivedAt);
  const stopTurn = r.turn(TOKEN);
  r.clock.tick(95_000);
  stopTurn();
  assert.equal(r.buttons.length, 0);
  assert.deepEqual(r.slow.claim(TOKEN, receivedAt, answer("late")), { kind: "push" });
});

Deno.test("a token the machine never watched (a resend after a restart) replies once while fresh", () => {
  const r = rig();
  const fresh = r.clock.now - 5_000;
  assert.deepEqual(r.slow.claim("aa".repeat(16), fresh, answer("a")), { kind: "reply" });
  assert.deepEqual(r.slow.claim("aa".repeat(16), fresh, answer("b")), { kind: "push" });
  assert.deepEqual(r.slow.claim("bb".repeat(16), r.clock.now - 120_000, answer("c")), {
    kind: "push",
  });
  assert.deepEqual(r.slow.claim(undefined, undefined, answer("d")), { kind: "push" });
});

Deno.test("a tap from another chat, or on an unknown request, is answered as unknown", () => {
  const r = rig();
  const { id, stopTurn } = pending(r);
  stopTurn();
  const unknown = { kind: "say", text: DEFAULT_SLOW_RESPONSE_TEXTS.unknown };
  assert.deepEqual(r.slow.tap(id, "U" + "b".repeat(32)), unknown);
  assert.deepEqual(r.slow.tap("0".repeat(32), USER), unknown);
});

Deno.test("requests are bounded in number: an untapped READY answer pushed out goes to onExpired", () => {
  const r = rig({ maxRequests: 2 });
  const tokens = ["a", "b", "c"].map((c) => c.repeat(32));
  const ids: string[] = [];
  for (const token of tokens) {
    const { id, stopTurn } = pending(r, token);
    stopTurn();
    r.slow.claim(token, 0, answer(`answer for ${token[0]}`));
    ids.push(id);
  }
  assert.equal(r.slow.requestCount, 2);
  assert.equal(r.expired.length, 1);
  assert.equal(r.expired[0].request.id, ids[0]);
  assert.deepEqual(r.expired[0].replies, [answer("answer for a")]);
  assert.equal(r.slow.state(ids[0]), undefined);
});

Deno.test("requests are bounded in age: an old READY answer is handed over to be pushed", () => {
  const r = rig({ maxAgeMs: 600_000 });
  const { id, stopTurn } = pending(r);
  stopTurn();
  r.slow.claim(TOKEN, 0, answer("kept"));
  r.clock.tick(600_001);
  assert.deepEqual(r.slow.tap(id, USER), {
    kind: "say",
    text: DEFAULT_SLOW_RESPONSE_TEXTS.unknown,
  });
  assert.equal(r.expired.length, 1);
  assert.deepEqual(r.expired[0].replies, [answer("kept")]);
});

Deno.test("the button's postback data names the request and nothing else is read as ours", () => {
  const id = "0123456789abcdef0123456789abcdef";
  const data = postbackData(id);
  assert.ok(data.length <= 300);
  assert.equal(parsePostbackData(data), id);
  assert.equal(parsePostbackData("action=approve&id=42"), undefined);
  assert.equal(parsePostbackData(`${data}x`), undefined);
});

Deno.test("a negative threshold is refused", () => {
  assert.throws(() => rig({ thresholdMs: -1 }), RangeError);
});
