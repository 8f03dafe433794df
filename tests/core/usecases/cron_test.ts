/**
 * `profileAutomations` and `tickProfile` over a real temporary profile
 * (config.yaml, `cron/jobs.json`, saved runs) under a fake clock: create,
 * edit, pause and resume, remove, run, references by name, status; and,
 * with a tick every fake minute, interval, weekday and cron jobs firing at
 * the right minutes across Berlin's DST changes, missed runs caught up once
 * or skipped with their reason, and one-shots completing.
 */

import assert from "node:assert/strict";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { HeraldError } from "../../../core/errors.ts";
import {
  JobInvalidError,
  type JobRecord,
  type RunReport,
  ScheduleError,
} from "../../../core/schedules/mod.ts";
import {
  type JobExecutor,
  profileAutomations,
  TICKING_WITHIN_MS,
  tickProfile,
} from "../../../core/usecases/cron.ts";
import type { ProfileContext } from "../../../core/usecases/ports.ts";
import { tempDir } from "../../_helpers.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A profile home under a temp dir, a fake clock, and an executor that records what it ran. */
async function rig(config = "") {
  const dir = await tempDir();
  const paths = profilePaths(dir.path, "default");
  if (config !== "") await Deno.writeTextFile(paths.config, config);
  const profile: ProfileContext = openProfileContext(paths, {});
  const clock = { now: Date.UTC(2026, 10, 24, 8, 0) }; // Tuesday 2026-11-24 08:00 UTC
  const ran: { id: string; plannedAt: number; at: number }[] = [];
  const execute: JobExecutor = async (job, plannedAt) => {
    ran.push({ id: job.id, plannedAt, at: clock.now });
    const file = await profile.cron().outputs.save({
      job_id: job.id,
      at: clock.now,
      planned_at: plannedAt,
      status: "ok",
      delivered: "local",
      error: null,
      output: `ran ${job.name}`,
    });
    return { job_id: job.id, status: "ok", delivered: "local", error: null, file };
  };
  const automations = profileAutomations(profile, {
    now: () => clock.now,
    execute,
    ticker: "cli:1",
    machineZone: () => "Asia/Tokyo",
  });
  const tickOnce = () =>
    tickProfile(profile, execute, { ticker: "gateway:2", pid: 2, now: () => clock.now });
  return {
    paths,
    profile,
    clock,
    ran,
    execute,
    automations,
    tickOnce,
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

/** Ticks once a fake minute from the clock's time until `to`; the runs as [job id, ISO minute]. */
async function tickEveryMinute(home: Awaited<ReturnType<typeof rig>>, to: number) {
  const from = home.ran.length;
  for (; home.clock.now <= to; home.clock.now += MINUTE) await home.tickOnce();
  return home.ran.slice(from).map((run) => [run.id, new Date(run.at).toISOString().slice(0, 16)]);
}

function runsOf(runs: string[][], job: JobRecord): string[] {
  return runs.filter(([id]) => id === job.id).map(([, at]) => at);
}

async function rejectsWith(work: Promise<unknown>, code: string, kind?: string) {
  const error = await work.then(() => assert.fail(`expected ${code}`), (error: unknown) => error);
  assert.ok(error instanceof HeraldError, String(error));
  assert.equal(error.code, code, error.message);
  if (kind !== undefined) assert.equal(error.kind, kind, error.message);
  return error;
}

async function readOrEmpty(path: string): Promise<string> {
  return await Deno.readTextFile(path).catch(() => "");
}

Deno.test("a job is created in the zone config names, with its catch-up policy; a bad one creates nothing", async () => {
  await using home = await rig("timezone: Europe/Berlin\ncron:\n  catch_up: skip\n");
  const job = await home.automations.create({
    name: "Plan the week",
    schedule: "every monday 9am",
    prompt: "Plan my week",
  });
  assert.equal(job.time_zone, "Europe/Berlin");
  assert.equal(job.catch_up, "skip");
  assert.equal(job.next_run_at, Date.UTC(2026, 10, 30, 8, 0), "Monday 09:00 CET");
  assert.equal(await home.automations.timeZone(), "Europe/Berlin");
  assert.deepEqual((await home.automations.list()).map((each) => each.id), [job.id]);

  const before = await readOrEmpty(jobsFile(home));
  await assert.rejects(
    home.automations.create({ schedule: "every blue moon", prompt: "x" }),
    ScheduleError,
  );
  await assert.rejects(home.automations.create({ schedule: "every 1h" }), JobInvalidError);
  assert.equal(await readOrEmpty(jobsFile(home)), before, "nothing was created");

  // No zone in config: the machine's.
  await using bare = await rig();
  const tokyo = await bare.automations.create({ schedule: "every monday 9am", prompt: "x" });
  assert.equal(tokyo.time_zone, "Asia/Tokyo");
  assert.equal(tokyo.next_run_at, Date.UTC(2026, 10, 30, 0, 0), "Monday 09:00 in Tokyo");
  assert.equal(tokyo.catch_up, "run_once");
});

function jobsFile(home: { paths: { cron: string } }): string {
  return `${home.paths.cron}/jobs.json`;
}

Deno.test("editing the schedule computes the next run again; clearing a prompt-only job's prompt is refused and changes nothing", async () => {
  await using home = await rig("timezone: UTC\n");
  const job = await home.automations.create({
    name: "Stand-up",
    schedule: "every 2h",
    prompt: "Go",
  });
  assert.equal(job.next_run_at, home.clock.now + 2 * HOUR);
  home.clock.now += 30 * MINUTE;
  const edited = await home.automations.edit("stand-up", { schedule: "daily at 17:00" });
  assert.deepEqual(edited.schedule, {
    kind: "cron",
    text: "daily at 17:00",
    expression: "0 17 * * *",
  });
  assert.equal(edited.next_run_at, Date.UTC(2026, 10, 24, 17, 0));

  const before = await Deno.readTextFile(jobsFile(home));
  const error = await home.automations.edit(job.id, { prompt: "" }).then(
    () => assert.fail("expected a refusal"),
    (error: unknown) => error,
  );
  assert.ok(error instanceof JobInvalidError, String(error));
  assert.equal(error.field, "prompt");
  assert.equal(await Deno.readTextFile(jobsFile(home)), before, "nothing changed");
  assert.equal((await home.automations.get(job.id)).prompt, "Go");
});

Deno.test("a paused job does not run; resumed, it runs at the schedule's next step from now", async () => {
  await using home = await rig("timezone: UTC\n");
  const start = home.clock.now;
  const job = await home.automations.create({ schedule: "every 1h", prompt: "Check" });
  home.clock.now += 10 * MINUTE;
  assert.equal((await home.automations.pause(job.id)).state, "paused");
  assert.equal((await home.automations.pause(job.id)).state, "paused", "pausing twice is fine");
  const paused = await tickEveryMinute(home, start + 5 * HOUR + 20 * MINUTE);
  assert.deepEqual(paused, [], "a paused job never runs");
  const resumed = await home.automations.resume(job.id);
  assert.equal(resumed.state, "scheduled");
  assert.equal(resumed.next_run_at, start + 6 * HOUR, "the next whole step still to come");
  const runs = await tickEveryMinute(home, start + 8 * HOUR + 30 * MINUTE);
  assert.deepEqual(runsOf(runs, job), [
    "2026-11-24T14:00",
    "2026-11-24T15:00",
    "2026-11-24T16:00",
  ], "an hour apart, nothing caught up from the pause");
});

Deno.test("removing a job removes its saved runs", async () => {
  await using home = await rig("timezone: UTC\n");
  const job = await home.automations.create({ name: "Digest", schedule: "every 1h", prompt: "x" });
  const report = await home.automations.run("digest");
  assert.equal(report.status, "ok");
  assert.equal((await home.automations.history(job.id)).length, 1);
  const outputDir = `${home.paths.cron}/output/${job.id}`;
  assert.ok((await Deno.stat(outputDir)).isDirectory);
  assert.equal((await home.automations.remove("DIGEST")).id, job.id);
  assert.deepEqual(await home.automations.list(), []);
  await assert.rejects(Deno.stat(outputDir), Deno.errors.NotFound);
  await rejectsWith(home.automations.history(job.id), "job_not_found", "not_found");
});

Deno.test("run runs a job now without moving its schedule, and refuses one another ticker runs", async () => {
  await using home = await rig("timezone: UTC\n");
  const job = await home.automations.create({ schedule: "every 1h", prompt: "x" });
  home.clock.now += 5 * MINUTE;
  const report: RunReport = await home.automations.run(job.id);
  assert.equal(report.status, "ok");
  assert.deepEqual(home.ran.map((run) => run.id), [job.id]);
  const after = await home.automations.get(job.id);
  assert.equal(after.next_run_at, job.next_run_at, "the schedule did not move");
  assert.deepEqual([after.last_run_at, after.last_status, after.claim], [
    home.clock.now,
    "ok",
    null,
  ]);

  // The gateway (another process) is running it right now.
  await home.profile.cron().jobs.update(job.id, (current) => ({
    ...current,
    claim: { by: "gateway:999", at: home.clock.now },
  }));
  const busy = await rejectsWith(home.automations.run(job.id), "job_running", "conflict");
  assert.match(busy.message, /gateway:999/);
  assert.equal(home.ran.length, 1, "it did not run twice");

  // A surface that cannot run jobs says so.
  const readOnly = profileAutomations(home.profile, { now: () => home.clock.now });
  await rejectsWith(readOnly.run(job.id), "cron_cannot_run", "usage");
});

Deno.test("jobs are named by id or by name in any case; an unknown one suggests the near name", async () => {
  await using home = await rig("timezone: UTC\n");
  const job = await home.automations.create({
    name: "Morning briefing",
    schedule: "daily at 7am",
    prompt: "Brief me",
  });
  assert.equal((await home.automations.get("morning BRIEFING")).id, job.id);
  assert.equal((await home.automations.get(` ${job.id} `)).id, job.id);
  const missing = await rejectsWith(
    home.automations.get("Morning brefing"),
    "job_not_found",
    "not_found",
  );
  assert.match(missing.message, /No job "Morning brefing"; did you mean Morning briefing\?/);
  await home.automations.create({ name: "Twin", schedule: "every 1h", prompt: "a" });
  await home.automations.create({ name: "twin", schedule: "every 1h", prompt: "b" });
  await rejectsWith(home.automations.get("TWIN"), "job_ambiguous", "usage");
});

Deno.test("status counts the jobs and says ticking only after a recent tick", async () => {
  await using home = await rig("timezone: UTC\n");
  const first = await home.automations.create({ schedule: "every 1h", prompt: "a" });
  const second = await home.automations.create({ schedule: "every 2h", prompt: "b" });
  await home.automations.pause(second.id);
  let status = await home.automations.status();
  assert.deepEqual(status.jobs, { total: 2, scheduled: 1, paused: 1, completed: 0 });
  assert.deepEqual(status.next, { job_id: first.id, name: first.name, at: first.next_run_at });
  assert.deepEqual([status.ticker, status.ticking, status.time_zone], [null, false, "UTC"]);

  await home.tickOnce();
  status = await home.automations.status();
  assert.deepEqual(status.ticker, { by: "gateway:2", at: home.clock.now, pid: 2 });
  assert.equal(status.ticking, true);
  home.clock.now += TICKING_WITHIN_MS;
  assert.equal((await home.automations.status()).ticking, false, "the ticker went quiet");
});

Deno.test("interval, weekday and cron jobs fire at the right minutes across Berlin's spring forward", async () => {
  await using home = await rig("timezone: Europe/Berlin\n");
  home.clock.now = Date.UTC(2027, 2, 26, 23, 0); // Saturday 2027-03-27 00:00 CET
  const every90 = await home.automations.create({ schedule: "every 90m", prompt: "a" });
  const monday = await home.automations.create({ schedule: "every monday 9am", prompt: "b" });
  const nightly = await home.automations.create({ schedule: "30 2 * * *", prompt: "c" });
  const runs = await tickEveryMinute(home, Date.UTC(2027, 2, 29, 9, 0));
  assert.deepEqual(runsOf(runs, nightly), [
    "2027-03-27T01:30", // 02:30 CET
    "2027-03-28T01:00", // 02:30 does not exist that night: at the jump to 03:00 CEST, once
    "2027-03-29T00:30", // 02:30 CEST
  ]);
  assert.deepEqual(runsOf(runs, monday), ["2027-03-29T07:00"], "09:00 CEST");
  const interval = runsOf(runs, every90);
  assert.equal(interval[0], "2027-03-27T00:30");
  assert.equal(interval.length, 38, "every 90 minutes of the 58 hours, the clock change aside");
  for (let i = 1; i < interval.length; i++) {
    assert.equal(Date.parse(interval[i] + "Z") - Date.parse(interval[i - 1] + "Z"), 90 * MINUTE);
  }
});

Deno.test("weekday and cron jobs fire at the right minutes across Berlin's fall back", async () => {
  await using home = await rig("timezone: Europe/Berlin\n");
  home.clock.now = Date.UTC(2026, 9, 23, 22, 0); // Saturday 2026-10-24 00:00 CEST
  const monday = await home.automations.create({ schedule: "every monday 9am", prompt: "b" });
  const nightly = await home.automations.create({ schedule: "30 2 * * *", prompt: "c" });
  const runs = await tickEveryMinute(home, Date.UTC(2026, 9, 26, 9, 0));
  assert.deepEqual(runsOf(runs, nightly), [
    "2026-10-24T00:30", // 02:30 CEST
    "2026-10-25T00:30", // 02:30 comes twice that night: the first (CEST), and only once
    "2026-10-26T01:30", // 02:30 CET
  ]);
  assert.deepEqual(runsOf(runs, monday), ["2026-10-26T08:00"], "09:00 CET");
});

Deno.test("a run missed while nothing ran runs once late, or is recorded skipped with the reason", async () => {
  await using home = await rig("timezone: UTC\n");
  const start = home.clock.now;
  const catchUp = await home.automations.create({
    name: "Catch up",
    schedule: "every 1h",
    prompt: "a",
  });
  const skipper = await home.automations.create({
    name: "Skipper",
    schedule: "every 1h",
    prompt: "b",
  });
  await home.automations.edit(skipper.id, { catch_up: "skip" });
  // Nothing ticked for five hours and seven minutes; then ticks resume every minute.
  home.clock.now = start + 5 * HOUR + 7 * MINUTE;
  const report = await home.tickOnce();
  assert.deepEqual(report.ran.map((run) => [run.id, run.late]), [[catchUp.id, true]]);
  assert.deepEqual(home.ran.map((run) => [run.id, run.plannedAt]), [
    [catchUp.id, start + HOUR],
  ], "once, not five times");
  assert.equal(report.skipped.length, 1);
  assert.equal(report.skipped[0].id, skipper.id);
  const skipped = await home.automations.get(skipper.id);
  assert.equal(skipped.last_status, "skipped");
  assert.match(
    skipped.last_error!,
    /missed the run at 2026-11-24T09:00Z \(nothing was running then\)/,
  );
  assert.match(skipped.last_error!, /skipped, as the job's catch-up policy says/);
  assert.equal(skipped.next_run_at, start + 6 * HOUR);
  const [history] = await home.automations.history(skipper.id);
  assert.equal(history.status, "skipped", "the skip shows in the job's history");
  assert.equal(history.planned_at, start + HOUR);
  assert.match(history.error ?? "", /nothing was running then/);
  home.clock.now += MINUTE;
  const runs = await tickEveryMinute(home, start + 7 * HOUR);
  assert.deepEqual(runsOf(runs, catchUp), ["2026-11-24T14:00", "2026-11-24T15:00"]);
  assert.deepEqual(runsOf(runs, skipper), ["2026-11-24T14:00", "2026-11-24T15:00"]);
});

Deno.test("a one-shot shows completed after its run and never runs again", async () => {
  await using home = await rig("timezone: UTC\n");
  const once = await home.automations.create({ name: "Remind", schedule: "in 5m", prompt: "Tea" });
  assert.equal(once.repeat.times, 1);
  const runs = await tickEveryMinute(home, home.clock.now + 2 * HOUR);
  assert.deepEqual(runsOf(runs, once), ["2026-11-24T08:05"]);
  const done = await home.automations.get(once.id);
  assert.deepEqual([done.state, done.next_run_at, done.repeat.done, done.last_status], [
    "completed",
    null,
    1,
    "ok",
  ]);
  assert.equal((await home.automations.status()).jobs.completed, 1);
  assert.equal((await home.automations.resume(once.id)).state, "completed", "not resumable");
  assert.deepEqual(await tickEveryMinute(home, home.clock.now + HOUR), []);
});
