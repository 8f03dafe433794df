/**
 * One scheduler tick over a big job list (issue 15): `tickProfile` as the
 * gateway's ticker runs it every minute (a fresh profile context each
 * tick, the real `cron/jobs.json` under its lock, `cron/ticker.json`
 * written), over 10,000 jobs of which 5 are due, the due jobs run by an
 * executor that returns at once (so their own run time is not counted:
 * what is left is finding them, claiming them and recording their runs).
 *
 * Each measured tick is at a new minute with a fresh batch of 5 jobs due
 * (the ones before ran and moved 30 days on). Measured in the same run and
 * alternating with it: the same tick over a list holding only the jobs
 * that fall due (the baseline: what 5 due jobs cost by themselves), and a
 * tick over the 10,000 jobs half a minute later, when none is due (the
 * scan alone). The first tick after the file was written by another
 * process (parsed whole) is reported apart.
 *
 * Alone: `deno run -A bench/cron_tick.ts [--quick]` (`--quick`: 1,000
 * jobs, 10 runs). Sizes: `BENCH_CRON_JOBS` (10,000), `BENCH_CRON_DUE` (5),
 * `BENCH_CRON_RUNS` (100).
 *
 * @module
 */

import { join } from "node:path";
import { JOBS_FILE } from "../adapters/cron/job_store.ts";
import { profilePaths } from "../adapters/home/mod.ts";
import { openProfileContext } from "../adapters/runtime/profile_context.ts";
import { type JobRecord, newJob } from "../core/schedules/mod.ts";
import { type JobExecutor, tickProfile } from "../core/usecases/cron.ts";
import { quantile } from "./gateway.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** The bench's clock starts here (a Tuesday morning). */
const T0 = Date.UTC(2026, 10, 24, 8, 0);
const WARMUP = 3;

/** Sizes of a run. */
export interface CronTickSizes {
  jobs: number;
  due: number;
  runs: number;
}

/** The figures of a run (milliseconds). */
export interface CronTickResult extends CronTickSizes {
  fileMb: number;
  bigMedianMs: number;
  bigP90Ms: number;
  idleMedianMs: number;
  idleP90Ms: number;
  baselineMedianMs: number;
  baselineP90Ms: number;
  /** The first tick after the file was written elsewhere (the list parsed whole). */
  coldMs: number;
}

/** The sizes from the environment; `quick` for small ones. */
export function cronTickSizes(quick = false): CronTickSizes {
  const size = (name: string, full: number, small: number) =>
    Number(Deno.env.get(name) ?? String(quick ? small : full));
  return {
    jobs: size("BENCH_CRON_JOBS", 10_000, 1_000),
    due: size("BENCH_CRON_DUE", 5, 5),
    runs: size("BENCH_CRON_RUNS", 100, 10),
  };
}

const SCHEDULES = ["daily at 07:00", "weekdays at 08:30", "every monday 9am", "*/15 9-17 * * 1-5"];

/**
 * `count` jobs: the first `dueBatches * due` fall due `due` at a time, one
 * batch a minute from T0 (every 30 days, so a run moves them out of the
 * way); the rest are not due for weeks, with a mix of schedules.
 */
function jobList(count: number, due: number, dueBatches: number): JobRecord[] {
  const jobs: JobRecord[] = [];
  for (let i = 0; i < count; i++) {
    const batch = Math.floor(i / due);
    const soon = batch < dueBatches;
    const job = newJob({
      name: `Job ${i}`,
      schedule: soon ? "every 30d" : SCHEDULES[i % SCHEDULES.length],
      prompt: `Check feed ${i} and tell me what changed since the last run, briefly.`,
      deliver: "telegram:-1001234567890",
      skills: i % 3 === 0 ? ["web-search"] : [],
    }, { now: T0 - DAY, timeZone: "Europe/Berlin", randomId: () => String(i).padStart(8, "0") });
    job.next_run_at = soon ? T0 + batch * MINUTE : T0 + 20 * DAY + i * MINUTE;
    jobs.push(job);
  }
  return jobs;
}

/** A profile whose `cron/jobs.json` holds `jobs`, written as the store writes a long list. */
async function profileWith(root: string, name: string, jobs: JobRecord[]) {
  const paths = profilePaths(join(root, name), "default");
  await Deno.mkdir(paths.cron, { recursive: true });
  await Deno.writeTextFile(paths.config, "timezone: Europe/Berlin\n");
  const file = join(paths.cron, JOBS_FILE);
  await Deno.writeTextFile(
    file,
    `{"version":1,"generation":"bench","jobs":[\n${
      jobs.map((job) => JSON.stringify(job)).join(",\n")
    }\n]}\n`,
  );
  return { paths, bytes: (await Deno.stat(file)).size };
}

/** Runs a job at once: its own run time is not what is measured. */
const instant: JobExecutor = (job) =>
  Promise.resolve({ job_id: job.id, status: "ok", delivered: "local", error: null, file: null });

/** One tick as the gateway ticks (a fresh profile context), its wall time and how many ran. */
async function timedTick(paths: ReturnType<typeof profilePaths>, now: number) {
  const started = performance.now();
  const report = await tickProfile(openProfileContext(paths, {}), instant, {
    ticker: "bench:1",
    pid: Deno.pid,
    now: () => now,
  });
  return { ms: performance.now() - started, ran: report.ran.length };
}

function expectRan(ran: number, wanted: number, what: string): void {
  if (ran !== wanted) throw new Error(`${what}: ${ran} jobs ran, ${wanted} expected`);
}

/** Measures the three ticks (see the module documentation). */
export async function benchCronTick(sizes: CronTickSizes): Promise<CronTickResult> {
  const root = await Deno.makeTempDir({ prefix: "herald-bench-cron-" });
  try {
    const batches = WARMUP + sizes.runs;
    const big = await profileWith(root, "big", jobList(sizes.jobs, sizes.due, batches));
    const alone = await profileWith(
      root,
      "alone",
      jobList(batches * sizes.due, sizes.due, batches),
    );
    const bigMs: number[] = [], idleMs: number[] = [], baselineMs: number[] = [];
    let coldMs = NaN;
    for (let k = 0; k < batches; k++) {
      const at = T0 + k * MINUTE + 1_000;
      // Which goes first swaps every minute.
      const order = k % 2 === 0 ? ["big", "alone"] : ["alone", "big"];
      for (const which of order) {
        const tick = await timedTick(which === "big" ? big.paths : alone.paths, at);
        expectRan(tick.ran, sizes.due, `${which} tick ${k}`);
        if (which === "big" && k === 0) coldMs = tick.ms;
        if (k < WARMUP) continue;
        (which === "big" ? bigMs : baselineMs).push(tick.ms);
      }
      const idle = await timedTick(big.paths, at + 30_000);
      expectRan(idle.ran, 0, `idle tick ${k}`);
      if (k >= WARMUP) idleMs.push(idle.ms);
    }
    return {
      ...sizes,
      fileMb: big.bytes / 1e6,
      bigMedianMs: quantile(bigMs, 0.5),
      bigP90Ms: quantile(bigMs, 0.9),
      idleMedianMs: quantile(idleMs, 0.5),
      idleP90Ms: quantile(idleMs, 0.9),
      baselineMedianMs: quantile(baselineMs, 0.5),
      baselineP90Ms: quantile(baselineMs, 0.9),
      coldMs,
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** The Markdown report of a run, under `heading` (date and machine). */
export function formatCronTickReport(result: CronTickResult, heading: string): string {
  const ms = (value: number) => value.toFixed(2);
  const count = (value: number) => value.toLocaleString("en-US");
  return [
    `## Scheduler tick (${heading})`,
    "",
    `\`tickProfile\` as the gateway's ticker runs it, over a real \`cron/jobs.json\` of ` +
    `${count(result.jobs)} jobs (${result.fileMb.toFixed(1)} MB as first written), ` +
    `${result.due} due at each tick, run by an executor that returns at once; ${result.runs} ` +
    `ticks after ${WARMUP} warm-up ones, each at a new minute with a new batch due. The ` +
    "baseline is the same tick over a list of only the jobs that fall due, alternating with it.",
    "",
    "| tick | median ms | p90 ms |",
    "| --- | --- | --- |",
    `| ${count(result.jobs)} jobs, ${result.due} due | **${ms(result.bigMedianMs)}** | ${
      ms(result.bigP90Ms)
    } |`,
    `| ${count(result.jobs)} jobs, none due | ${ms(result.idleMedianMs)} | ${
      ms(result.idleP90Ms)
    } |`,
    `| the ${result.due} due jobs alone (baseline) | ${ms(result.baselineMedianMs)} | ${
      ms(result.baselineP90Ms)
    } |`,
    "",
    `Ratio of medians (${count(result.jobs)} jobs / due jobs alone): ` +
    `**${(result.bigMedianMs / result.baselineMedianMs).toFixed(2)}x**. Median tick over ` +
    `${count(result.jobs)} jobs: **${ms(result.bigMedianMs)} ms** (target: at most 20 ms). ` +
    `The first tick after the file was written by another process (the list read whole): ` +
    `${ms(result.coldMs)} ms.`,
    "",
  ].join("\n");
}

/** Runs the bench and returns the report. */
export async function cronTickReport(sizes: CronTickSizes, heading: string): Promise<string> {
  return formatCronTickReport(await benchCronTick(sizes), heading);
}

if (import.meta.main) {
  const sizes = cronTickSizes(Deno.args.includes("--quick"));
  const heading = `${
    new Date().toISOString().slice(0, 10)
  }, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;
  console.log(await cronTickReport(sizes, heading));
}
