/**
 * Schedules in words, for `herald cron`, `/cron`, the blueprint catalog,
 * previews and confirmations:
 * `daily at 08:00`, `weekdays at 08:30`, `Mondays and Thursdays at 18:15`,
 * `every 30 minutes`, `weekdays, every hour from 09:00 to 17:00`; and an
 * instant as the wall time of a zone (`2026-11-24 09:00`).
 *
 * @module
 */

import type { Schedule } from "./schedule.ts";
import { wallFields } from "./zoned.ts";

const DAY_NAMES = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

function capitalised(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A cron day-of-week field → words (`weekdays`, `Mondays and Thursdays`); null for every day. */
function daysInWords(dow: string): string | null | undefined {
  if (dow === "*") return null;
  if (dow === "1-5") return "weekdays";
  if (dow === "0,6") return "weekends";
  if (!/^[0-6](,[0-6])*$/.test(dow)) return undefined;
  const days = dow.split(",").map(Number);
  const ordered = [...days.filter((day) => day !== 0), ...days.filter((day) => day === 0)];
  const names = ordered.map((day) => `${capitalised(DAY_NAMES[day])}s`);
  return names.length === 1
    ? names[0]
    : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

function everyHours(step: number): string {
  return step === 1 ? "every hour" : `every ${step} hours`;
}

/**
 * A 5-field cron expression in words, or `on a schedule` for shapes it
 * does not describe.
 *
 * @example
 * ```ts
 * humanCron("30 8 * * 1-5"); // "weekdays at 08:30"
 * humanCron("*\/30 * * * *"); // "every 30 minutes"
 * humanCron("0 *\/6 * * *");  // "every 6 hours"
 * ```
 */
export function humanCron(expression: string): string {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return "on a schedule";
  const [minute, hour, dayOfMonth, month, dow] = fields;
  const days = daysInWords(dow);
  if (dayOfMonth !== "*" || month !== "*" || days === undefined) return "on a schedule";
  const onDays = (text: string) => days === null ? text : `${days}, ${text}`;

  const minuteStep = /^\*\/(\d+)$/.exec(minute);
  if (minuteStep && hour === "*") {
    const step = Number(minuteStep[1]);
    return onDays(
      step === 60 ? "every hour" : step === 1 ? "every minute" : `every ${step} minutes`,
    );
  }
  if (!/^\d+$/.test(minute)) return "on a schedule";
  const at = Number(minute);
  if (/^\d+$/.test(hour)) {
    const time = `${pad(Number(hour))}:${pad(at)}`;
    return days === null ? `daily at ${time}` : `${days} at ${time}`;
  }
  if (hour === "*") return onDays(at === 0 ? "every hour" : `every hour at minute ${at}`);
  const hourStep = /^\*\/(\d+)$/.exec(hour);
  if (hourStep) return onDays(everyHours(Number(hourStep[1])));
  const window = /^(\d+)-(\d+)(?:\/(\d+))?$/.exec(hour);
  if (window) {
    const [from, to, step] = [Number(window[1]), Number(window[2]), Number(window[3] ?? 1)];
    return onDays(`${everyHours(step)} from ${pad(from)}:${pad(at)} to ${pad(to)}:${pad(at)}`);
  }
  return "on a schedule";
}

/**
 * The wall time an instant shows in `timeZone`: `2026-11-24 09:00`.
 *
 * @example
 * ```ts
 * wallTime(Date.UTC(2026, 10, 24, 8, 0), "Europe/Berlin"); // "2026-11-24 09:00"
 * ```
 */
export function wallTime(at: number, timeZone: string): string {
  const wall = wallFields(at, timeZone);
  return `${wall.year}-${wall.month}-${wall.day} ${wall.hour}:${wall.minute}`;
}

function intervalInWords(everyMs: number): string {
  const minutes = everyMs / 60_000;
  if (minutes % 1440 === 0) return minutes === 1440 ? "every day" : `every ${minutes / 1440} days`;
  if (minutes % 60 === 0) return everyHours(minutes / 60);
  return minutes === 1 ? "every minute" : `every ${minutes} minutes`;
}

/**
 * A parsed schedule in words: an interval (`every 2 hours`), a one-shot
 * (`once at 2026-11-24 09:00`, in `timeZone`), a cron schedule through
 * {@link humanCron}, or the text as typed when no words fit.
 *
 * @example
 * ```ts
 * humanSchedule({ kind: "interval", text: "every 2h", everyMs: 7_200_000 }, "UTC"); // "every 2 hours"
 * ```
 */
export function humanSchedule(schedule: Schedule, timeZone: string): string {
  switch (schedule.kind) {
    case "interval":
      return intervalInWords(schedule.everyMs);
    case "once":
      return `once at ${wallTime(schedule.at, timeZone)}`;
    case "cron": {
      const words = humanCron(schedule.expression);
      return words === "on a schedule" && schedule.text !== schedule.expression
        ? schedule.text
        : words;
    }
  }
}
