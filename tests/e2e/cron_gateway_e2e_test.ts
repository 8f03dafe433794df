/**
 * The scheduler inside the real `herald gateway run`: a job whose run was
 * missed while no gateway ran is run once when the gateway starts (its
 * output saved, its state recorded, `cron/ticker.json` naming the
 * gateway), and a second ticker in another process racing the gateway's
 * first tick never runs a job twice.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openJobStore } from "../../adapters/cron/job_store.ts";
import { openCronFiles } from "../../adapters/cron/outputs.ts";
import { profilePaths } from "../../adapters/home/mod.ts";
import { tickAutomations } from "../../adapters/runtime/automations.ts";
import { type JobRecord, newJob } from "../../core/schedules/mod.ts";
import { tempDir } from "../_helpers.ts";
import { runGateway, until } from "./_gateway.ts";

const HOUR = 60 * 60_000;

/** A script-only job created 70 minutes ago, `every 1h`: its run 10 minutes ago was missed. */
function missedJob(index: number, script: string): JobRecord {
  const created = Date.now() - 70 * 60_000;
  const job = newJob({ name: `Missed ${index}`, schedule: "every 1h", script, scriptOnly: true }, {
    now: created,
    timeZone: "UTC",
    randomId: () => `missed${String(index).padStart(4, "0")}`,
  });
  assert.ok(job.next_run_at! < Date.now() - 5 * 60_000, "due before the gateway starts");
  return job;
}

/** The saved run files of `jobId`. */
async function runFiles(cron: string, jobId: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(cron, "output", jobId))) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names;
}

Deno.test("the gateway runs a job missed while it was down once at start and names itself in ticker.json", async () => {
  await using home = await tempDir();
  const paths = profilePaths(home.path, "default");
  const store = openJobStore(paths.cron);
  const job = missedJob(1, "echo 'from the gateway'");
  await store.add(job);

  await using gateway = await runGateway({ root: home.path, profileHome: home.path });
  const files = openCronFiles(paths.cron);
  const ticker = await until("the first tick to be recorded", async () => {
    const mark = await files.readTicker();
    return mark?.by === `gateway:${gateway.child.pid}` ? mark : undefined;
  });
  assert.equal(ticker.pid, gateway.child.pid);

  const [record] = await store.list();
  assert.equal(record.last_status, "ok", record.last_error ?? "");
  assert.deepEqual([record.repeat.done, record.claim, record.state], [1, null, "scheduled"]);
  assert.ok(record.next_run_at! > Date.now(), "the next run is still to come");
  assert.ok(record.next_run_at! - job.next_run_at! <= 2 * HOUR);
  const saved = await runFiles(paths.cron, job.id);
  assert.equal(saved.length, 1, "run once, not once per missed hour");
  const run = await files.outputs.read(job.id, saved[0]);
  assert.deepEqual([run.status, run.output, run.planned_at], [
    "ok",
    "from the gateway",
    job.next_run_at,
  ]);
  assert.match(gateway.stdout(), new RegExp(`cron: ran ${job.id} \\(late\\): ok`));
});

Deno.test("a second ticker racing the gateway's first tick never runs a job twice", async () => {
  await using home = await tempDir();
  const paths = profilePaths(home.path, "default");
  const store = openJobStore(paths.cron);
  const count = 8;
  const jobs = Array.from({ length: count }, (_, i) => missedJob(i, `sleep 0.2; echo job ${i}`));
  for (const job of jobs) await store.add(job);

  // The gateway's first tick is under way once it says it runs; a `herald cron tick` starts then.
  await using gateway = await runGateway({ root: home.path, profileHome: home.path });
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
  const ranHere: string[] = [];
  while (true) {
    const report = await tickAutomations(paths, env, { ticker: `cli:${Deno.pid}` });
    ranHere.push(...report.ran.map((run) => run.id));
    const records = await store.list();
    if (records.every((record) => record.repeat.done > 0 && record.claim === null)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The gateway logs its runs when its tick ends.
  const ranByGateway = () =>
    [...gateway.stdout().matchAll(/cron: ran (job_\w+)/g)].map((m) => m[1]);
  await until(
    "the gateway's tick to end",
    () => Promise.resolve(ranByGateway().length + ranHere.length >= count ? true : undefined),
  );

  for (const job of jobs) {
    assert.equal((await runFiles(paths.cron, job.id)).length, 1, `${job.id} ran once`);
  }
  for (const record of await store.list()) {
    assert.deepEqual([record.repeat.done, record.last_status], [1, "ok"], record.id);
  }
  const byGateway = ranByGateway();
  assert.deepEqual(
    [...byGateway, ...ranHere].sort(),
    jobs.map((job) => job.id).sort(),
    `each job ran by one ticker (gateway: ${byGateway.length}, here: ${ranHere.length})`,
  );
});
