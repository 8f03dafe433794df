/**
 * Times as people read them, in this browser's language and zone: one
 * formatter made once a page, from the fields it shows.
 */

/** Day, month and time of day: `5 Jan, 07:30`. */
export const DAY_TIME: Intl.DateTimeFormatOptions = {
  day: "numeric",
  month: "short",
  hour: "2-digit",
  minute: "2-digit",
};

/** A function that shows an epoch-milliseconds time with `options`. */
export function timeFormat(options: Intl.DateTimeFormatOptions): (at: number) => string {
  const format = new Intl.DateTimeFormat(undefined, options);
  return (at) => format.format(new Date(at));
}
