/**
 * A profile's jobs kept in memory, for the blueprint tests: `create` runs
 * the real {@link newJob} (the real schedule parsing and job validation)
 * at a fixed time in a fixed zone; the rest of {@link Automations} is not
 * needed by blueprints and refuses.
 *
 * @module
 */

import { type Automations, type JobRecord, newJob } from "../../../core/schedules/mod.ts";

/** Friday 27 March 2026, 09:00 in Berlin (CET; summer time starts on the 29th). */
export const NOW: number = Date.UTC(2026, 2, 27, 8, 0);
/** The zone the test jobs run in. */
export const ZONE = "Europe/Berlin";

/** In-memory {@link Automations} and the jobs it created. */
export interface MemoryAutomations extends Automations {
  readonly jobs: JobRecord[];
}

/** Automations over an empty list of jobs; ids count up (`job_00000001`, ...). */
export function memoryAutomations(now: number = NOW): MemoryAutomations {
  const jobs: JobRecord[] = [];
  const refuse = (): never => {
    throw new Error("not used by blueprints");
  };
  return {
    profile: "test",
    jobs,
    timeZone: () => Promise.resolve(ZONE),
    list: () => Promise.resolve([...jobs]),
    get: (ref) => {
      const job = jobs.find((candidate) => candidate.id === ref);
      return job ? Promise.resolve(job) : Promise.reject(new Error(`no job ${ref}`));
    },
    create(input) {
      const id = String(jobs.length + 1).padStart(8, "0");
      const job = newJob(input, { now, timeZone: ZONE, randomId: () => id });
      jobs.push(job);
      return Promise.resolve(job);
    },
    edit: refuse,
    pause: refuse,
    resume: refuse,
    remove: refuse,
    run: refuse,
    history: refuse,
    output: refuse,
    status: refuse,
  };
}

/** `job` without what differs between two creations of the same job (its id). */
export function withoutId(job: JobRecord): Omit<JobRecord, "id"> {
  const { id: _id, ...rest } = job;
  return rest;
}
