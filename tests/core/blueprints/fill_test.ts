/**
 * Filling a blueprint: time and weekday slots become cron fields, each bad
 * value is one error naming the slot and what it may be, a job made
 * outside a chat delivers locally, the `schedule` slot passes a schedule
 * through as typed, broken definitions fail when loaded, and the preview
 * shows the next runs in the job's zone.
 */

import assert from "node:assert/strict";
import {
  type Blueprint,
  BlueprintInvalidError,
  BLUEPRINTS,
  defineBlueprint,
  DELIVER_SLOT,
  fillBlueprint,
  humanCron,
  humanSchedule,
  previewBlueprint,
  readSlotValue,
  timeSlot,
  wallTime,
} from "../../../core/blueprints/mod.ts";
import { NOW, ZONE } from "./_automations.ts";

function blueprint(key: string): Blueprint {
  const found = BLUEPRINTS.find((candidate) => candidate.key === key);
  assert.ok(found, key);
  return found;
}

/** The one error filling throws, checked to name `slot` and match `message`. */
function refused(
  key: string,
  values: Record<string, string>,
  slot: string,
  message: RegExp,
): void {
  assert.throws(() => fillBlueprint(blueprint(key), values, {}), (error: unknown) => {
    assert.ok(error instanceof BlueprintInvalidError, String(error));
    assert.equal(error.code, "blueprint_invalid");
    assert.equal(error.kind, "usage");
    assert.equal(error.details.slot, slot);
    assert.match(error.message, message);
    return true;
  });
}

Deno.test("time and weekday slots become the cron fields; enums fill the template", () => {
  const brief = blueprint("morning-brief");
  assert.equal(
    fillBlueprint(brief, { time: "07:15", days: "weekdays" }, {}).schedule,
    "15 7 * * 1-5",
  );
  assert.equal(
    fillBlueprint(brief, { time: "9:30pm", days: "weekends" }, {}).schedule,
    "30 21 * * 0,6",
  );
  assert.equal(fillBlueprint(brief, { days: "Thu, mon" }, {}).schedule, "0 8 * * 1,4");
  assert.equal(fillBlueprint(brief, { days: "sat,sunday" }, {}).schedule, "0 8 * * 0,6");
  assert.equal(fillBlueprint(brief, { days: "weekdays,sat,sun" }, {}).schedule, "0 8 * * *");
  assert.equal(
    fillBlueprint(blueprint("weekly-review"), { day: "fri" }, {}).schedule,
    "0 18 * * 5",
  );
  assert.equal(
    fillBlueprint(blueprint("important-mail"), { interval_min: "15" }, {}).schedule,
    "*/15 * * * *",
  );
  assert.equal(
    fillBlueprint(blueprint("hydration-move"), { interval_hours: "2", start_hour: "8" }, {})
      .schedule,
    "0 8-17/2 * * 1-5",
  );
  const meal = fillBlueprint(blueprint("meal-plan"), { diet: "VEGAN", effort: "ambitious" }, {});
  assert.match(
    meal.prompt!,
    /diet: vegan; cooking effort: ambitious/,
    "options keep their spelling",
  );
});

Deno.test("text slots fill the prompt as typed, braces and all, without being read again", () => {
  const job = fillBlueprint(
    blueprint("custom-reminder"),
    { what: "water the {plants} {time}" },
    {},
  );
  assert.equal(
    job.prompt,
    "Remind me of this, in one short and friendly line: water the {plants} {time}",
  );
  assert.equal(job.name, "Custom reminder");
  assert.deepEqual(job.skills, []);
});

Deno.test("each bad value is one error naming the slot, the value and what it may be", () => {
  refused(
    "morning-brief",
    { time: "25:00" },
    "time",
    /"25:00" is not a time; use HH:MM, 24h, e\.g\. 08:30/,
  );
  refused(
    "morning-brief",
    { time: "8.30" },
    "time",
    /Slot "time" \(What time\?\): "8\.30" is not a time/,
  );
  refused(
    "meal-plan",
    { diet: "keto" },
    "diet",
    /"keto" is not one of its values; use one of no restrictions, vegetarian, vegan, high-protein, low-carb/,
  );
  refused(
    "important-mail",
    { interval_min: "45" },
    "interval_min",
    /"45" is not one of its values; use one of 15, 30, 60/,
  );
  refused(
    "important-mail",
    { interval_min: "-5" },
    "interval_min",
    /"-5" is not a whole number above 0/,
  );
  refused(
    "price-watch",
    { interval_h: "two" },
    "interval_h",
    /"two" is not a whole number above 0; use one of 1, 3, 6, 12, 24/,
  );
  refused(
    "weekly-review",
    { day: "funday" },
    "day",
    /"funday" is not a day; use everyday, weekdays, weekends or day names/,
  );
  refused("morning-brief", { days: "mon,someday" }, "days", /"someday" is not a day/);
  refused(
    "morning-brief",
    { colour: "blue" },
    "colour",
    /^Unknown slot "colour"; the slots of morning-brief are: time, days, deliver$/,
  );
  refused("morning-brief", { tme: "08:00" }, "tme", /Unknown slot "tme" \(did you mean "time"\?\)/);
  refused("morning-brief", { constructor: "x" }, "constructor", /Unknown slot "constructor"/);
  refused(
    "custom-reminder",
    { what: "  " },
    "what",
    /Slot "what" \(What should I remind you of\?\) needs a value/,
  );
  refused(
    "morning-brief",
    { deliver: "tele gram" },
    "deliver",
    /"tele gram" is not a delivery target/,
  );
});

Deno.test("a required slot without a default and without a value is named", () => {
  const watch = defineBlueprint({
    key: "stock-watch",
    title: "Stock watch",
    description: "Watches a ticker.",
    category: "Watchers",
    schedule_template: "{minute} {hour} * * 1-5",
    prompt_template: "Report on {ticker}.",
    slots: [{ name: "ticker", type: "text", label: "Which ticker?" }, timeSlot("09:00")],
    deliver_default: "local",
    skills: [],
    tags: [],
  });
  assert.throws(
    () => fillBlueprint(watch, {}, {}),
    /Slot "ticker" \(Which ticker\?\) needs a value and has no default; give ticker="\.\.\."/,
  );
  assert.equal(fillBlueprint(watch, { ticker: "ACME" }, {}).prompt, "Report on ACME.");
});

Deno.test("origin delivery needs a chat: without one the job delivers locally", () => {
  const brief = blueprint("morning-brief");
  const local = fillBlueprint(brief, {}, {});
  assert.equal(local.deliver, "local");
  assert.equal(local.origin, undefined);
  const chat = fillBlueprint(brief, {}, { origin: "telegram:4242" });
  assert.equal(chat.deliver, "origin");
  assert.equal(chat.origin, "telegram:4242");
  assert.equal(
    fillBlueprint(brief, { deliver: "telegram:-100123" }, {}).deliver,
    "telegram:-100123",
  );
  assert.equal(
    fillBlueprint(brief, { deliver: "line" }, {}).deliver,
    "line",
    "not strict: any target",
  );
});

Deno.test("the schedule slot passes a schedule through as typed; empty, the template applies", () => {
  const reminder = blueprint("custom-reminder");
  assert.equal(fillBlueprint(reminder, { schedule: "in 45m" }, {}).schedule, "in 45m");
  assert.equal(fillBlueprint(reminder, { schedule: "" }, {}).schedule, "0 14 * * *");
  const preview = previewBlueprint(reminder, { schedule: "in 45m" }, { now: NOW, timeZone: ZONE });
  assert.deepEqual(preview, {
    schedule: "in 45m",
    schedule_human: "once at 2026-03-27 09:45",
    next_runs: [NOW + 45 * 60_000],
  });
});

Deno.test("the preview lists the next runs in the job's zone, across the change to summer time", () => {
  const preview = previewBlueprint(
    blueprint("morning-brief"),
    { time: "08:30", days: "weekdays" },
    { now: NOW, timeZone: ZONE },
  );
  assert.equal(preview.schedule, "30 8 * * 1-5");
  assert.equal(preview.schedule_human, "weekdays at 08:30");
  // Friday 08:30 has passed; Monday 30 March is summer time (UTC+2).
  assert.deepEqual(
    preview.next_runs,
    [30, 31, 32, 33, 34].map((day) => Date.UTC(2026, 2, day, 6, 30)),
  );
  assert.deepEqual(
    preview.next_runs.map((at) => wallTime(at, ZONE).slice(11)),
    Array(5).fill("08:30"),
  );
  const three = previewBlueprint(blueprint("important-mail"), {}, {
    now: NOW,
    timeZone: ZONE,
    count: 3,
  });
  assert.deepEqual(three.next_runs, [1, 2, 3].map((step) => NOW + step * 30 * 60_000));
  assert.throws(
    () =>
      previewBlueprint(blueprint("morning-brief"), { time: "noonish" }, {
        now: NOW,
        timeZone: ZONE,
      }),
    /"noonish" is not a time/,
  );
});

Deno.test("schedules read in words", () => {
  const cases: [string, string][] = [
    ["0 8 * * *", "daily at 08:00"],
    ["30 8 * * 1-5", "weekdays at 08:30"],
    ["0 10 * * 0,6", "weekends at 10:00"],
    ["15 18 * * 1,4", "Mondays and Thursdays at 18:15"],
    ["0 9 * * 0,1,3", "Mondays, Wednesdays and Sundays at 09:00"],
    ["*/30 * * * *", "every 30 minutes"],
    ["*/60 * * * *", "every hour"],
    ["0 */1 * * *", "every hour"],
    ["0 */6 * * *", "every 6 hours"],
    ["0 */2 * * 1-5", "weekdays, every 2 hours"],
    ["0 9-17/1 * * 1-5", "weekdays, every hour from 09:00 to 17:00"],
    ["0 9 1 * *", "on a schedule"],
    ["5 4 * * 2-4", "on a schedule"],
  ];
  for (const [expression, words] of cases) assert.equal(humanCron(expression), words, expression);
  assert.equal(
    humanSchedule({ kind: "interval", text: "every 2h", everyMs: 7_200_000 }, ZONE),
    "every 2 hours",
  );
  assert.equal(
    humanSchedule({ kind: "interval", text: "every 45m", everyMs: 2_700_000 }, ZONE),
    "every 45 minutes",
  );
  assert.equal(
    humanSchedule({ kind: "cron", text: "5 4 * * 2-4", expression: "5 4 * * 2-4" }, ZONE),
    "on a schedule",
  );
});

Deno.test("slot values are read forgivingly and kept in one spelling", () => {
  const days = { name: "days", type: "weekdays", label: "Which days?" } as const;
  assert.deepEqual(readSlotValue(days, "every day"), {
    type: "weekdays",
    text: "everyday",
    dow: "*",
  });
  assert.deepEqual(readSlotValue(days, "Sun and wed"), {
    type: "weekdays",
    text: "wednesday,sunday",
    dow: "0,3",
  });
  assert.deepEqual(readSlotValue(days, "monday tuesday wednesday thursday friday"), {
    type: "weekdays",
    text: "weekdays",
    dow: "1-5",
  });
  assert.deepEqual(readSlotValue(timeSlot("08:00"), "noon"), {
    type: "time",
    text: "12:00",
    hour: 12,
    minute: 0,
  });
  assert.deepEqual(readSlotValue(DELIVER_SLOT, "LOCAL"), { type: "enum", text: "local" });
});

Deno.test("a broken definition fails when loaded, naming the blueprint and the fault", () => {
  const base: Blueprint = {
    key: "ok-one",
    title: "OK",
    description: "Fine.",
    category: "Tests",
    schedule_template: "{minute} {hour} * * {dow}",
    prompt_template: "Do it.",
    slots: [timeSlot("08:00"), DELIVER_SLOT],
    deliver_default: "origin",
    skills: [],
    tags: [],
  };
  assert.equal(defineBlueprint(base).key, "ok-one");
  const broken: [Partial<Blueprint>, RegExp][] = [
    [{ key: "Not Kebab" }, /needs a kebab-case key/],
    [
      { slots: [{ name: "when", type: "date" as "time", label: "When?" }] },
      /slot "when" has type "date"; use one of time, enum, text, weekdays/,
    ],
    [{ slots: [timeSlot("08:00"), timeSlot("09:00")] }, /slot "time" is listed twice/],
    [
      { slots: [timeSlot("25:00")] },
      /the default of slot "time" is not valid: .*"25:00" is not a time/,
    ],
    [
      { prompt_template: "Do {thing}.", slots: [timeSlot("08:00")] },
      /prompt template uses \{thing\}, which is not one of its slots/,
    ],
    [
      {
        schedule_template: "0 */{gap} * * *",
        slots: [{ name: "gap", type: "text", label: "Gap?", default: "2" }],
      },
      /uses \{gap\}, which is not a strict enum slot/,
    ],
    [
      { schedule_template: "0 9 * * *" },
      /has a time slot but its schedule template lacks \{minute\} \{hour\}/,
    ],
    [
      { schedule_template: "{minute} {hour} * *" },
      /schedule template does not give a cron expression: .*has 4 fields/,
    ],
    [
      { slots: [{ name: "kind", type: "enum", label: "Kind?" }, timeSlot("08:00")] },
      /enum slot "kind" has no options/,
    ],
    [
      { slots: [{ name: "schedule", type: "time", label: "When?" }] },
      /slot "schedule" \(a schedule as typed\) must be a text slot/,
    ],
    [
      { deliver_default: "tele gram" },
      /a deliver_default "tele gram" that is not a delivery target/,
    ],
  ];
  for (const [change, message] of broken) {
    assert.throws(() => defineBlueprint({ ...base, ...change }), (error: unknown) => {
      assert.ok(error instanceof TypeError, String(error));
      assert.match(error.message, /^Blueprint "/);
      assert.match(error.message, message);
      return true;
    });
  }
});
