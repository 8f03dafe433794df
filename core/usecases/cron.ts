/**
 * Scheduled jobs, as every surface drives them: {@link profileAutomations}
 * binds a profile's `cron/` folder ({@link ProfileContext.cron}) and its
 * config (`timezone`, `cron.*`) into core's {@link Automations}; `herald
 * cron`, `/cron`, `/blueprint`, the agent's `cronjob` tool and the
 * dashboard all call it, and all end in its `create`. {@link tickProfile}
 * is one scheduler tick (the gateway's every minute, `herald cron tick`).
 * Running a job is the surface's {@link JobExecutor} (adapters wire the
 * script, the model and the platforms into core/schedules/run.ts).
 *
 * @module
 */

import { closest } from "../_util/suggest.ts";
import { errorText, HeraldError } from "../errors.ts";
import {
  type Automations,
  type CronStatus,
  type JobChanges,
  JobInvalidError,
  JobRecord,
  newJob,
  nextRunAfter,
  parseSchedule,
  runNow,
  type RunOutcome,
  type RunReport,
  tick,
  type TickReport,
} from "../schedules/mod.ts";
import { JobDelivery } from "../schedules/jobs.ts";
import type { HeraldConfig } from "../config/schema.ts";
import { loadExpandedConfig } from "./config.ts";
import type { ProfileContext } from "./ports.ts";

/** Runs one claimed job (planned at `plannedAt`) and reports how it went. */
export type JobExecutor = (job: JobRecord, plannedAt: number) => Promise<RunReport>;

/** Options of {@link profileAutomations}. */
export interface AutomationOptions {
  /** The clock (tests pass a fake one). */
  now?: () => number;
  /** Runs jobs; absent: this surface cannot run them (`run` is refused). */
  execute?: JobExecutor;
  /** Who runs a manual run (`cli:<pid>`, `dashboard:<pid>`). */
  ticker?: string;
  /** The machine's zone, when config names none (tests pass one). */
  machineZone?: () => string;
  /** Whether the ticker holding a claim (`gateway:<pid>`) still runs; undefined: cannot tell. */
  tickerAlive?: (by: string) => Promise<boolean | undefined>;
}

/** How a run report reads as a tick's outcome. */
function outcomeOf(report: RunReport): RunOutcome {
  return report.status === "error" ? { ok: false, error: report.error ?? "the run failed" } : {
    ok: true,
  };
}

/** A tick counts as recent for this long (the gateway ticks every minute). */
export const TICKING_WITHIN_MS = 3 * 60_000;

function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** The cron settings a profile's config gives (`timezone` and `cron.*`), defaults filled. */
export interface CronSettings {
  timeZone: string;
  wrapResponse: boolean;
  catchUp: "run_once" | "skip";
  scriptTimeoutMs: number;
  runTimeoutMs: number;
}

/** The cron settings in `config` (already loaded). */
export function cronSettingsOf(
  config: HeraldConfig,
  machineZone: () => string = machineTimeZone,
): CronSettings {
  return {
    timeZone: config.timezone ?? machineZone(),
    wrapResponse: config.cron.wrap_response,
    catchUp: config.cron.catch_up,
    scriptTimeoutMs: config.cron.script_timeout * 1000,
    runTimeoutMs: config.cron.run_timeout * 1000,
  };
}

/** The cron settings of `profile`, its config read now. */
export async function cronSettings(
  profile: ProfileContext,
  machineZone: () => string = machineTimeZone,
): Promise<CronSettings> {
  return cronSettingsOf((await loadExpandedConfig(profile)).config, machineZone);
}

/** The order jobs are listed in: scheduled by next run, then paused, then completed. */
function listOrder(a: JobRecord, b: JobRecord): number {
  const rank = (job: JobRecord) => job.state === "scheduled" ? 0 : job.state === "paused" ? 1 : 2;
  return rank(a) - rank(b) || (a.next_run_at ?? Infinity) - (b.next_run_at ?? Infinity) ||
    a.created_at - b.created_at;
}

/** The job `ref` names: an id, or a unique name (case-insensitive). */
function findJob(jobs: readonly JobRecord[], ref: string): JobRecord {
  const wanted = ref.trim();
  const byId = jobs.find((job) => job.id === wanted);
  if (byId) return byId;
  const named = jobs.filter((job) => job.name.toLowerCase() === wanted.toLowerCase());
  if (named.length === 1) return named[0];
  if (named.length > 1) {
    throw new HeraldError(
      "job_ambiguous",
      "usage",
      `${named.length} jobs are named "${wanted}" (${
        named.map((job) => job.id).join(", ")
      }); give the id`,
      { details: { job: wanted } },
    );
  }
  const near = closest(wanted, jobs.flatMap((job) => [job.id, job.name]));
  throw new HeraldError(
    "job_not_found",
    "not_found",
    `No job "${wanted}"${near ? `; did you mean ${near}?` : ""} (herald cron list shows them)`,
    { details: { job: wanted } },
  );
}

function cleared(value: string | null | undefined): string | null {
  const text = value?.trim() ?? "";
  return text === "" ? null : text;
}

/** `job` with `changes` applied at `now`, checked like a new job. */
function applyChanges(
  job: JobRecord,
  changes: JobChanges,
  now: number,
  timeZone: string,
): JobRecord {
  const next: JobRecord = { ...job };
  if (changes.name !== undefined) {
    const name = changes.name.trim();
    if (name === "") throw new JobInvalidError("name", "A job's name cannot be empty");
    next.name = name.slice(0, 200);
  }
  if (changes.prompt !== undefined) next.prompt = cleared(changes.prompt);
  if (changes.script !== undefined) next.script = cleared(changes.script);
  let skills = changes.skills !== undefined ? [...changes.skills] : [...job.skills];
  skills.push(...(changes.addSkills ?? []));
  const removing = new Set((changes.removeSkills ?? []).map((skill) => skill.trim()));
  skills = [...new Set(skills.map((skill) => skill.trim()))]
    .filter((skill) => skill !== "" && !removing.has(skill));
  next.skills = skills;
  if (next.script_only && next.script === null) {
    throw new JobInvalidError(
      "script",
      "A script-only job needs a script; give one, or remove the job and create it with a prompt",
    );
  }
  if (next.prompt === null && next.script === null && next.skills.length === 0) {
    throw new JobInvalidError(
      "prompt",
      "The job would have nothing to run: keep a prompt, a script or skills to load",
    );
  }
  if (changes.deliver !== undefined) {
    const deliver = changes.deliver.trim() || "local";
    if (!JobDelivery.safeParse(deliver).success) {
      throw new JobInvalidError(
        "deliver",
        `Delivery "${deliver}" is not one; use local, origin, a platform (telegram) or ` +
          "platform:chat_id (telegram:-1001234567890)",
      );
    }
    if (deliver === "origin" && job.origin === null) {
      throw new JobInvalidError(
        "deliver",
        "Delivery to the origin needs the chat the job was created from; this job was not " +
          "created from a chat, so give a platform target or local",
      );
    }
    next.deliver = deliver;
  }
  if (changes.repeat !== undefined) {
    const times = changes.repeat;
    if (times !== null && (!Number.isInteger(times) || times < 1)) {
      throw new JobInvalidError(
        "repeat",
        `Repeat "${times}" is not a count; give a whole number of runs from 1, or forever`,
      );
    }
    next.repeat = { ...job.repeat, times: next.schedule.kind === "once" ? 1 : times };
  }
  if (changes.catch_up !== undefined) next.catch_up = changes.catch_up;
  if (changes.restrictDelivery) next.restrict_delivery = true;
  if (changes.schedule !== undefined) {
    const schedule = parseSchedule(changes.schedule, { now, timeZone });
    next.schedule = schedule;
    next.time_zone = timeZone;
    if (schedule.kind === "once") next.repeat = { times: 1, done: 0 };
    if (next.state === "completed") next.state = "scheduled";
    next.next_run_at = next.state === "paused" ? null : firstRun(next, now);
  }
  if (
    next.state === "scheduled" && next.repeat.times !== null &&
    next.repeat.done >= next.repeat.times
  ) {
    next.state = "completed";
    next.next_run_at = null;
  } else if (next.state === "completed" && changes.repeat !== undefined) {
    next.state = "scheduled";
    next.next_run_at = firstRun(next, now);
  }
  return JobRecord.parse(next);
}

/**
 * The first run of `job` from `now` on (a one-shot whose time passed runs
 * at once). An interval keeps counting from the job's creation, as the
 * ticker does, so the run after this one is a whole step later.
 */
function firstRun(job: JobRecord, now: number): number | null {
  if (job.schedule.kind === "once") {
    return job.repeat.done > 0 ? null : Math.max(job.schedule.at, now);
  }
  return nextRunAfter(job.schedule, now, { timeZone: job.time_zone, anchor: job.created_at }) ??
    null;
}

/**
 * The scheduled jobs of `profile` as one {@link Automations}.
 *
 * @example
 * ```ts
 * const automations = profileAutomations(profile, { execute, ticker: `cli:${Deno.pid}` });
 * const job = await automations.create({ schedule: "weekdays at 08:30", prompt: "Brief me" });
 * ```
 */
export function profileAutomations(
  profile: ProfileContext,
  options: AutomationOptions = {},
): Automations {
  const now = options.now ?? Date.now;
  const files = profile.cron();
  const settings = () => cronSettings(profile, options.machineZone);
  const resolve = async (ref: string) => findJob(await files.jobs.list(), ref);
  const change = async (ref: string, edit: (job: JobRecord, zone: string) => JobRecord) => {
    const job = await resolve(ref);
    const { timeZone } = await settings();
    return await files.jobs.update(job.id, (current) => edit(current, timeZone));
  };
  return {
    profile: profile.name,
    timeZone: async () => (await settings()).timeZone,
    list: async () => (await files.jobs.list()).sort(listOrder),
    get: resolve,
    async create(input) {
      const { timeZone, catchUp } = await settings();
      const job = { ...newJob(input, { now: now(), timeZone }), catch_up: catchUp };
      await files.jobs.add(job);
      return job;
    },
    edit: (ref, changes) => change(ref, (job, zone) => applyChanges(job, changes, now(), zone)),
    pause: (ref) =>
      change(ref, (job) => job.state === "scheduled" ? { ...job, state: "paused" } : job),
    resume: (ref) =>
      change(ref, (job) => {
        if (job.state !== "paused") return job;
        const resumed: JobRecord = { ...job, state: "scheduled" };
        resumed.next_run_at = firstRun(resumed, now());
        if (resumed.next_run_at === null) resumed.state = "completed";
        return resumed;
      }),
    async remove(ref) {
      const job = await resolve(ref);
      await files.jobs.remove(job.id);
      await files.outputs.removeAll(job.id);
      return job;
    },
    async run(ref) {
      const execute = options.execute;
      if (!execute) {
        throw new HeraldError(
          "cron_cannot_run",
          "usage",
          "Jobs cannot be run from here; run `herald cron run <id>` in a terminal",
        );
      }
      const job = await resolve(ref);
      return await runNow(files.jobs, job.id, (claimed) => execute(claimed, now()), {
        now,
        ticker: options.ticker ?? `run:${profile.name}`,
        outcome: outcomeOf,
        ...(options.tickerAlive ? { tickerAlive: options.tickerAlive } : {}),
      });
    },
    history: async (ref, limit) => files.outputs.list((await resolve(ref)).id, limit),
    output: async (ref, file) => files.outputs.read((await resolve(ref)).id, file),
    async status(): Promise<CronStatus> {
      const jobs = await files.jobs.list();
      const { timeZone } = await settings();
      const ticker = await files.readTicker();
      const scheduled = jobs.filter((job) => job.state === "scheduled");
      const next = scheduled.filter((job) => job.next_run_at !== null).sort(listOrder)[0];
      return {
        profile: profile.name,
        time_zone: timeZone,
        jobs: {
          total: jobs.length,
          scheduled: scheduled.length,
          paused: jobs.filter((job) => job.state === "paused").length,
          completed: jobs.filter((job) => job.state === "completed").length,
        },
        next: next ? { job_id: next.id, name: next.name, at: next.next_run_at! } : null,
        ticker,
        ticking: ticker !== null && now() - ticker.at < TICKING_WITHIN_MS,
      };
    },
  };
}

/**
 * One scheduler tick over `profile`'s jobs by `ticker` (`gateway:<pid>`,
 * `cli:<pid>`): due jobs claimed and run through `execute`, missed runs
 * caught up or skipped with their reason, and the tick recorded in
 * `cron/ticker.json` for `herald cron status`.
 */
export async function tickProfile(
  profile: ProfileContext,
  execute: JobExecutor,
  options: {
    ticker: string;
    pid?: number;
    now?: () => number;
    log?: (line: string) => void;
    signal?: AbortSignal;
    tickerAlive?: (by: string) => Promise<boolean | undefined>;
  },
): Promise<TickReport> {
  const now = options.now ?? Date.now;
  const files = profile.cron();
  const last = await files.readTicker();
  const report = await tick(files.jobs, async (job, plannedAt) => {
    return outcomeOf(await execute(job, plannedAt));
  }, {
    now,
    ticker: options.ticker,
    lastTickAt: last?.at ?? null,
    ...(options.log ? { log: options.log } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.tickerAlive ? { tickerAlive: options.tickerAlive } : {}),
  });
  // A skipped run shows in the job's history like a run, with its reason.
  for (const skipped of report.skipped) {
    await files.outputs.save({
      job_id: skipped.id,
      at: now(),
      planned_at: skipped.planned_at,
      status: "skipped",
      delivered: "not delivered (skipped)",
      error: skipped.reason,
      output: `Skipped: ${skipped.reason}.`,
    }).catch((error) =>
      options.log?.(`cron: job ${skipped.id}'s skip could not be saved: ${errorText(error)}`)
    );
  }
  await files.writeTicker({ by: options.ticker, at: now(), pid: options.pid ?? null });
  return report;
}
