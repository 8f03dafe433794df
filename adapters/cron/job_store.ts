/**
 * A profile's scheduled jobs in `cron/jobs.json`, behind core's
 * {@link JobStore}. Every change reads, changes and writes the file under
 * its lock (adapters/fs/file_lock.ts, which also holds across processes),
 * so the gateway's ticker and a `herald cron` command never lose each
 * other's changes; the file is replaced atomically, 0600. A file that is
 * not a job list is never overwritten: every call fails naming it.
 *
 * @module
 */

import { join } from "node:path";
import { HeraldError } from "../../core/errors.ts";
import { JobRecord, type JobStore } from "../../core/schedules/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { readTextOrEmpty } from "../fs/read.ts";

/** The file's name in the profile's `cron/` folder. */
export const JOBS_FILE = "jobs.json";

/** The job store of the profile whose `cron/` folder is `cronDir`, with its path. */
export interface FileJobStore extends JobStore {
  readonly path: string;
}

function unreadable(path: string, why: string): HeraldError {
  return new HeraldError(
    "jobs_file_invalid",
    "state",
    `${path} is not a job list (${why}); it was left as it is: fix or move it, and the jobs ` +
      "start over",
    { details: { file: path } },
  );
}

/** The jobs in `path`; [] when the file does not exist. */
async function readJobs(path: string): Promise<JobRecord[]> {
  const text = await readTextOrEmpty(path);
  if (text.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw unreadable(path, "not JSON");
  }
  const jobs = (value as { jobs?: unknown })?.jobs;
  if (!Array.isArray(jobs)) throw unreadable(path, "no jobs list");
  return jobs.map((job, index) => {
    const parsed = JobRecord.safeParse(job);
    if (!parsed.success) {
      throw unreadable(path, `job ${index + 1}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    }
    return parsed.data;
  });
}

async function writeJobs(path: string, jobs: readonly JobRecord[]): Promise<void> {
  await writeFileAtomic(path, JSON.stringify({ version: 1, jobs }, null, 2) + "\n", {
    mode: 0o600,
  });
}

function notFound(id: string): HeraldError {
  return new HeraldError(
    "job_not_found",
    "not_found",
    `No job "${id}" (herald cron list shows the jobs)`,
    { details: { id } },
  );
}

/**
 * Opens the job store in `cronDir` (the profile's `cron/` folder; created
 * on the first write).
 *
 * @example
 * ```ts
 * const store = openJobStore(paths.cron);
 * await store.add(job);
 * await store.update(job.id, (current) => ({ ...current, state: "paused" }));
 * ```
 */
export function openJobStore(cronDir: string): FileJobStore {
  const path = join(cronDir, JOBS_FILE);
  const locked = async <T>(work: () => Promise<T>) => {
    // The lock file lives beside jobs.json: the folder comes first.
    await Deno.mkdir(cronDir, { recursive: true });
    return await withFileLock(path, work);
  };
  return {
    path,
    list: () => readJobs(path),
    add: (job) =>
      locked(async () => {
        const jobs = await readJobs(path);
        if (jobs.some((existing) => existing.id === job.id)) {
          throw new HeraldError("job_exists", "conflict", `A job "${job.id}" exists already`);
        }
        await writeJobs(path, [...jobs, JobRecord.parse(job)]);
      }),
    update: (id, change) =>
      locked(async () => {
        const jobs = await readJobs(path);
        const index = jobs.findIndex((job) => job.id === id);
        if (index < 0) throw notFound(id);
        const next = JobRecord.parse(change(structuredClone(jobs[index])));
        if (next.id !== id) throw new TypeError("A job's id cannot change");
        jobs[index] = next;
        await writeJobs(path, jobs);
        return next;
      }),
    remove: (id) =>
      locked(async () => {
        const jobs = await readJobs(path);
        const kept = jobs.filter((job) => job.id !== id);
        if (kept.length === jobs.length) return false;
        await writeJobs(path, kept);
        return true;
      }),
  };
}
