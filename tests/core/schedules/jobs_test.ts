/**
 * Building a job from what a user gave: the schedule parsed and its first
 * run computed in the job's zone, a one-shot made to run once, a default
 * name, and every job that cannot run refused with the field named.
 */

import assert from "node:assert/strict";
import { JobInvalidError, newJob, ScheduleError } from "../../../core/schedules/mod.ts";

const NOW = Date.UTC(2026, 10, 24, 8, 0); // Tuesday 09:00 in Berlin
const CONTEXT = { now: NOW, timeZone: "Europe/Berlin", randomId: () => "0123abcd" };

Deno.test("a cron job's first run is its next minute in the job's zone", () => {
  const job = newJob({ schedule: "weekdays at 08:30", prompt: "Brief me on the day" }, CONTEXT);
  assert.equal(job.id, "job_0123abcd");
  assert.equal(job.name, "Brief me on the day");
  assert.deepEqual(job.schedule, {
    kind: "cron",
    text: "weekdays at 08:30",
    expression: "30 8 * * 1-5",
  });
  assert.equal(job.time_zone, "Europe/Berlin");
  assert.equal(job.next_run_at, Date.UTC(2026, 10, 25, 7, 30), "Wednesday 08:30 in Berlin");
  assert.deepEqual(job.repeat, { times: null, done: 0 });
  assert.equal(job.state, "scheduled");
  assert.equal(job.deliver, "local");
});

Deno.test("an interval runs one step after creation; a one-shot once, even a moment late", () => {
  const hourly = newJob({ schedule: "every 1h", script: "df -h", repeat: 3 }, CONTEXT);
  assert.equal(hourly.next_run_at, NOW + 3_600_000);
  assert.deepEqual(hourly.repeat, { times: 3, done: 0 });
  assert.equal(hourly.name, "df -h");
  const once = newJob({ schedule: "in 45m", skills: ["inbox", " inbox ", ""], repeat: 5 }, CONTEXT);
  assert.deepEqual(once.repeat, { times: 1, done: 0 });
  assert.deepEqual(once.skills, ["inbox"]);
  const late = newJob({ schedule: "2026-11-24T07:59Z", prompt: "Now" }, CONTEXT);
  assert.equal(late.next_run_at, NOW, "within the grace: runs at the next tick");
});

Deno.test("a job that cannot run is refused, naming the field", () => {
  const cases: [Parameters<typeof newJob>[0], string, RegExp][] = [
    [{ schedule: "every 1h" }, "prompt", /nothing to run: give it a prompt, a script or skills/],
    [{ schedule: "every 1h", prompt: "   " }, "prompt", /nothing to run/],
    [
      { schedule: "every 1h", prompt: "x", scriptOnly: true },
      "script",
      /script-only job needs a script/,
    ],
    [{ schedule: "every 1h", prompt: "x", repeat: 0 }, "repeat", /Repeat "0" is not a count/],
    [{ schedule: "every 1h", prompt: "x", repeat: 1.5 }, "repeat", /Repeat "1.5"/],
    [
      { schedule: "every 1h", prompt: "x", deliver: "tele gram" },
      "deliver",
      /Delivery "tele gram" is not one/,
    ],
    [
      { schedule: "every 1h", prompt: "x", deliver: "origin" },
      "deliver",
      /needs the chat the job was created from/,
    ],
  ];
  for (const [input, field, message] of cases) {
    assert.throws(() => newJob(input, CONTEXT), (error: unknown) => {
      assert.ok(error instanceof JobInvalidError, `${JSON.stringify(input)}: ${error}`);
      assert.equal(error.field, field);
      assert.equal(error.kind, "usage");
      assert.match(error.message, message);
      return true;
    });
  }
  assert.throws(() => newJob({ schedule: "whenever", prompt: "x" }, CONTEXT), ScheduleError);
  assert.equal(
    newJob({ schedule: "every 1h", prompt: "x", deliver: "origin", origin: "telegram:42" }, CONTEXT)
      .origin,
    "telegram:42",
  );
  assert.equal(
    newJob({ schedule: "every 1h", prompt: "x", deliver: "telegram:-100123:7" }, CONTEXT).deliver,
    "telegram:-100123:7",
  );
});
