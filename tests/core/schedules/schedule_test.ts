/**
 * The schedule grammar: what people type becomes an interval, a one-shot or
 * a cron expression (kept with the text as typed), every bad input is one
 * clear message quoting it, and next runs land on the right minutes in a
 * time zone, across DST changes (croner's rules).
 */

import assert from "node:assert/strict";
import {
  nextRunAfter,
  parseSchedule,
  type Schedule,
  ScheduleError,
  TimeZoneError,
} from "../../../core/schedules/mod.ts";

const NOW = Date.UTC(2026, 10, 24, 8, 0); // Tuesday 2026-11-24 08:00 UTC
const BERLIN = { now: NOW, timeZone: "Europe/Berlin" };
const HOUR = 3_600_000;

function cron(text: string, context = BERLIN): string {
  const parsed = parseSchedule(text, context);
  assert.equal(parsed.kind, "cron", text);
  return (parsed as Extract<Schedule, { kind: "cron" }>).expression;
}

Deno.test("intervals and relative one-shots", () => {
  assert.deepEqual(parseSchedule("every 2h", BERLIN), {
    kind: "interval",
    text: "every 2h",
    everyMs: 2 * HOUR,
  });
  assert.equal((parseSchedule("every 30m", BERLIN) as { everyMs: number }).everyMs, 30 * 60_000);
  assert.equal((parseSchedule("Every 1 day", BERLIN) as { everyMs: number }).everyMs, 24 * HOUR);
  assert.equal((parseSchedule("every hour", BERLIN) as { everyMs: number }).everyMs, HOUR);
  assert.deepEqual(parseSchedule("in 45m", BERLIN), {
    kind: "once",
    text: "in 45m",
    at: NOW + 45 * 60_000,
  });
  assert.equal((parseSchedule("in 2 hours", BERLIN) as { at: number }).at, NOW + 2 * HOUR);
});

Deno.test("weekdays and times in words become cron expressions", () => {
  assert.equal(cron("every monday 9am"), "0 9 * * 1");
  assert.equal(cron("weekdays at 08:30"), "30 8 * * 1-5");
  assert.equal(cron("every weekday at 8:30am"), "30 8 * * 1-5");
  assert.equal(cron("weekends 10am"), "0 10 * * 0,6");
  assert.equal(cron("daily at 7pm"), "0 19 * * *");
  assert.equal(cron("every day at noon"), "0 12 * * *");
  assert.equal(cron("mon,thu at 18:15"), "15 18 * * 1,4");
  assert.equal(cron("every thursday and mondays at 12am"), "0 0 * * 1,4");
  assert.equal(cron("Sundays 9:45 PM"), "45 21 * * 0");
  assert.equal(parseSchedule("every monday 9am", BERLIN).text, "every monday 9am");
});

Deno.test("5-field cron expressions are validated and kept", () => {
  assert.equal(cron("*/15 9-17 * * 1-5"), "*/15 9-17 * * 1-5");
  assert.equal(cron("0   9 * *  1"), "0 9 * * 1");
});

Deno.test("ISO times are one-shots, read in the zone when they carry no offset", () => {
  assert.equal(
    (parseSchedule("2026-11-24T09:30", BERLIN) as { at: number }).at,
    Date.UTC(2026, 10, 24, 8, 30),
  );
  assert.equal(
    (parseSchedule("2026-11-25 09:30Z", BERLIN) as { at: number }).at,
    Date.UTC(2026, 10, 25, 9, 30),
  );
  assert.equal(
    (parseSchedule("2026-11-25T09:30-05:00", BERLIN) as { at: number }).at,
    Date.UTC(2026, 10, 25, 14, 30),
  );
  // A minute ago is still accepted (a clock a little behind); an hour ago is not.
  assert.equal(parseSchedule("2026-11-24T07:59Z", BERLIN).kind, "once");
});

Deno.test("every bad schedule is one message that quotes it and says what would do", () => {
  const cases: [string, RegExp][] = [
    ["", /is empty; type one of: every 2h/],
    ["every 0m", /"every 0m" needs a whole number above 0/],
    ["every 30s", /"every 30s" has an unknown unit "s"; use m, h, d or w/],
    ["every 30 seconds", /unknown unit "seconds"/],
    ["every monday", /"every monday" is not an interval or a weekday with a time/],
    ["every fooday 9am", /names an unknown weekday "fooday"; use monday/],
    ["every monday 25:00", /has a time "25:00" that is not one/],
    ["every monday 13pm", /has a time "13pm" that is not one/],
    ["61 * * * *", /"61 \* \* \* \*" is not a valid cron expression \(.*minute.*61/],
    ["0 9 * * * *", /has 6 fields; a cron expression has 5/],
    ["0 9 *", /has 3 fields/],
    ["2026-02-30T09:00", /is not a real date and time/],
    ["2026-11-24T06:00Z", /"2026-11-24T06:00Z" is in the past/],
    ["whenever", /"whenever" is not a schedule; type one of/],
    ["in a while", /needs an amount after "in"/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseSchedule(text, BERLIN), (error: unknown) => {
      assert.ok(error instanceof ScheduleError, `${text}: ${error}`);
      assert.equal(error.kind, "usage");
      assert.match(error.message, message, text);
      return true;
    });
  }
  assert.throws(
    () => parseSchedule("every 2h", { now: NOW, timeZone: "Mars/Olympus" }),
    (error: unknown) =>
      error instanceof TimeZoneError && /"Mars\/Olympus" is not a time zone/.test(error.message),
  );
});

Deno.test("an interval counts whole steps from its anchor; a one-shot runs once", () => {
  const every2h = parseSchedule("every 2h", BERLIN);
  assert.equal(nextRunAfter(every2h, NOW, { timeZone: "UTC", anchor: NOW }), NOW + 2 * HOUR);
  assert.equal(
    nextRunAfter(every2h, NOW + 5 * HOUR, { timeZone: "UTC", anchor: NOW }),
    NOW + 6 * HOUR,
  );
  assert.equal(nextRunAfter(every2h, NOW - HOUR, { timeZone: "UTC", anchor: NOW }), NOW);
  const once = parseSchedule("in 45m", BERLIN);
  assert.equal(nextRunAfter(once, NOW, { timeZone: "UTC" }), NOW + 45 * 60_000);
  assert.equal(nextRunAfter(once, NOW + 45 * 60_000, { timeZone: "UTC" }), undefined);
});

Deno.test("cron runs land on the zone's wall clock, across both DST changes", () => {
  const iso = (at: number | undefined) => at === undefined ? "never" : new Date(at).toISOString();
  const runs = (text: string, from: number, count: number, timeZone = "Europe/Berlin") => {
    const schedule = parseSchedule(text, { now: from, timeZone });
    const out: string[] = [];
    let at = from;
    for (let i = 0; i < count; i++) {
      const next = nextRunAfter(schedule, at, { timeZone });
      out.push(iso(next));
      if (next === undefined) break;
      at = next;
    }
    return out;
  };
  // Spring forward in Berlin (2026-03-29 02:00 → 03:00): 9am stays 9am local.
  assert.deepEqual(runs("daily at 9am", Date.UTC(2026, 2, 27, 12), 3), [
    "2026-03-28T08:00:00.000Z",
    "2026-03-29T07:00:00.000Z",
    "2026-03-30T07:00:00.000Z",
  ]);
  // A time the clocks skip runs once that night, at the jump; the next night as usual.
  assert.deepEqual(runs("daily at 02:30", Date.UTC(2026, 2, 28, 12), 2), [
    "2026-03-29T01:00:00.000Z",
    "2026-03-30T00:30:00.000Z",
  ]);
  // Fall back (2026-10-25 03:00 → 02:00): the doubled hour runs once.
  const fallback = runs("daily at 02:30", Date.UTC(2026, 9, 24, 12), 2);
  assert.equal(fallback.length, 2);
  assert.equal(new Set(fallback.map((at) => at.slice(0, 10))).size, 2, fallback.join(" "));
  // Weekdays in New York across its fall back (2026-11-01).
  assert.deepEqual(runs("weekdays at 08:30", Date.UTC(2026, 9, 30, 0), 3, "America/New_York"), [
    "2026-10-30T12:30:00.000Z",
    "2026-11-02T13:30:00.000Z",
    "2026-11-03T13:30:00.000Z",
  ]);
});
