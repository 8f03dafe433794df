/**
 * The scheduler's tick under fake time (a minute per tick, over days):
 * interval, weekday and cron jobs fire at the right minutes across a DST
 * change; a run missed while nothing ran is run once late or skipped with
 * its reason; a one-shot completes; a job out of repeats completes; a claim
 * left by a ticker that died is taken over and said so.
 */

import assert from "node:assert/strict";
import {
  CLAIM_STALE_MS,
  type JobRecord,
  type JobStore,
  newJob,
  tick,
} from "../../../core/schedules/mod.ts";
import { HeraldError } from "../../../core/errors.ts";

const MINUTE = 60_000;

/** The job store port in memory (the file store is tested in tests/adapters/cron). */
class MemoryJobs implements JobStore {
  jobs: JobRecord[] = [];
  list() {
    return Promise.resolve(structuredClone(this.jobs));
  }
  add(job: JobRecord) {
    this.jobs.push(structuredClone(job));
    return Promise.resolve();
  }
  update(id: string, change: (job: JobRecord) => JobRecord) {
    const index = this.jobs.findIndex((job) => job.id === id);
    if (index < 0) return Promise.reject(new HeraldError("job_not_found", "not_found", id));
    this.jobs[index] = change(structuredClone(this.jobs[index]));
    return Promise.resolve(structuredClone(this.jobs[index]));
  }
  async updateMany(ids: readonly string[], change: (job: JobRecord) => JobRecord) {
    const changed: JobRecord[] = [];
    for (const id of ids) {
      if (this.jobs.some((job) => job.id === id)) changed.push(await this.update(id, change));
    }
    return changed;
  }
  remove(id: string) {
    const before = this.jobs.length;
    this.jobs = this.jobs.filter((job) => job.id !== id);
    return Promise.resolve(this.jobs.length < before);
  }
}

/** Ticks once a minute from `from` to `to`; returns every run as [job id, ISO minute]. */
async function tickEveryMinute(store: JobStore, from: number, to: number) {
  const runs: [string, string][] = [];
  let now = from;
  while (now <= to) {
    await tick(store, (job) => {
      runs.push([job.id, new Date(now).toISOString().slice(0, 16)]);
      return Promise.resolve({ ok: true });
    }, { now: () => now, ticker: "test" });
    now += MINUTE;
  }
  return runs;
}

let ids = 0;
function job(schedule: string, now: number, timeZone = "Europe/Berlin", extra = {}) {
  return newJob({ schedule, prompt: "go", ...extra }, {
    now,
    timeZone,
    randomId: () => String(++ids).padStart(8, "0"),
  });
}

Deno.test("weekday, daily and interval jobs fire at the right minutes across Berlin's spring forward", async () => {
  const start = Date.UTC(2026, 2, 27, 0, 0); // Friday 01:00 in Berlin
  const store = new MemoryJobs();
  const weekdays = job("weekdays at 08:30", start);
  const daily = job("daily at 02:30", start);
  const every6h = job("every 6h", start);
  for (const each of [weekdays, daily, every6h]) await store.add(each);
  const runs = await tickEveryMinute(store, start, Date.UTC(2026, 2, 30, 12, 0));
  const of = (id: string) => runs.filter(([job]) => job === id).map(([, at]) => at);
  assert.deepEqual(of(weekdays.id), ["2026-03-27T07:30", "2026-03-30T06:30"], "08:30 local");
  assert.deepEqual(of(daily.id), [
    "2026-03-27T01:30",
    "2026-03-28T01:30",
    "2026-03-29T01:00", // 02:30 does not exist that night: at the jump, once
    "2026-03-30T00:30",
  ]);
  assert.equal(of(every6h.id).length, 14);
  assert.equal(of(every6h.id)[0], "2026-03-27T06:00");
});

Deno.test("a one-shot runs once and completes; a job out of repeats completes", async () => {
  const start = Date.UTC(2026, 10, 24, 8, 0);
  const store = new MemoryJobs();
  const once = job("in 5m", start);
  const twice = job("every 10m", start, "UTC", { repeat: 2 });
  await store.add(once);
  await store.add(twice);
  const runs = await tickEveryMinute(store, start, start + 60 * MINUTE);
  assert.deepEqual(runs.map(([id, at]) => [id === once.id ? "once" : "twice", at]), [
    ["once", "2026-11-24T08:05"],
    ["twice", "2026-11-24T08:10"],
    ["twice", "2026-11-24T08:20"],
  ]);
  const [a, b] = await store.list();
  assert.deepEqual([a.state, a.next_run_at, a.repeat.done], ["completed", null, 1]);
  assert.deepEqual([b.state, b.next_run_at, b.repeat.done], ["completed", null, 2]);
});

Deno.test("a run missed while nothing ran is run once late, or skipped with its reason", async () => {
  const start = Date.UTC(2026, 10, 24, 8, 0);
  const store = new MemoryJobs();
  const catchUp = job("every 1h", start, "UTC");
  const skipper = { ...job("every 1h", start, "UTC"), catch_up: "skip" as const };
  await store.add(catchUp);
  await store.add(skipper);
  // Down for 5 hours: five runs of each were due.
  const later = start + 5 * 60 * MINUTE + 7 * MINUTE;
  const seen: string[] = [];
  const report = await tick(store, (job) => {
    seen.push(job.id);
    return Promise.resolve({ ok: true });
  }, { now: () => later, ticker: "test" });
  assert.deepEqual(seen, [catchUp.id], "once, not five times");
  assert.deepEqual(report.ran.map((r) => [r.id, r.late]), [[catchUp.id, true]]);
  assert.equal(report.skipped.length, 1);
  assert.match(
    report.skipped[0].reason,
    /missed the run at 2026-11-24T09:00Z \(nothing was running then\)/,
  );
  const [ran, skipped] = await store.list();
  assert.equal(ran.next_run_at, start + 6 * 60 * MINUTE, "the next whole step after now");
  assert.equal(skipped.last_status, "skipped");
  assert.match(skipped.last_error!, /skipped, as the job's catch-up policy says/);
  assert.equal(skipped.next_run_at, start + 6 * 60 * MINUTE);
});

Deno.test("a failed run is recorded with its error; a claim left by a dead ticker is taken over and said so", async () => {
  const start = Date.UTC(2026, 10, 24, 8, 0);
  const store = new MemoryJobs();
  const failing = job("every 1h", start, "UTC");
  await store.add(failing);
  await tick(store, () => Promise.reject(new Error("the script exited 3")), {
    now: () => start + 60 * MINUTE,
    ticker: "test",
  });
  let [record] = await store.list();
  assert.deepEqual([record.last_status, record.last_error, record.claim], [
    "error",
    "the script exited 3",
    null,
  ]);
  // A ticker claims the next run and dies.
  await store.update(failing.id, (current) => ({
    ...current,
    claim: { by: "dead", at: start + 120 * MINUTE },
    next_run_at: start + 120 * MINUTE,
  }));
  const soon = await tick(store, () => Promise.resolve({ ok: true }), {
    now: () => start + 121 * MINUTE,
    ticker: "test",
  });
  assert.deepEqual(soon.ran, [], "a live claim is respected");
  const staleAt = start + 120 * MINUTE + CLAIM_STALE_MS;
  let lastError: string | null = null;
  await tick(store, (claimed) => {
    lastError = claimed.last_error;
    return Promise.resolve({ ok: true });
  }, { now: () => staleAt, ticker: "test" });
  assert.match(lastError!, /did not finish \(the process running it stopped\)/);
  [record] = await store.list();
  assert.equal(record.last_status, "ok");
});

Deno.test("a one-shot whose ticker died mid-run is completed with the reason, never run again", async () => {
  const start = Date.UTC(2026, 10, 24, 8, 0);
  const store = new MemoryJobs();
  const once = job("in 5m", start, "UTC");
  await store.add(once);
  // The gateway claims it and dies before recording the run.
  await store.update(once.id, (current) => ({
    ...current,
    claim: { by: "gateway:4242", at: start + 5 * MINUTE },
    next_run_at: null,
  }));
  const seen: string[] = [];
  const report = await tick(store, (ran) => {
    seen.push(ran.id);
    return Promise.resolve({ ok: true });
  }, {
    now: () => start + 7 * MINUTE,
    ticker: "gateway:5151",
    tickerAlive: (by) => Promise.resolve(by === "gateway:5151"),
  });
  assert.deepEqual(seen, [], "a run that may have begun is not run a second time");
  assert.equal(report.skipped.length, 1);
  assert.match(report.skipped[0].reason, /did not finish/);
  const [after] = await store.list();
  assert.deepEqual([after.state, after.claim, after.last_status], ["completed", null, "error"]);
});

Deno.test("a claim is taken over as soon as its ticker is gone, never while it is alive", async () => {
  const start = Date.UTC(2026, 10, 24, 8, 0);
  const store = new MemoryJobs();
  const hourly = job("every 1h", start, "UTC");
  await store.add(hourly);
  const claimed = { by: "gateway:4242", at: start + 60 * MINUTE };
  await store.update(hourly.id, (current) => ({ ...current, claim: claimed }));
  const run = () => Promise.resolve({ ok: true });
  // Seven hours on, its ticker still runs (a long job): not taken.
  const alive = await tick(store, run, {
    now: () => start + 7 * 60 * MINUTE,
    ticker: "cli:1",
    tickerAlive: () => Promise.resolve(true),
  });
  assert.deepEqual(alive.ran, []);
  assert.deepEqual((await store.list())[0].claim, claimed);
  // Two minutes after the claim, its ticker is gone: taken over at once, said so.
  const gone = await tick(store, run, {
    now: () => start + 62 * MINUTE,
    ticker: "cli:1",
    tickerAlive: () => Promise.resolve(false),
  });
  assert.equal(gone.ran.length, 1);
  assert.equal((await store.list())[0].claim, null);
});

Deno.test("behind a busy ticker a run is late, not missed: catch_up skip still runs it", async () => {
  const start = Date.UTC(2026, 10, 24, 9, 0);
  const store = new MemoryJobs();
  const skipper = { ...job("every 1h", start - 59 * MINUTE, "UTC"), catch_up: "skip" as const };
  await store.add(skipper);
  // Due 09:01; the last tick (a long job) ended 09:04; this one is at 09:05.
  const report = await tick(store, () => Promise.resolve({ ok: true }), {
    now: () => start + 5 * MINUTE,
    ticker: "gateway:1",
    lastTickAt: start + 4 * MINUTE,
  });
  assert.deepEqual(report.skipped, []);
  assert.deepEqual(report.ran.map((r) => r.late), [true]);
});

Deno.test("a tick told to stop hands its claimed jobs back unrun, to run at the next start", async () => {
  const start = Date.UTC(2026, 10, 24, 8, 0);
  const store = new MemoryJobs();
  const a = job("in 5m", start, "UTC");
  const b = job("in 5m", start, "UTC");
  await store.add(a);
  await store.add(b);
  const stop = new AbortController();
  const seen: string[] = [];
  await tick(store, (ran) => {
    seen.push(ran.id);
    stop.abort(); // The gateway stops during the first run.
    return Promise.resolve({ ok: true });
  }, { now: () => start + 6 * MINUTE, ticker: "gateway:1", signal: stop.signal });
  assert.deepEqual(seen, [a.id]);
  const [, handedBack] = await store.list();
  assert.deepEqual(
    [handedBack.state, handedBack.claim, handedBack.next_run_at],
    ["scheduled", null, start + 5 * MINUTE],
  );
});
