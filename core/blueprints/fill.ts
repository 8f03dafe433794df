/**
 * Filling a blueprint: the values a user gave checked slot by slot
 * (defaults for the rest), the schedule and the prompt rendered, and the
 * result handed over as the {@link NewJob} that `Automations.create` (the
 * one job-creation function) takes. No second engine: a blueprint job is
 * an ordinary job.
 *
 * @module
 */

import { closest } from "../_util/suggest.ts";
import {
  checkCron,
  JobDelivery,
  type NewJob,
  nextRunAfter,
  parseSchedule,
} from "../schedules/mod.ts";
import { humanCron, humanSchedule } from "../schedules/words.ts";
import {
  type Blueprint,
  BlueprintInvalidError,
  type BlueprintSlot,
  readSlotValue,
  type SlotValue,
} from "./slots.ts";

/** The name of the escape-hatch slot: a schedule as typed. */
export const SCHEDULE_SLOT = "schedule";

/** `{name}` placeholders in a template. */
export const PLACEHOLDER = /\{([a-z][a-z0-9_]*)\}/g;

/** Every slot's value as read (empty optional slots absent). */
export type FilledValues = ReadonlyMap<string, SlotValue>;

function describe(slot: BlueprintSlot): string {
  return `Slot "${slot.name}" (${slot.label})`;
}

/**
 * Reads `values` against the slots of `blueprint`: defaults fill the slots
 * not given, an empty value leaves an optional slot out.
 *
 * @throws BlueprintInvalidError for the first problem: an unknown slot (the
 *   valid ones listed), a required slot with no value, a value its slot
 *   cannot take.
 */
export function fillValues(
  blueprint: Blueprint,
  values: Readonly<Record<string, string>>,
): FilledValues {
  const names = blueprint.slots.map((slot) => slot.name);
  for (const name of Object.keys(values)) {
    if (names.includes(name)) continue;
    const near = closest(name, names);
    throw new BlueprintInvalidError(
      name,
      `Unknown slot "${name}"${near ? ` (did you mean "${near}"?)` : ""}; the slots of ` +
        `${blueprint.key} are: ${names.join(", ")}`,
    );
  }
  const filled = new Map<string, SlotValue>();
  for (const slot of blueprint.slots) {
    const given = Object.hasOwn(values, slot.name) ? values[slot.name] : undefined;
    const raw = (given ?? slot.default ?? "").trim();
    if (raw === "") {
      if (slot.optional) continue;
      throw new BlueprintInvalidError(
        slot.name,
        `${describe(slot)} needs a value${
          given === undefined ? " and has no default" : ", not an empty one"
        }; give ${slot.name}=${
          slot.options?.length ? `one of ${slot.options.join(", ")}` : '"..."'
        }`,
      );
    }
    filled.set(slot.name, readSlotValue(slot, raw));
  }
  return filled;
}

/** Puts `lookup(name)` in place of each `{name}` of `template` (one pass: values are not re-read). */
export function substitute(template: string, lookup: (name: string) => string): string {
  return template.replace(PLACEHOLDER, (_, name: string) => lookup(name));
}

/**
 * The schedule of a filled blueprint: the escape-hatch `schedule` slot as
 * typed when given, else the schedule template with the time, the days
 * and the enum values put in (checked as cron).
 */
export function renderSchedule(blueprint: Blueprint, filled: FilledValues): string {
  const typed = filled.get(SCHEDULE_SLOT);
  if (typed !== undefined) return typed.text;
  let time: { minute: number; hour: number } | undefined;
  let dow = "*";
  for (const value of filled.values()) {
    if (value.type === "time") time = value;
    if (value.type === "weekdays") dow = value.dow;
  }
  const expression = substitute(blueprint.schedule_template, (name) => {
    if (name === "minute") return String(time?.minute ?? 0);
    if (name === "hour") return String(time?.hour ?? 0);
    if (name === "dow") return dow;
    return filled.get(name)?.text ?? "";
  });
  return checkCron(expression);
}

/** Context of {@link fillBlueprint}. */
export interface FillContext {
  /** The chat the job is made from (`telegram:12345`); absent: the terminal or the dashboard. */
  origin?: string;
  /** The agent makes the job: it delivers only to known chats. */
  restrictDelivery?: boolean;
}

/**
 * Fills `blueprint` with `values` (defaults for the rest) into the job to
 * create. A `deliver` of `origin` with no origin in the context becomes
 * `local` (a job made in the terminal delivers to files).
 *
 * @example
 * ```ts
 * const job = fillBlueprint(blueprint, { time: "07:15", days: "weekdays" }, {});
 * job.schedule; // "15 7 * * 1-5"
 * ```
 *
 * @throws BlueprintInvalidError naming the slot and what it may be; nothing else happens.
 */
export function fillBlueprint(
  blueprint: Blueprint,
  values: Readonly<Record<string, string>>,
  context: FillContext,
): NewJob {
  const filled = fillValues(blueprint, values);
  const schedule = renderSchedule(blueprint, filled);
  const prompt = substitute(blueprint.prompt_template, (name) => filled.get(name)?.text ?? "")
    .trim();
  const origin = context.origin?.trim() || undefined;
  let deliver = filled.get("deliver")?.text ?? blueprint.deliver_default;
  if (deliver === "origin" && origin === undefined) deliver = "local";
  if (!JobDelivery.safeParse(deliver).success) {
    throw new BlueprintInvalidError(
      "deliver",
      `Slot "deliver" (Where to deliver?): "${deliver}" is not a delivery target; use origin, ` +
        "local, telegram, line, or platform:chat_id (telegram:-1001234567890)",
    );
  }
  // What people see: the schedule in words rather than the cron the slots made.
  const words = filled.has(SCHEDULE_SLOT) ? undefined : humanCron(schedule);
  return {
    name: blueprint.title,
    schedule,
    ...(words === undefined || words === "on a schedule" ? {} : { scheduleText: words }),
    prompt,
    skills: [...blueprint.skills],
    deliver,
    ...(origin === undefined ? {} : { origin }),
    ...(context.restrictDelivery ? { restrictDelivery: true } : {}),
  };
}

/** What the dashboard shows before a job is created. */
export interface BlueprintPreview {
  /** The schedule the job gets (a cron expression, or the escape hatch as typed). */
  schedule: string;
  schedule_human: string;
  /** The next runs (ms since the epoch), in order. */
  next_runs: number[];
}

/**
 * The schedule `values` give `blueprint` and its next `count` (5) runs
 * from `now` in `timeZone`, for the dashboard's preview.
 *
 * @throws BlueprintInvalidError for a value; ScheduleError, TimeZoneError for the schedule.
 */
export function previewBlueprint(
  blueprint: Blueprint,
  values: Readonly<Record<string, string>>,
  context: { now: number; timeZone: string; count?: number },
): BlueprintPreview {
  const job = fillBlueprint(blueprint, values, { origin: "preview" });
  const schedule = parseSchedule(job.schedule, context);
  const runs: number[] = [];
  let after = context.now;
  while (runs.length < (context.count ?? 5)) {
    const next = schedule.kind === "once" && runs.length === 0
      ? Math.max(schedule.at, context.now)
      : nextRunAfter(schedule, after, { timeZone: context.timeZone, anchor: context.now });
    if (next === undefined || runs.includes(next)) break;
    runs.push(next);
    after = next;
  }
  return {
    schedule: job.schedule,
    schedule_human: humanSchedule(schedule, context.timeZone),
    next_runs: runs,
  };
}
