/**
 * Wall-clock time in a named time zone, with the platform's `Intl` data
 * only: checking a zone name, and turning a local date and time in a zone
 * into an instant (for a one-shot `2026-11-24T09:00` typed without an
 * offset). Cron schedules leave DST to croner; this is for the few places
 * that need a single instant.
 *
 * @module
 */

/**
 * Whether `zone` is a time zone the platform knows (`Europe/Berlin`, `UTC`).
 *
 * @example
 * ```ts
 * isTimeZone("Asia/Tokyo"); // true
 * isTimeZone("Mars/Olympus"); // false
 * ```
 */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The wall clock of instant `at` in `zone`, as zero-padded fields
 * (`year` `2026`, `month` `11`, `day` `24`, `hour` `09`, `minute` `00`,
 * `second` `00`; hours 00-23).
 */
export function wallFields(
  at: number,
  zone: string,
): Record<"year" | "month" | "day" | "hour" | "minute" | "second", string> {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(at));
  const field = (type: string) => parts.find((part) => part.type === type)?.value ?? "";
  return {
    year: field("year"),
    month: field("month"),
    day: field("day"),
    hour: field("hour"),
    minute: field("minute"),
    second: field("second"),
  };
}

/** The offset of `zone` from UTC at instant `at` (ms; positive east of Greenwich). */
function offsetAt(zone: string, at: number): number {
  const wall = wallFields(at, zone);
  const utc = Date.UTC(
    Number(wall.year),
    Number(wall.month) - 1,
    Number(wall.day),
    Number(wall.hour),
    Number(wall.minute),
    Number(wall.second),
  );
  return utc - Math.floor(at / 1000) * 1000;
}

/** A local date and time, as typed. */
export interface WallTime {
  year: number;
  /** 1 to 12. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second?: number;
}

/**
 * The instant when clocks in `zone` show `wall`. A time that a DST change
 * skips (02:30 on a spring-forward night) is taken as the same time after
 * the jump; a time shown twice (autumn) is its first showing.
 *
 * @example
 * ```ts
 * new Date(zonedInstant({ year: 2026, month: 7, day: 1, hour: 9, minute: 0 }, "Europe/Berlin"))
 *   .toISOString(); // "2026-07-01T07:00:00.000Z"
 * ```
 */
export function zonedInstant(wall: WallTime, zone: string): number {
  const asUtc = Date.UTC(
    wall.year,
    wall.month - 1,
    wall.day,
    wall.hour,
    wall.minute,
    wall.second ?? 0,
  );
  // The offsets a day before and after: the same, except around a DST change.
  const before = offsetAt(zone, asUtc - DAY_MS);
  const after = offsetAt(zone, asUtc + DAY_MS);
  const valid = [...new Set([before, after])]
    .map((offset) => asUtc - offset)
    .filter((instant) => asUtc - instant === offsetAt(zone, instant));
  // Shown twice: the first showing. Never shown (skipped): read with the offset before the jump.
  return valid.length > 0 ? Math.min(...valid) : asUtc - before;
}
