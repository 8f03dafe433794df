/**
 * What the Automations page reads and writes (`/api/cron`, see
 * docs/dashboard.md), the live refresh (the cron events over `/api/ws`
 * and a poll every half minute, since the gateway runs jobs elsewhere),
 * and how times are shown.
 */

import { api } from "../lib/api.ts";
import { DAY_TIME, timeFormat } from "../lib/time.ts";
import { useEventStream } from "../lib/use_events.ts";
import type {
  CronStatus,
  JobRecord,
  JobRunEntry,
  RunReport,
  SavedRun,
} from "../../../../core/schedules/mod.ts";
import type { BlueprintCatalogEntry } from "../../../../core/blueprints/mod.ts";

export type { BlueprintCatalogEntry, CronStatus, JobRecord, JobRunEntry, RunReport, SavedRun };
export type { BlueprintField } from "../../../../core/blueprints/mod.ts";

/** `GET /api/cron/jobs`. */
export interface JobsBody {
  jobs: JobRecord[];
  status: CronStatus;
}

/** `POST /api/cron/blueprints/preview`. */
export interface PreviewBody {
  schedule: string;
  schedule_human: string;
  next_runs: number[];
  time_zone: string;
  /** The `/blueprint` command that creates the same job. */
  command: string;
}

/** The body of `POST /api/cron/jobs`. */
export interface NewJobBody {
  schedule: string;
  prompt?: string;
  deliver?: string;
  name?: string;
}

/** Every job of the selected profile and the scheduler's state. */
export function loadJobs(signal?: AbortSignal): Promise<JobsBody> {
  return api<JobsBody>("GET", "/api/cron/jobs", { signal });
}

/** The blueprint catalog. */
export async function loadBlueprints(signal?: AbortSignal): Promise<BlueprintCatalogEntry[]> {
  return (await api<{ blueprints: BlueprintCatalogEntry[] }>("GET", "/api/cron/blueprints", {
    signal,
  })).blueprints;
}

/** The schedule and next runs a blueprint gets with `values` (a 400 names the slot at fault). */
export function previewBlueprint(
  key: string,
  values: Record<string, string>,
  signal?: AbortSignal,
): Promise<PreviewBody> {
  return api<PreviewBody>("POST", "/api/cron/blueprints/preview", {
    body: { key, values, count: 3 },
    signal,
  });
}

/** Creates the job the blueprint `key` gives with `values`. */
export async function instantiateBlueprint(
  key: string,
  values: Record<string, string>,
): Promise<JobRecord> {
  return (await api<{ job: JobRecord }>("POST", "/api/cron/blueprints/instantiate", {
    body: { key, values },
  })).job;
}

/** Creates a job from a schedule as typed. */
export async function createJob(body: NewJobBody): Promise<JobRecord> {
  return (await api<{ job: JobRecord }>("POST", "/api/cron/jobs", { body })).job;
}

function jobPath(id: string, rest = ""): string {
  return `/api/cron/jobs/${encodeURIComponent(id)}${rest}`;
}

/** Pauses or resumes a job. */
export async function setPaused(id: string, paused: boolean): Promise<JobRecord> {
  return (await api<{ job: JobRecord }>("POST", jobPath(id, paused ? "/pause" : "/resume")))
    .job;
}

/** Runs a job now; resolves when the run ended. */
export async function runJob(id: string): Promise<RunReport> {
  return (await api<{ run: RunReport }>("POST", jobPath(id, "/run"))).run;
}

/** Removes a job and its saved runs. */
export async function removeJob(id: string): Promise<JobRecord> {
  return (await api<{ removed: JobRecord }>("DELETE", jobPath(id))).removed;
}

/** A job's saved runs, newest first. */
export async function loadRuns(id: string, signal?: AbortSignal): Promise<JobRunEntry[]> {
  return (await api<{ job: JobRecord; runs: JobRunEntry[] }>("GET", jobPath(id), { signal }))
    .runs;
}

/** One saved run's output. */
export async function loadRun(id: string, file: string): Promise<SavedRun> {
  return (await api<{ run: SavedRun }>("GET", jobPath(id, `/runs/${encodeURIComponent(file)}`)))
    .run;
}

/** How often the jobs are fetched again while the page is open. */
export const REFRESH_MS = 30_000;

/** The event types that change what the page shows. */
const CRON_EVENTS = ["cron.job.changed", "cron.job.ran"];

/**
 * Calls `refresh` when a job changes (the cron events another tab or this
 * one causes) and every {@link REFRESH_MS} (the gateway's runs publish on
 * its own process). A dropped connection is watched again at the next poll.
 * Returns whether the events are being watched.
 */
export function useCronRefresh(refresh: () => void, profile: string): boolean {
  return useEventStream(CRON_EVENTS, () => refresh(), {
    retryMs: REFRESH_MS,
    profile,
    onTick: () => refresh(),
  });
}

/** A run's time as people read it, in this browser's zone: `Mon, 5 Jan, 07:30`. */
export const formatRunTime: (at: number) => string = timeFormat({
  weekday: "short",
  ...DAY_TIME,
});

/** The full date and time with the zone, for a tooltip. */
export const formatFullTime: (at: number) => string = timeFormat({
  dateStyle: "full",
  timeStyle: "long",
});

/** How far `at` is from `now`, in words: `in 5 min`, `in 3 h`, `2 days ago`. */
export function relativeTime(at: number, now: number): string {
  const ms = at - now;
  const minutes = Math.round(Math.abs(ms) / 60_000);
  let span: string;
  if (minutes < 1) return ms >= 0 ? "in less than a minute" : "just now";
  if (minutes < 60) span = `${minutes} min`;
  else if (minutes < 48 * 60) span = `${Math.round(minutes / 60)} h`;
  else span = `${Math.round(minutes / 1440)} days`;
  return ms >= 0 ? `in ${span}` : `${span} ago`;
}
