/**
 * Schedules for scheduled jobs: the grammar people type
 * ({@link parseSchedule}), when a schedule runs next ({@link nextRunAfter}),
 * wall-clock time in a zone (zoned.ts), and the job record with its store
 * port and {@link newJob} (jobs.ts).
 *
 * @module
 */

export * from "./schedule.ts";
export * from "./jobs.ts";
export { isTimeZone, type WallTime, zonedInstant } from "./zoned.ts";
