/**
 * The ports scheduled jobs work through, besides the job store: where a
 * run's output is kept ({@link JobOutputs}), and a profile's jobs as one
 * object ({@link Automations}) that the slash commands (`/cron`,
 * `/blueprint`), the agent's `cronjob` tool, the CLI and the dashboard
 * all drive. core/usecases/cron.ts builds an {@link Automations} over a
 * profile; every surface ends in its `create`.
 *
 * @module
 */

import type { JobRecord, JobStore, NewJob } from "./jobs.ts";

/** How a run ended, as its output file records it. */
export type RunStatus = "ok" | "error" | "silent" | "skipped";

/** One saved run of a job (`cron/output/<job>/<timestamp>.md`). */
export interface JobRunEntry {
  job_id: string;
  /** The file's name in the job's output folder (`2026-11-24T09-00-00Z.md`). */
  file: string;
  /** When the run started (ms since the epoch). */
  at: number;
  /** When it was planned (a late run shows the difference). */
  planned_at: number;
  status: RunStatus;
  /** Where the output went: `local`, a target, or why it could not (`failed: ...`). */
  delivered: string;
  /** Why it failed, when it did. */
  error: string | null;
  bytes: number;
}

/** A run's output, saved whatever became of its delivery. */
export interface SavedRun {
  job_id: string;
  at: number;
  planned_at: number;
  status: RunStatus;
  delivered: string;
  error: string | null;
  /** The output itself (the model's answer, the script's output, or the error). */
  output: string;
}

/** Where runs' outputs are kept: `cron/output/<job>/<timestamp>.md`, 0600. */
export interface JobOutputs {
  /** Saves one run; returns the file's path. */
  save(run: SavedRun): Promise<string>;
  /** The saved runs of `jobId`, newest first, at most `limit`. */
  list(jobId: string, limit?: number): Promise<JobRunEntry[]>;
  /**
   * The output of one saved run.
   *
   * @throws HeraldError `run_not_found` for a file that is not one of the job's runs.
   */
  read(jobId: string, file: string): Promise<SavedRun>;
  /** Removes every saved run of `jobId` (the job was removed). */
  removeAll(jobId: string): Promise<void>;
}

/** The last tick a ticker made (`cron/ticker.json`). */
export interface TickerMark {
  /** Who ticked: `gateway:<pid>`, `cli:<pid>`. */
  by: string;
  at: number;
  pid: number | null;
}

/** A profile's `cron/` folder: its jobs, their saved runs and the last tick. */
export interface CronFiles {
  readonly jobs: JobStore;
  readonly outputs: JobOutputs;
  /** The last tick recorded, or null when none ran yet. */
  readTicker(): Promise<TickerMark | null>;
  /** Records a tick. */
  writeTicker(mark: TickerMark): Promise<void>;
}

/** What may change in a job (`herald cron edit`); absent fields stay as they are. */
export interface JobChanges {
  name?: string;
  /** A new schedule as typed; the next run is computed again. */
  schedule?: string;
  /** null or "" clears. */
  prompt?: string | null;
  /** null or "" clears. */
  script?: string | null;
  /** Replaces the skills. */
  skills?: readonly string[];
  addSkills?: readonly string[];
  removeSkills?: readonly string[];
  deliver?: string;
  /** Runs in all; null: forever. */
  repeat?: number | null;
  catch_up?: "run_once" | "skip";
  /** The agent changes it: from now on it delivers only to known chats. */
  restrictDelivery?: boolean;
}

/** How one manual or ticked run went. */
export interface RunReport {
  job_id: string;
  status: RunStatus;
  delivered: string;
  error: string | null;
  /** The saved output file's path. */
  file: string | null;
}

/** The scheduler's state for `herald cron status` and the dashboard. */
export interface CronStatus {
  profile: string;
  time_zone: string;
  jobs: { total: number; scheduled: number; paused: number; completed: number };
  /** The next run of any job, or null. */
  next: { job_id: string; name: string; at: number } | null;
  /** The last tick recorded in `cron/ticker.json`, or null when none ran yet. */
  ticker: { by: string; at: number; pid: number | null } | null;
  /** Whether a tick ran in the last few minutes (the gateway or a system timer runs them). */
  ticking: boolean;
}

/**
 * One profile's scheduled jobs, as every surface drives them. A job is
 * named by its id or, when unique, its name (case-insensitive).
 */
export interface Automations {
  /** The profile's name. */
  readonly profile: string;
  /** The IANA zone new jobs run in (config `timezone`, else the machine's). */
  timeZone(): Promise<string>;
  /** Every job, the next to run first (paused and completed ones last). */
  list(): Promise<JobRecord[]>;
  /**
   * One job.
   *
   * @throws HeraldError `job_not_found` naming the reference (and near names).
   */
  get(ref: string): Promise<JobRecord>;
  /**
   * Creates a job: the one job-creation function every surface ends in.
   *
   * @throws ScheduleError, TimeZoneError, JobInvalidError (nothing is created).
   */
  create(input: NewJob): Promise<JobRecord>;
  /** Changes a job; the next run is computed again when the schedule changes. */
  edit(ref: string, changes: JobChanges): Promise<JobRecord>;
  /** Pauses a job (it keeps its record); pausing a paused job is not an error. */
  pause(ref: string): Promise<JobRecord>;
  /** Resumes a job from now: its next run is the schedule's next one still to come. */
  resume(ref: string): Promise<JobRecord>;
  /** Removes a job and its saved runs; returns the record it had. */
  remove(ref: string): Promise<JobRecord>;
  /**
   * Runs a job now, whatever its schedule, unless another process runs it
   * already (then `job_running`, kind `conflict`). Its schedule is not moved.
   *
   * @throws HeraldError `cron_cannot_run` where this surface cannot run jobs.
   */
  run(ref: string): Promise<RunReport>;
  /** The job's saved runs, newest first. */
  history(ref: string, limit?: number): Promise<JobRunEntry[]>;
  /** One saved run's output. */
  output(ref: string, file: string): Promise<SavedRun>;
  /** The scheduler's state. */
  status(): Promise<CronStatus>;
}
