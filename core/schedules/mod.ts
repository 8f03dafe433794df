/**
 * Schedules for scheduled jobs: the grammar people type
 * ({@link parseSchedule}), when a schedule runs next ({@link nextRunAfter})
 * and wall-clock time in a zone (zoned.ts).
 *
 * @module
 */

export * from "./schedule.ts";
export { isTimeZone, type WallTime, zonedInstant } from "./zoned.ts";
