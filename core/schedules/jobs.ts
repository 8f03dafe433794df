/**
 * Scheduled jobs: the record a profile keeps for each (`cron/jobs.json`),
 * the port of its store, and building a new job from what a user gave
 * (`herald cron create`, `/cron`, a blueprint), refusing a job with
 * nothing to run. Pure: the store is implemented in adapters/cron.
 *
 * @module
 */

import { z } from "zod";
import { HeraldError } from "../errors.ts";
import { nextRunAfter, parseSchedule, type Schedule } from "./schedule.ts";

/** A schedule as stored: the parsed form (the text as typed included). */
export const StoredSchedule = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("interval"), text: z.string(), everyMs: z.number().int().positive() }),
  z.object({ kind: z.literal("once"), text: z.string(), at: z.number() }),
  z.object({ kind: z.literal("cron"), text: z.string(), expression: z.string() }),
]);

/** Where a run's output goes. */
export const JobDelivery = z.union([
  z.literal("local"),
  z.literal("origin"),
  /** A platform target: `platform` or `platform:chat_id[:thread_id]`. */
  z.string().regex(/^[a-z][a-z0-9_-]*(:[^\s:]+){0,2}$/),
]);

/** Where a job is in its life. */
export const JOB_STATES = ["scheduled", "paused", "completed"] as const;

/** How a job's last run ended. */
export const RUN_STATUSES = ["ok", "error", "skipped"] as const;

/** One scheduled job. */
export const JobRecord = z.object({
  id: z.string().regex(/^job_[a-z0-9]{8,}$/),
  name: z.string().min(1).max(200),
  schedule: StoredSchedule,
  /** The IANA zone its cron schedule runs in. */
  time_zone: z.string(),
  prompt: z.string().nullable().default(null),
  /** A script to run (its output feeds the prompt, or is the output). */
  script: z.string().nullable().default(null),
  /** The script's output is the run's output: no model turn. */
  script_only: z.boolean().default(false),
  skills: z.array(z.string()).default([]),
  deliver: JobDelivery.default("local"),
  /** The chat a job created from a chat answers to (`deliver: origin`). */
  origin: z.string().nullable().default(null),
  /**
   * Deliver only to home channels and chats that talked to the gateway: a
   * job the agent made or redirected (a prompt injection must not reach a
   * stranger through it).
   */
  restrict_delivery: z.boolean().default(false),
  /** Runs in all (null: forever) and runs made. */
  repeat: z.object({
    times: z.number().int().positive().nullable(),
    done: z.number().int().min(0),
  }),
  state: z.enum(JOB_STATES),
  created_at: z.number(),
  next_run_at: z.number().nullable(),
  last_run_at: z.number().nullable().default(null),
  last_status: z.enum(RUN_STATUSES).nullable().default(null),
  last_error: z.string().nullable().default(null),
  /**
   * A run missed while nothing was running: run it once, late, or record
   * it skipped with the reason. Never advanced silently.
   */
  catch_up: z.enum(["run_once", "skip"]).default("run_once"),
  /** The ticker running the job now (set under the store's lock; null when none). */
  claim: z.object({ by: z.string(), at: z.number() }).nullable().default(null),
});
/** One scheduled job. */
export type JobRecord = z.infer<typeof JobRecord>;

/** A profile's jobs, kept by an adapter (adapters/cron/job_store.ts). */
export interface JobStore {
  /** Every job, in creation order. */
  list(): Promise<JobRecord[]>;
  /** Adds `job`. */
  add(job: JobRecord): Promise<void>;
  /**
   * Changes job `id` under the store's lock (safe with another process
   * changing the file): `change` gets the current record and returns the
   * new one. Returns it.
   *
   * @throws HeraldError `job_not_found` when there is no such job.
   */
  update(id: string, change: (job: JobRecord) => JobRecord): Promise<JobRecord>;
  /**
   * Changes each of jobs `ids` under one hold of the store's lock, in one
   * write (a tick claims every due job at once). An id with no job is
   * skipped. Returns the new records, in the order of `ids`.
   */
  updateMany(
    ids: readonly string[],
    change: (job: JobRecord) => JobRecord,
  ): Promise<JobRecord[]>;
  /** Removes job `id`; false when there was none. */
  remove(id: string): Promise<boolean>;
}

/** What a user gives to create a job. */
export interface NewJob {
  name?: string;
  /** The schedule as typed. */
  schedule: string;
  /**
   * How the schedule is shown, when not as typed (a blueprint's slots make
   * a cron expression that people see in words: "weekdays at 07:30").
   */
  scheduleText?: string;
  prompt?: string;
  script?: string;
  skills?: readonly string[];
  deliver?: string;
  origin?: string;
  /** Runs in all; absent: forever (a one-shot runs once whatever is given). */
  repeat?: number;
  /** A job whose only work is its script (no model turn). */
  scriptOnly?: boolean;
  /** The agent makes it: delivered only to known chats (see {@link JobRecord}). */
  restrictDelivery?: boolean;
}

/** What building a job needs besides the input. */
export interface JobContext {
  now: number;
  timeZone: string;
  /** A new id's random part (tests pass a fixed one). */
  randomId?: () => string;
}

/** A job that cannot be created as given; nothing is created. */
export class JobInvalidError extends HeraldError {
  /** Creates the error naming the `field` at fault. */
  constructor(readonly field: string, message: string) {
    super("job_invalid", "usage", message, { details: { field } });
  }
}

function randomPart(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function trimmed(value: string | undefined): string | null {
  const text = value?.trim() ?? "";
  return text === "" ? null : text;
}

/** A name for a job the user did not name: the prompt's start, else the script's. */
function defaultName(prompt: string | null, script: string | null, schedule: Schedule): string {
  const source = prompt ?? script ?? schedule.text;
  const line = source.split("\n")[0].trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/**
 * Builds a new job from `input`: the schedule parsed, the first run
 * computed, and refused when there is nothing to run.
 *
 * @example
 * ```ts
 * const job = newJob({ schedule: "weekdays at 08:30", prompt: "Brief me" }, {
 *   now: Date.now(),
 *   timeZone: "Europe/Berlin",
 * });
 * job.schedule; // { kind: "cron", text: "weekdays at 08:30", expression: "30 8 * * 1-5" }
 * ```
 *
 * @throws ScheduleError, TimeZoneError for the schedule.
 * @throws JobInvalidError naming the field: nothing to run, a script-only job without a script,
 *   a bad repeat count or delivery target.
 */
export function newJob(input: NewJob, context: JobContext): JobRecord {
  const parsed = parseSchedule(input.schedule, context);
  const label = trimmed(input.scheduleText);
  const schedule = label === null ? parsed : { ...parsed, text: label };
  const prompt = trimmed(input.prompt);
  const script = trimmed(input.script);
  const skills = [...new Set((input.skills ?? []).map((skill) => skill.trim()))]
    .filter((skill) => skill !== "");
  if (input.scriptOnly && script === null) {
    throw new JobInvalidError(
      "script",
      "A script-only job needs a script: give the command to run, or drop script-only to " +
        "have the model answer a prompt",
    );
  }
  if (prompt === null && script === null && skills.length === 0) {
    throw new JobInvalidError(
      "prompt",
      "The job has nothing to run: give it a prompt, a script or skills to load",
    );
  }
  if (input.repeat !== undefined && (!Number.isInteger(input.repeat) || input.repeat < 1)) {
    throw new JobInvalidError(
      "repeat",
      `Repeat "${input.repeat}" is not a count; give a whole number of runs from 1, or leave it ` +
        "out to repeat forever",
    );
  }
  const deliver = input.deliver?.trim() || "local";
  if (!JobDelivery.safeParse(deliver).success) {
    throw new JobInvalidError(
      "deliver",
      `Delivery "${deliver}" is not one; use local, origin, a platform (telegram) or ` +
        "platform:chat_id (telegram:-1001234567890)",
    );
  }
  if (deliver === "origin" && trimmed(input.origin) === null) {
    throw new JobInvalidError(
      "deliver",
      "Delivery to the origin needs the chat the job was created from; this job was not " +
        "created from a chat, so give a platform target or local",
    );
  }
  const name = trimmed(input.name) ?? defaultName(prompt, script, schedule);
  const times = schedule.kind === "once" ? 1 : input.repeat ?? null;
  return JobRecord.parse({
    id: `job_${(context.randomId ?? randomPart)()}`,
    name: name.slice(0, 200),
    schedule,
    time_zone: context.timeZone,
    prompt,
    script,
    script_only: input.scriptOnly === true,
    skills,
    deliver,
    origin: trimmed(input.origin),
    restrict_delivery: input.restrictDelivery === true,
    repeat: { times, done: 0 },
    state: "scheduled",
    created_at: context.now,
    // A one-shot a moment in the past (within the grace parseSchedule allows) runs at once.
    next_run_at: schedule.kind === "once"
      ? Math.max(schedule.at, context.now)
      : nextRunAfter(schedule, context.now, { timeZone: context.timeZone, anchor: context.now }) ??
        null,
  });
}
