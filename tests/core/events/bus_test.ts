/**
 * The event bus: filters, order, the bounded queue of a slow subscriber,
 * failing handlers and the schemas every event is checked against.
 */

import assert from "node:assert/strict";
import {
  EVENT_TYPES,
  EventBus,
  type EventInput,
  eventOf,
  type HeraldEvent,
  parseEvent,
} from "../../../core/events/mod.ts";

const subject = { profile: "work", session_id: "ses_1", source: "cli" };

function delta(text: string, over: Partial<typeof subject> = {}): EventInput {
  return eventOf("message.delta", { ...subject, ...over }, { text });
}

/** Resolves once queued deliveries have run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("subscribers get the events their filter matches, stamped and in order", async () => {
  let clock = 1000;
  const bus = new EventBus({ now: () => clock++ });
  const all: HeraldEvent[] = [];
  const work: string[] = [];
  const tools: string[] = [];
  const session: string[] = [];
  bus.subscribe({}, (event) => void all.push(event));
  bus.subscribe({ profile: "work" }, (event) => void work.push(event.type));
  bus.subscribe({ types: ["tool.start"] }, (event) => void tools.push(event.profile));
  bus.subscribe({ sessionId: "ses_2" }, (event) => void session.push(event.type));

  const first = bus.publish(delta("Hel"));
  assert.deepEqual([first.seq, first.at], [1, 1000]);
  bus.publish(delta("lo", { profile: "home", session_id: "ses_2" }));
  bus.publish(eventOf("tool.start", { ...subject, profile: "home" }, {
    tool_call_id: "call_1",
    name: "terminal",
    arguments: "{}",
  }));
  assert.equal(all.length, 0, "publishing does not wait for subscribers");
  await settle();

  assert.deepEqual(all.map((e) => [e.seq, e.type, e.profile]), [
    [1, "message.delta", "work"],
    [2, "message.delta", "home"],
    [3, "tool.start", "home"],
  ]);
  assert.deepEqual(all[0], { type: "message.delta", ...subject, seq: 1, at: 1000, text: "Hel" });
  assert.deepEqual(work, ["message.delta"]);
  assert.deepEqual(tools, ["home"]);
  assert.deepEqual(session, ["message.delta"]);
});

Deno.test("a slow subscriber holds a bounded queue, loses the oldest and is told how many", async () => {
  const bus = new EventBus();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const slow: [string, number][] = [];
  const fast: string[] = [];
  bus.subscribe({}, async (event, { dropped }) => {
    if (event.type === "message.delta") slow.push([event.text, dropped]);
    await gate;
  }, { queueLimit: 3 });
  bus.subscribe({}, (event) => void (event.type === "message.delta" && fast.push(event.text)));

  bus.publish(delta("0"));
  await settle();
  for (let i = 1; i < 10; i++) bus.publish(delta(String(i)));
  await settle();
  assert.deepEqual(slow, [["0", 0]], "the slow handler is still on its first event");
  assert.equal(fast.length, 10, "a slow subscriber does not hold up the others");
  assert.equal(bus.waiting, 3, "at most queueLimit events wait");

  release();
  await settle();
  assert.deepEqual(slow, [["0", 0], ["7", 6], ["8", 0], ["9", 0]]);
  assert.equal(bus.waiting, 0);
});

Deno.test("unsubscribing stops delivery at once, queued events included", async () => {
  const bus = new EventBus();
  const seen: string[] = [];
  const stop = bus.subscribe({}, (event) => void seen.push(event.type));
  bus.publish(delta("a"));
  stop();
  bus.publish(delta("b"));
  await settle();
  assert.deepEqual(seen, []);
  assert.equal(bus.subscriberCount, 0);
  stop();
});

Deno.test("a failing handler is reported and keeps receiving", async () => {
  const errors: string[] = [];
  const bus = new EventBus({
    onHandlerError: (error, event) => errors.push(`${event.seq}: ${(error as Error).message}`),
  });
  const seen: number[] = [];
  bus.subscribe({}, (event) => {
    seen.push(event.seq);
    if (event.seq === 1) throw new Error("boom");
    return Promise.reject(new Error("async boom"));
  });
  bus.publish(delta("a"));
  bus.publish(delta("b"));
  await settle();
  assert.deepEqual(seen, [1, 2]);
  assert.deepEqual(errors, ["1: boom", "2: async boom"]);
});

Deno.test("events are checked against their schema", () => {
  const bus = new EventBus();
  assert.throws(
    () => bus.publish({ type: "message.delta", ...subject } as unknown as EventInput),
    /Invalid "message\.delta" event/,
  );
  assert.throws(() => bus.subscribe({}, () => {}, { queueLimit: 0 }), RangeError);
  const event = bus.publish(eventOf("approval.resolved", subject, {
    rule_key: "rm_recursive",
    choice: "once",
    approved: true,
  }));
  assert.deepEqual(parseEvent(JSON.parse(JSON.stringify(event))), event);
  assert.throws(() => parseEvent({ ...event, choice: "maybe" }));
  assert.ok(EVENT_TYPES.includes("session.started") && EVENT_TYPES.includes("tool.complete"));
  assert.equal(new Set(EVENT_TYPES).size, EVENT_TYPES.length);
});
