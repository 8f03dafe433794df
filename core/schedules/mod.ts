/**
 * Schedules for scheduled jobs: the grammar people type
 * ({@link parseSchedule}), when a schedule runs next ({@link nextRunAfter}),
 * wall-clock time in a zone (zoned.ts), the job record with its store
 * port and {@link newJob} (jobs.ts), and one tick of the scheduler:
 * claiming due jobs, catching up, recording runs ({@link tick}, tick.ts).
 *
 * @module
 */

export * from "./schedule.ts";
export * from "./jobs.ts";
export { isTimeZone, type WallTime, zonedInstant } from "./zoned.ts";
export * from "./tick.ts";
export * from "./automations.ts";
