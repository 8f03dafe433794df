/**
 * One tick of the scheduler: which jobs are due, claiming each under the
 * job store's lock so two tickers (the gateway's and a `herald cron tick`)
 * never run a job twice, the catch-up policy for runs missed while nothing
 * was running (run once late, or record a skip with its reason: never
 * advance silently), and recording how a run ended (a one-shot or a job out
 * of repeats completes).
 *
 * A claim is the job's `claim` field, written in the same locked change
 * that moves `next_run_at` on; a claim older than {@link CLAIM_STALE_MS}
 * belongs to a ticker that died, and its run is recorded as not finished.
 * Pure apart from the ports: the store, the clock and the job runner come in.
 *
 * @module
 */

import { errorText, HeraldError } from "../errors.ts";
import type { JobRecord, JobStore } from "./jobs.ts";
import { nextRunAfter } from "./schedule.ts";

/** A run this much later than planned was missed (nothing was running then). */
export const LATE_MS = 2 * 60_000;
/** A claim older than this belongs to a ticker that stopped; the job may be claimed again. */
export const CLAIM_STALE_MS = 6 * 60 * 60_000;

/** What a tick decided for a job it claimed. */
export type TickAction =
  | { kind: "run"; job: JobRecord; plannedAt: number; late: boolean }
  | { kind: "skip"; job: JobRecord; plannedAt: number; reason: string };

/** How a run ended, as the job runner reports it. */
export interface RunOutcome {
  ok: boolean;
  /** Why it failed (never a secret). */
  error?: string;
}

/** Runs one job (a model turn, a script) and reports how it ended; it may reject. */
export type JobRunner = (job: JobRecord, plannedAt: number) => Promise<RunOutcome>;

/** What one tick did, for logs and `herald cron tick` output. */
export interface TickReport {
  ran: { id: string; ok: boolean; late: boolean; error?: string }[];
  skipped: { id: string; reason: string; planned_at: number }[];
}

function iso(at: number): string {
  return new Date(at).toISOString().replace(/:\d\d\.\d{3}Z$/, "Z");
}

/** What a tick knows besides the jobs: who is alive, when the last tick was. */
export interface TickContext {
  /**
   * Whether the process holding `claim` is alive (true/false), or
   * undefined when that cannot be told: then a claim is taken over only
   * once it is {@link CLAIM_STALE_MS} old.
   */
  claimAlive?(claim: { by: string; at: number }): boolean | undefined;
  /**
   * When the last tick before this one ended (any ticker), or null when
   * none is recorded: a run planned after that (plus {@link LATE_MS}) was
   * missed while nothing ran; one planned before it is only late (the
   * ticker was busy running other jobs).
   */
  lastTickAt?: number | null;
}

/** Whether `claim` belongs to a ticker that stopped. */
function abandoned(
  claim: { by: string; at: number },
  now: number,
  context: TickContext,
): boolean {
  const alive = context.claimAlive?.(claim);
  return alive === undefined ? now - claim.at >= CLAIM_STALE_MS : !alive;
}

/**
 * Whether `job` needs this tick at `now`: it is due and nobody runs it, or
 * the ticker that claimed it stopped (a one-shot cut short is recorded then).
 */
export function isDue(job: JobRecord, now: number, context: TickContext = {}): boolean {
  if (job.state !== "scheduled") return false;
  if (job.claim !== null && abandoned(job.claim, now, context)) {
    return job.next_run_at === null || job.next_run_at <= now;
  }
  return job.claim === null && job.next_run_at !== null && job.next_run_at <= now;
}

/** When `job` runs after one planned at `plannedAt` was taken at `now`. */
function followingRun(job: JobRecord, now: number): number | null {
  if (job.schedule.kind === "once") return null;
  return nextRunAfter(job.schedule, now, { timeZone: job.time_zone, anchor: job.created_at }) ??
    null;
}

/**
 * Claims `job` for `ticker` if it is due: the change to write under the
 * store's lock, and what to do. A job not due comes back unchanged with no
 * action.
 */
export function claimDue(
  job: JobRecord,
  now: number,
  ticker: string,
  context: TickContext = {},
): { job: JobRecord; action?: TickAction } {
  if (!isDue(job, now, context)) return { job };
  const cutShort = job.claim !== null;
  const base: JobRecord = cutShort
    ? {
      ...job,
      last_status: "error",
      last_error: `the run from ${
        iso(job.claim!.at)
      } did not finish (the process running it stopped)`,
    }
    : job;
  if (job.next_run_at === null) {
    // A one-shot (or a last run) cut short: it is over, said so, never run a second time.
    const reason = base.last_error!;
    const over: JobRecord = { ...base, claim: null, state: "completed", last_run_at: now };
    return { job: over, action: { kind: "skip", job: over, plannedAt: job.claim!.at, reason } };
  }
  const plannedAt = job.next_run_at;
  const late = now - plannedAt > LATE_MS;
  // Missed only if nothing ticked since it fell due; behind a busy ticker it is late, not missed.
  const lastTick = context.lastTickAt ?? null;
  const missed = late && (lastTick === null || plannedAt > lastTick + LATE_MS);
  if (missed && job.catch_up === "skip") {
    const reason = `missed the run at ${iso(plannedAt)} (nothing was running then); ` +
      "skipped, as the job's catch-up policy says";
    const skipped: JobRecord = {
      ...base,
      claim: null,
      next_run_at: followingRun(job, now),
      last_run_at: now,
      last_status: "skipped",
      last_error: reason,
    };
    if (skipped.next_run_at === null) skipped.state = "completed";
    return { job: skipped, action: { kind: "skip", job: skipped, plannedAt, reason } };
  }
  const claimed: JobRecord = {
    ...base,
    claim: { by: ticker, at: now },
    next_run_at: followingRun(job, now),
  };
  return { job: claimed, action: { kind: "run", job: claimed, plannedAt, late } };
}

/** `job` after the run `ticker` claimed ended with `outcome` at `now`. */
export function finishRun(
  job: JobRecord,
  ticker: string,
  outcome: RunOutcome,
  now: number,
): JobRecord {
  if (job.claim?.by !== ticker) return job;
  const done = job.repeat.done + 1;
  const outOfRuns = job.repeat.times !== null && done >= job.repeat.times;
  const finished = outOfRuns || job.next_run_at === null;
  return {
    ...job,
    claim: null,
    repeat: { ...job.repeat, done },
    last_run_at: now,
    last_status: outcome.ok ? "ok" : "error",
    last_error: outcome.ok ? null : outcome.error ?? "the run failed",
    state: finished ? "completed" : job.state,
    next_run_at: finished ? null : job.next_run_at,
  };
}

/** Options of {@link tick}. */
export interface TickOptions {
  /** When the last tick before this one ended (see {@link TickContext.lastTickAt}). */
  lastTickAt?: number | null;
  /**
   * Whether the ticker `by` (`gateway:<pid>`) still runs, or undefined when
   * that cannot be told (see {@link TickContext.claimAlive}).
   */
  tickerAlive?(by: string): Promise<boolean | undefined>;
  now: () => number;
  /** Who ticks: `gateway:<pid>`, `cli:<pid>`. */
  ticker: string;
  log?: (line: string) => void;
  /** Once aborted (the gateway stops), claimed jobs not begun are handed back, not run. */
  signal?: AbortSignal;
}

/** The tick's context: the liveness of every ticker holding a claim, asked once each. */
async function tickContext(
  jobs: readonly JobRecord[],
  options: Pick<TickOptions, "lastTickAt" | "tickerAlive">,
): Promise<TickContext> {
  const alive = new Map<string, boolean | undefined>();
  if (options.tickerAlive) {
    for (const job of jobs) {
      if (job.claim === null || alive.has(job.claim.by)) continue;
      alive.set(job.claim.by, await options.tickerAlive(job.claim.by));
    }
  }
  return {
    lastTickAt: options.lastTickAt ?? null,
    claimAlive: (claim) => alive.get(claim.by),
  };
}

/** Hands job `id`, claimed by `ticker` for the run planned at `plannedAt`, back unrun. */
async function release(
  store: JobStore,
  id: string,
  ticker: string,
  plannedAt: number,
): Promise<void> {
  await store.update(
    id,
    (current) =>
      current.claim?.by === ticker
        ? { ...current, claim: null, state: "scheduled", next_run_at: plannedAt }
        : current,
  );
}

/**
 * Runs one tick: claims every due job under the store's lock (in one
 * write), runs the claimed ones one after another through `run`, and
 * records each outcome.
 * Never rejects for a job's failure: it is recorded on the job.
 *
 * @example
 * ```ts
 * const report = await tick(store, runJob, { now: () => Date.now(), ticker: `gateway:${pid}` });
 * ```
 */
export async function tick(
  store: JobStore,
  run: JobRunner,
  options: TickOptions,
): Promise<TickReport> {
  const report: TickReport = { ran: [], skipped: [] };
  const now = options.now();
  const jobs = await store.list();
  const context = await tickContext(jobs, options);
  const candidates = jobs.filter((job) => isDue(job, now, context));
  if (candidates.length === 0) return report;
  // Every due job claimed in one locked write; a job another ticker claimed meanwhile gets no action.
  const actions = new Map<string, TickAction>();
  try {
    await store.updateMany(candidates.map((job) => job.id), (current) => {
      try {
        const claimed = claimDue(current, options.now(), options.ticker, context);
        if (claimed.action) actions.set(current.id, claimed.action);
        return claimed.job;
      } catch (error) {
        // One broken job (a zone the platform does not know) does not hold the others up.
        options.log?.(`cron: job ${current.id} could not be claimed: ${errorText(error)}`);
        return current;
      }
    });
  } catch (error) {
    options.log?.(`cron: due jobs could not be claimed: ${errorText(error)}`);
    return report;
  }
  for (const candidate of candidates) {
    const action = actions.get(candidate.id);
    if (!action) continue;
    if (options.signal?.aborted && action.kind === "run") {
      // Stopping: what was claimed and not begun is handed back, to run at the next start.
      await release(store, candidate.id, options.ticker, action.plannedAt).catch((error) =>
        options.log?.(`cron: job ${candidate.id} could not be handed back: ${errorText(error)}`)
      );
      continue;
    }
    if (action.kind === "skip") {
      options.log?.(`cron: job ${candidate.id} ${action.reason}`);
      report.skipped.push({
        id: candidate.id,
        reason: action.reason,
        planned_at: action.plannedAt,
      });
      continue;
    }
    let outcome: RunOutcome;
    try {
      outcome = await run(action.job, action.plannedAt);
    } catch (error) {
      outcome = { ok: false, error: errorText(error) };
    }
    try {
      await store.update(
        candidate.id,
        (current) => finishRun(current, options.ticker, outcome, options.now()),
      );
    } catch (error) {
      options.log?.(`cron: job ${candidate.id}'s run could not be recorded: ${errorText(error)}`);
    }
    report.ran.push({
      id: candidate.id,
      ok: outcome.ok,
      late: action.late,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    });
  }
  return report;
}

/**
 * Runs job `id` now for `ticker`, whatever its schedule (`herald cron run`,
 * the dashboard's "Run now"): claimed under the store's lock like a tick's
 * run, so it never runs while another process runs it. Its schedule and
 * repeat count do not move; its last run and status do.
 *
 * A `run` that rejects is recorded as the job's error, then rethrown.
 *
 * @throws HeraldError `job_running` (kind `conflict`) when another ticker runs it now.
 * @throws HeraldError `job_not_found` from the store.
 */
export async function runNow<T>(
  store: JobStore,
  id: string,
  run: (job: JobRecord) => Promise<T>,
  options: {
    now: () => number;
    ticker: string;
    outcome: (result: T) => RunOutcome;
    tickerAlive?: TickOptions["tickerAlive"];
  },
): Promise<T> {
  const context = await tickContext(
    (await store.list()).filter((job) => job.id === id),
    { tickerAlive: options.tickerAlive },
  );
  const claimed = await store.update(id, (current) => {
    const now = options.now();
    if (current.claim !== null && !abandoned(current.claim, now, context)) {
      throw new HeraldError(
        "job_running",
        "conflict",
        `Job ${current.id} is running now (started ${
          iso(current.claim.at)
        } by ${current.claim.by}); ` +
          "wait for that run to end",
        { details: { job: current.id } },
      );
    }
    return { ...current, claim: { by: options.ticker, at: now } };
  });
  let outcome: RunOutcome;
  let result: T | undefined;
  let failure: unknown;
  try {
    result = await run(claimed);
    outcome = options.outcome(result);
  } catch (error) {
    failure = error;
    outcome = { ok: false, error: errorText(error) };
  }
  await store.update(id, (current) => {
    if (current.claim?.by !== options.ticker) return current;
    return {
      ...current,
      claim: null,
      last_run_at: options.now(),
      last_status: outcome.ok ? "ok" : "error",
      last_error: outcome.ok ? null : outcome.error ?? "the run failed",
    };
  });
  if (result === undefined) throw failure;
  return result;
}
