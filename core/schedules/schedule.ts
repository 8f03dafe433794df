/**
 * Schedules people can type, for scheduled jobs (`herald cron create`,
 * `/cron`, blueprints): one parser, every surface.
 *
 * | typed                                   | kind       | normalised                  |
 * | --------------------------------------- | ---------- | --------------------------- |
 * | `every 2h`, `every 30m`, `every 1 day`  | `interval` | every 7,200,000 ms          |
 * | `in 45m`, `in 2 hours`                  | `once`     | now + 45 min                |
 * | `2026-11-24T09:00` (`Z` or `+01:00` ok) | `once`     | that instant (zone: config) |
 * | `every monday 9am`, `mon,thu at 18:15`  | `cron`     | `0 9 * * 1`, `15 18 * * 1,4` |
 * | `weekdays at 08:30`, `weekends 10am`    | `cron`     | `30 8 * * 1-5`, `0 10 * * 0,6` |
 * | `daily at 7pm`, `every day at noon`     | `cron`     | `0 19 * * *`, `0 12 * * *`  |
 * | `*\/15 9-17 * * 1-5` (5-field cron)     | `cron`     | as typed, validated         |
 *
 * Every schedule keeps the text as typed (`text`) for display. Cron
 * schedules run in the job's time zone; DST is croner's (a time the clocks
 * skip runs at the jump, one shown twice runs once). Pure: the clock and
 * the zone come in.
 *
 * @module
 */

import { Cron } from "croner";
import { HeraldError } from "../errors.ts";
import { isTimeZone, zonedInstant } from "./zoned.ts";

/** A parsed schedule. */
export type Schedule =
  | { kind: "interval"; text: string; everyMs: number }
  | { kind: "once"; text: string; at: number }
  | { kind: "cron"; text: string; expression: string };

/** What parsing needs besides the text. */
export interface ScheduleContext {
  /** Now (ms since the epoch): `in 45m` counts from it; a past timestamp is judged by it. */
  now: number;
  /** The IANA time zone wall-clock times are read in (`Europe/Berlin`, `UTC`). */
  timeZone: string;
}

/** The shortest interval a job may repeat at (the ticker runs every minute). */
export const MIN_INTERVAL_MS = 60_000;
/** How far in the past a one-shot timestamp may be (a clock a little behind): 2 minutes. */
export const PAST_GRACE_MS = 2 * 60_000;

const MINUTE = 60_000;
const UNITS: Readonly<Record<string, number>> = {
  m: MINUTE,
  min: MINUTE,
  mins: MINUTE,
  minute: MINUTE,
  minutes: MINUTE,
  h: 60 * MINUTE,
  hr: 60 * MINUTE,
  hrs: 60 * MINUTE,
  hour: 60 * MINUTE,
  hours: 60 * MINUTE,
  d: 24 * 60 * MINUTE,
  day: 24 * 60 * MINUTE,
  days: 24 * 60 * MINUTE,
  w: 7 * 24 * 60 * MINUTE,
  week: 7 * 24 * 60 * MINUTE,
  weeks: 7 * 24 * 60 * MINUTE,
};

/** The days of the week, Sunday first (cron's 0). */
export const WEEKDAY_NAMES: readonly string[] = [
  "sunday",
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
];

/** What the user can type, for error messages. */
export const SCHEDULE_FORMS = "every 2h, every 30m, in 45m, every monday 9am, " +
  "weekdays at 08:30, daily at 7pm, a 5-field cron expression (0 9 * * 1-5), " +
  "or an ISO time (2026-11-24T09:00)";

/** A schedule that cannot be read; the message quotes it and says what would be. */
export class ScheduleError extends HeraldError {
  /** Creates the error for `text`, saying `why`. */
  constructor(readonly text: string, why: string) {
    super("schedule_invalid", "usage", `Schedule "${text}" ${why}`, {
      details: { schedule: text },
    });
  }
}

/** A time zone the platform does not know. */
export class TimeZoneError extends HeraldError {
  /** Creates the error for `zone`. */
  constructor(readonly zone: string) {
    super(
      "time_zone_invalid",
      "usage",
      `"${zone}" is not a time zone; use an IANA name such as Europe/Berlin, America/New_York or UTC`,
      { details: { time_zone: zone } },
    );
  }
}

/** `9am`, `9:30 pm`, `09:30`, `21:00`, `noon`, `midnight` → hour and minute; undefined otherwise. */
export function parseTimeOfDay(text: string): { hour: number; minute: number } | undefined {
  const typed = text.trim().toLowerCase();
  if (typed === "noon") return { hour: 12, minute: 0 };
  if (typed === "midnight") return { hour: 0, minute: 0 };
  const match = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(typed);
  if (!match) return undefined;
  let hour = Number(match[1]);
  const minute = match[2] === undefined ? 0 : Number(match[2]);
  const half = match[3];
  if (minute > 59) return undefined;
  if (half === undefined) {
    if (match[2] === undefined || hour > 23) return undefined;
  } else {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half === "pm" ? 12 : 0);
  }
  return { hour, minute };
}

/** A weekday word (`mon`, `Monday`, `mondays`, `thurs`) → 0 (Sunday) to 6; undefined otherwise. */
export function parseWeekday(text: string): number | undefined {
  const word = text.trim().toLowerCase().replace(/s$/, "");
  if (word.length < 2) return undefined;
  const index = WEEKDAY_NAMES.findIndex((day) => day.startsWith(word) || day === `${word}s`);
  return index < 0 ? undefined : index;
}

/**
 * Checks a 5-field cron expression with croner and returns it tidied
 * (single spaces).
 *
 * @throws ScheduleError naming what is wrong.
 */
export function checkCron(text: string, typed: string = text): string {
  const fields = text.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw new ScheduleError(
      typed,
      `has ${fields.length} fields; a cron expression has 5 (minute hour day-of-month month ` +
        `day-of-week), for example 0 9 * * 1-5`,
    );
  }
  const expression = fields.join(" ");
  try {
    new Cron(expression, { paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, "") : "";
    throw new ScheduleError(typed, `is not a valid cron expression (${reason})`);
  }
  return expression;
}

function parseAmount(amount: string, unit: string, typed: string): number {
  const perUnit = UNITS[unit.toLowerCase()];
  if (perUnit === undefined) {
    throw new ScheduleError(typed, `has an unknown unit "${unit}"; use m, h, d or w`);
  }
  const count = Number(amount);
  if (!Number.isInteger(count) || count <= 0) {
    throw new ScheduleError(typed, `needs a whole number above 0 before "${unit}"`);
  }
  return count * perUnit;
}

/** `2h`, `2 h`, `30 minutes`, `hour`, `day` → ms, or undefined when it is not an amount. */
function amountOf(text: string, typed: string): number | undefined {
  const bare = /^(minute|hour|day|week)$/i.exec(text);
  if (bare) return UNITS[bare[1].toLowerCase()];
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(text);
  return match ? parseAmount(match[1], match[2], typed) : undefined;
}

/** The days part of `every mon,thu`, `weekdays`, `daily` → a cron day-of-week field, or undefined. */
function daysOf(text: string, typed: string): string | undefined {
  const words = text.toLowerCase().replace(/^every\s+/, "").trim();
  if (/^(day|daily|everyday)$/.test(words) || words === "") return "*";
  if (/^weekdays?$/.test(words)) return "1-5";
  if (/^weekends?$/.test(words)) return "0,6";
  const names = words.split(/\s*(?:,|\band\b|&)\s*/).filter((name) => name !== "");
  const days = names.map((name) => {
    const day = parseWeekday(name);
    if (day === undefined) {
      throw new ScheduleError(
        typed,
        `names an unknown weekday "${name}"; use monday … sunday (or mon … sun), ` +
          "weekdays, weekends or daily",
      );
    }
    return day;
  });
  return [...new Set(days)].sort((a, b) => a - b).join(",");
}

/** `YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]` (a space instead of `T` too) → its parts; undefined otherwise. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:?\d{2})?$/i;

function parseIso(text: string, context: ScheduleContext): number | undefined {
  const match = ISO.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, zone] = match;
  const wall = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: second === undefined ? 0 : Number(second),
  };
  const check = new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute));
  if (
    check.getUTCMonth() !== wall.month - 1 || check.getUTCDate() !== wall.day ||
    wall.hour > 23 || wall.minute > 59 || wall.second > 59
  ) {
    throw new ScheduleError(text, "is not a real date and time");
  }
  if (zone === undefined) return zonedInstant(wall, context.timeZone);
  const utc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  if (zone.toUpperCase() === "Z") return utc;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * MINUTE;
  return utc - sign * offset;
}

/**
 * Reads a schedule as typed.
 *
 * @example
 * ```ts
 * const context = { now: Date.now(), timeZone: "Europe/Berlin" };
 * parseSchedule("every 2h", context);          // { kind: "interval", everyMs: 7200000, ... }
 * parseSchedule("weekdays at 08:30", context); // { kind: "cron", expression: "30 8 * * 1-5", ... }
 * parseSchedule("in 45m", context);            // { kind: "once", at: now + 2700000, ... }
 * ```
 *
 * @throws ScheduleError quoting the text and saying what is wrong (or what can be typed).
 * @throws TimeZoneError when `context.timeZone` is not a time zone.
 */
export function parseSchedule(text: string, context: ScheduleContext): Schedule {
  if (!isTimeZone(context.timeZone)) throw new TimeZoneError(context.timeZone);
  const typed = text.trim();
  if (typed === "") throw new ScheduleError(text, `is empty; type one of: ${SCHEDULE_FORMS}`);
  const words = typed.replace(/\s+/g, " ");

  const iso = parseIso(words, context);
  if (iso !== undefined) {
    if (iso < context.now - PAST_GRACE_MS) {
      throw new ScheduleError(typed, "is in the past; give a time still to come");
    }
    return { kind: "once", text: typed, at: iso };
  }

  const relative = /^in (.+)$/i.exec(words);
  if (relative) {
    const ms = amountOf(relative[1], typed);
    if (ms === undefined) {
      throw new ScheduleError(typed, 'needs an amount after "in", such as in 45m or in 2 hours');
    }
    return { kind: "once", text: typed, at: context.now + ms };
  }

  // A day list and a time: `every monday 9am`, `weekdays at 08:30`, `daily at 7pm`, `mon,thu 18:15`.
  const timed = /^(.*?)\s*(?:\bat\s+)?(\d{1,2}(?::\d{2})?\s*(?:am|pm)?|noon|midnight)$/i.exec(
    words,
  );
  if (timed && !/^[\d*]/.test(words)) {
    const time = parseTimeOfDay(timed[2]);
    if (time === undefined) {
      throw new ScheduleError(
        typed,
        `has a time "${timed[2]}" that is not one; use 9am, 9:30pm, 21:00 or noon`,
      );
    }
    const days = daysOf(timed[1], typed);
    if (days !== undefined) {
      return { kind: "cron", text: typed, expression: `${time.minute} ${time.hour} * * ${days}` };
    }
  }

  const every = /^every (.+)$/i.exec(words);
  if (every) {
    const ms = amountOf(every[1], typed);
    if (ms !== undefined) {
      if (ms < MIN_INTERVAL_MS) {
        throw new ScheduleError(typed, "repeats more often than once a minute; the least is 1m");
      }
      return { kind: "interval", text: typed, everyMs: ms };
    }
    throw new ScheduleError(
      typed,
      "is not an interval or a weekday with a time; type every 2h, every 30m or every monday 9am",
    );
  }

  if (/^[\d*]/.test(words) && words.split(" ").length >= 3) {
    return { kind: "cron", text: typed, expression: checkCron(words, typed) };
  }
  throw new ScheduleError(typed, `is not a schedule; type one of: ${SCHEDULE_FORMS}`);
}

/**
 * When a schedule runs next, strictly after `after` (ms), or undefined when
 * it never runs again (a one-shot whose time has passed). An interval
 * counts from `anchor` (the job's creation or first run) in whole steps.
 *
 * @example
 * ```ts
 * nextRunAfter({ kind: "interval", text: "every 2h", everyMs: 7_200_000 }, 10_000, {
 *   timeZone: "UTC",
 *   anchor: 0,
 * }); // 7_200_000
 * ```
 */
export function nextRunAfter(
  schedule: Schedule,
  after: number,
  options: { timeZone: string; anchor?: number },
): number | undefined {
  switch (schedule.kind) {
    case "once":
      return schedule.at > after ? schedule.at : undefined;
    case "interval": {
      const anchor = options.anchor ?? after;
      if (after < anchor) return anchor;
      const steps = Math.floor((after - anchor) / schedule.everyMs) + 1;
      return anchor + steps * schedule.everyMs;
    }
    case "cron": {
      const cron = new Cron(schedule.expression, { timezone: options.timeZone, paused: true });
      return cron.nextRun(new Date(after))?.getTime();
    }
  }
}
