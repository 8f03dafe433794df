/**
 * The slot schema of automation blueprints: what a blueprint and its slots
 * are, the slots several blueprints share (time, days, delivery), and
 * reading one value a user gave for a slot. Every surface (the form, the
 * slash command, the deep link, the catalog) derives from these records.
 *
 * | type       | a value is                                   | becomes                       |
 * | ---------- | -------------------------------------------- | ----------------------------- |
 * | `time`     | `08:30` (24h; `9am`, `noon` read too)        | `{minute}` `{hour}` (cron)    |
 * | `weekdays` | `everyday`, `weekdays`, `weekends`, `mon,thu` | `{dow}` (`*`, `1-5`, `0,6`, `1,4`) |
 * | `enum`     | one of its options (any text when not strict) | `{<slot>}`                    |
 * | `text`     | any text                                     | `{<slot>}` (prompt only)      |
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import { parseTimeOfDay, parseWeekday, WEEKDAY_NAMES } from "../schedules/mod.ts";

/** The types a slot can have. */
export const SLOT_TYPES = ["time", "enum", "text", "weekdays"] as const;

/** One of {@link SLOT_TYPES}. */
export type SlotType = typeof SLOT_TYPES[number];

/** One value a blueprint asks for. */
export interface BlueprintSlot {
  /** Lowercase name (`time`, `interval_min`): the `slot=` in commands and links. */
  name: string;
  type: SlotType;
  /** The question a form or the assistant asks (`What time?`). */
  label: string;
  /** The value when none is given: `"08:00"`, `"everyday"`, `"30"`, `"take a break and stretch"`. */
  default?: string;
  /** An enum's values; a weekdays slot's presets and day names (suggestions). */
  options?: readonly string[];
  /** May be left empty (default false). */
  optional?: boolean;
  /** A hint shown under the question. */
  help?: string;
  /** An enum accepts only its options (default true); false: they are suggestions. */
  strict?: boolean;
}

/**
 * A parameterised scheduled job. `schedule_template` is a 5-field cron
 * expression with placeholders: `{minute}` and `{hour}` from the time slot,
 * `{dow}` from the weekdays slot (`*` when there is none), `{<slot>}` for a
 * strict enum slot. A text slot named `schedule` is the escape hatch: a
 * schedule as typed (`every 2h`, `in 45m`) that replaces the template's
 * when given. `prompt_template` may name any slot as `{<slot>}`.
 */
export interface Blueprint {
  /** Kebab-case key (`morning-brief`). */
  key: string;
  title: string;
  description: string;
  /** The heading it is listed under (`Briefings`). */
  category: string;
  schedule_template: string;
  prompt_template: string;
  slots: readonly BlueprintSlot[];
  /** Where a job goes when its `deliver` slot is absent (`origin`). */
  deliver_default: string;
  /** Skills the job loads (may not be installed; the runner says so). */
  skills: readonly string[];
  tags: readonly string[];
}

/** A value a user gave for a slot that cannot be used; nothing is created. */
export class BlueprintInvalidError extends HeraldError {
  /** Creates the error for `slot` (the slot's name, or the token at fault). */
  constructor(readonly slot: string, message: string) {
    super("blueprint_invalid", "usage", message, { details: { slot } });
  }
}

/** The presets of a weekdays slot and their cron day-of-week fields. */
export const WEEKDAY_PRESETS: Readonly<Record<string, string>> = {
  everyday: "*",
  weekdays: "1-5",
  weekends: "0,6",
};

/** Day names, Sunday first (cron's 0). */
export const DAY_NAMES: readonly string[] = WEEKDAY_NAMES;

/** What a weekdays slot suggests: the presets, then the days from Monday. */
export const WEEKDAY_OPTIONS: readonly string[] = [
  ...Object.keys(WEEKDAY_PRESETS),
  ...DAY_NAMES.slice(1),
  DAY_NAMES[0],
];

/** The shared delivery slot: where a job's output goes. */
export const DELIVER_SLOT: BlueprintSlot = {
  name: "deliver",
  type: "enum",
  label: "Where to deliver?",
  default: "origin",
  options: ["origin", "local", "telegram", "line"],
  strict: false,
  help: "origin: this chat; local: saved files only; telegram or line: your home chat there " +
    "(or telegram:<chat_id>)",
};

/** The shared time slot, defaulting to `time` (`08:00`). */
export function timeSlot(time: string): BlueprintSlot {
  return {
    name: "time",
    type: "time",
    label: "What time?",
    default: time,
    help: "24h local time, e.g. 08:00",
  };
}

/** The shared days slot (`days`, "Which days?"), defaulting to `days` (`everyday`). */
export function daysSlot(days: string): BlueprintSlot {
  return {
    name: "days",
    type: "weekdays",
    label: "Which days?",
    default: days,
    options: WEEKDAY_OPTIONS,
    help: "everyday, weekdays, weekends, or days such as monday or mon,thu",
  };
}

/** The shared single-day slot (`day`, "Which day?"), defaulting to `day` (`sunday`). */
export function daySlot(day: string): BlueprintSlot {
  return {
    ...daysSlot(day),
    name: "day",
    label: "Which day?",
    help: "a day such as sunday or fri",
  };
}

/** A slot's value as read: the text to show and put in prompts, and its cron field(s). */
export type SlotValue =
  | { type: "time"; text: string; minute: number; hour: number }
  | { type: "weekdays"; text: string; dow: string }
  | { type: "enum" | "text"; text: string };

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

function slotName(slot: BlueprintSlot): string {
  return `Slot "${slot.name}" (${slot.label})`;
}

/** Whether every option of an enum is a positive whole number (intervals, counts, hours). */
export function isNumericEnum(slot: BlueprintSlot): boolean {
  const options = slot.options ?? [];
  return slot.type === "enum" && options.length > 0 && options.every((o) => /^[1-9]\d*$/.test(o));
}

/** A days value (`weekdays`, `mon, thu`, `everyday`) → its day numbers, or the word at fault. */
function daysOf(text: string): { days: Set<number> } | { bad: string } {
  const days = new Set<number>();
  const words = text.toLowerCase().replace(/^every\s+(?=\S)/, "").replace(/^day$/, "everyday")
    .split(/\s*(?:,|\band\b|&)\s*|\s+/).filter((word) => word !== "");
  if (words.length === 0) return { bad: text };
  for (const word of words) {
    const preset = word === "daily" || word === "every-day" ? "everyday" : word;
    const field = WEEKDAY_PRESETS[preset] ?? WEEKDAY_PRESETS[`${preset}s`];
    if (field !== undefined) {
      const range = field === "*"
        ? [0, 1, 2, 3, 4, 5, 6]
        : field === "1-5"
        ? [1, 2, 3, 4, 5]
        : [0, 6];
      range.forEach((day) => days.add(day));
      continue;
    }
    const day = parseWeekday(word);
    if (day === undefined) return { bad: word };
    days.add(day);
  }
  return { days };
}

/** Day numbers → the days value and the cron day-of-week field. */
function daysValue(days: Set<number>): { text: string; dow: string } {
  const sorted = [...days].sort((a, b) => a - b);
  const key = sorted.join(",");
  if (sorted.length === 7) return { text: "everyday", dow: "*" };
  if (key === "1,2,3,4,5") return { text: "weekdays", dow: "1-5" };
  if (key === "0,6") return { text: "weekends", dow: "0,6" };
  // Monday first, as people list a week.
  const named = [...sorted.filter((day) => day !== 0), ...sorted.filter((day) => day === 0)];
  return { text: named.map((day) => DAY_NAMES[day]).join(","), dow: key };
}

/**
 * Reads the value `raw` given for `slot` (trimmed, not empty).
 *
 * @example
 * ```ts
 * readSlotValue(timeSlot("08:00"), "9:30pm"); // { type: "time", text: "21:30", minute: 30, hour: 21 }
 * readSlotValue(daysSlot("everyday"), "thu, mon"); // { type: "weekdays", text: "monday,thursday", dow: "1,4" }
 * ```
 *
 * @throws BlueprintInvalidError naming the slot, the value and what it may be.
 */
export function readSlotValue(slot: BlueprintSlot, raw: string): SlotValue {
  const value = raw.trim();
  switch (slot.type) {
    case "time": {
      const time = parseTimeOfDay(value);
      if (time === undefined) {
        throw new BlueprintInvalidError(
          slot.name,
          `${slotName(slot)}: "${value}" is not a time; use HH:MM, 24h, e.g. 08:30`,
        );
      }
      return { type: "time", text: `${pad(time.hour)}:${pad(time.minute)}`, ...time };
    }
    case "weekdays": {
      const read = daysOf(value);
      if ("bad" in read) {
        throw new BlueprintInvalidError(
          slot.name,
          `${slotName(slot)}: "${read.bad}" is not a day; use everyday, weekdays, weekends or ` +
            "day names (monday … sunday, or mon … sun), several comma-separated (mon,thu)",
        );
      }
      return { type: "weekdays", ...daysValue(read.days) };
    }
    case "enum": {
      const options = slot.options ?? [];
      if (isNumericEnum(slot) && !/^[1-9]\d*$/.test(value)) {
        throw new BlueprintInvalidError(
          slot.name,
          `${slotName(slot)}: "${value}" is not a whole number above 0; use one of ${
            options.join(", ")
          }`,
        );
      }
      const known = options.find((option) => option.toLowerCase() === value.toLowerCase());
      if (known !== undefined) return { type: "enum", text: known };
      if (slot.strict !== false) {
        throw new BlueprintInvalidError(
          slot.name,
          `${slotName(slot)}: "${value}" is not one of its values; use one of ${
            options.join(", ")
          }`,
        );
      }
      return { type: "enum", text: value };
    }
    case "text":
      return { type: "text", text: value };
  }
}
