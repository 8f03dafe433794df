/**
 * Checking a blueprint's definition when it is loaded, so a broken one
 * fails at once, naming the blueprint, instead of when a user fills it.
 *
 * @module
 */

import { JobDelivery } from "../schedules/mod.ts";
import { PLACEHOLDER, renderSchedule, SCHEDULE_SLOT } from "./fill.ts";
import {
  type Blueprint,
  type BlueprintSlot,
  readSlotValue,
  SLOT_TYPES,
  type SlotValue,
} from "./slots.ts";

/** Placeholders a schedule template gets from the time and weekdays slots. */
const DERIVED = ["minute", "hour", "dow"];

function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]);
}

function checkSlot(blueprint: Blueprint, slot: BlueprintSlot, fail: (why: string) => never): void {
  if (!/^[a-z][a-z0-9_]*$/.test(slot.name)) fail(`slot "${slot.name}" is not a lowercase name`);
  if (DERIVED.includes(slot.name)) fail(`slot "${slot.name}" takes a name schedules reserve`);
  if (!(SLOT_TYPES as readonly string[]).includes(slot.type)) {
    fail(`slot "${slot.name}" has type "${slot.type}"; use one of ${SLOT_TYPES.join(", ")}`);
  }
  if (slot.label.trim() === "") fail(`slot "${slot.name}" has no label`);
  if (slot.type === "enum" && (slot.options ?? []).length === 0) {
    fail(`enum slot "${slot.name}" has no options`);
  }
  if (slot.name === SCHEDULE_SLOT && slot.type !== "text") {
    fail(`slot "${SCHEDULE_SLOT}" (a schedule as typed) must be a text slot`);
  }
  if (slot.default !== undefined && slot.default.trim() !== "") {
    try {
      readSlotValue(slot, slot.default);
    } catch (error) {
      fail(`the default of slot "${slot.name}" is not valid: ${(error as Error).message}`);
    }
  }
  if (blueprint.slots.filter((other) => other.name === slot.name).length > 1) {
    fail(`slot "${slot.name}" is listed twice`);
  }
}

function checkScheduleTemplate(blueprint: Blueprint, fail: (why: string) => never): void {
  const slots = blueprint.slots;
  const template = blueprint.schedule_template.trim();
  const hatch = slots.find((slot) => slot.name === SCHEDULE_SLOT);
  if (template === `{${SCHEDULE_SLOT}}`) {
    if (!hatch || (hatch.optional && !hatch.default)) {
      fail(`the schedule template is {${SCHEDULE_SLOT}}, so a required "${SCHEDULE_SLOT}" slot`);
    }
    return;
  }
  const used = placeholders(template);
  for (const name of used) {
    const slot = slots.find((candidate) => candidate.name === name);
    if (name === "minute" || name === "hour") {
      if (!slots.some((candidate) => candidate.type === "time")) {
        fail(`the schedule template uses {${name}} but no slot is a time`);
      }
    } else if (name !== "dow" && (slot?.type !== "enum" || slot.strict === false)) {
      fail(`the schedule template uses {${name}}, which is not a strict enum slot`);
    }
  }
  for (const type of ["time", "weekdays"] as const) {
    const typed = slots.filter((slot) => slot.type === type);
    if (typed.length > 1) fail(`has ${typed.length} ${type} slots; a schedule takes one`);
    const needs = type === "time" ? ["minute", "hour"] : ["dow"];
    if (typed.length === 1 && !needs.every((name) => used.includes(name))) {
      fail(`has a ${type} slot but its schedule template lacks {${needs.join("} {")}}`);
    }
  }
  // The template with every slot's default (or first option) must be a cron expression.
  const sample = new Map<string, SlotValue>();
  for (const slot of slots) {
    const value = slot.default?.trim() || slot.options?.[0];
    if (value !== undefined && slot.name !== SCHEDULE_SLOT) {
      sample.set(slot.name, readSlotValue(slot, value));
    }
  }
  try {
    renderSchedule(blueprint, sample);
  } catch (error) {
    fail(`its schedule template does not give a cron expression: ${(error as Error).message}`);
  }
}

/**
 * Checks a blueprint's definition and returns it frozen: a kebab-case key,
 * slots of the four types with unique names, valid defaults and enum
 * options, one time and one weekdays slot at most (each used by the
 * schedule template), templates naming only their slots, and a schedule
 * template that gives a cron expression.
 *
 * @example
 * ```ts
 * const blueprint = defineBlueprint({
 *   key: "stand-up", title: "Stand-up notes", description: "...", category: "Work",
 *   schedule_template: "{minute} {hour} * * 1-5", prompt_template: "Draft my stand-up notes.",
 *   slots: [timeSlot("09:15")], deliver_default: "origin", skills: [], tags: ["work"],
 * });
 * ```
 *
 * @throws TypeError naming the blueprint and what is wrong with it.
 */
export function defineBlueprint(blueprint: Blueprint): Blueprint {
  const fail = (why: string): never => {
    throw new TypeError(`Blueprint "${blueprint.key}" ${why}`);
  };
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(blueprint.key)) fail("needs a kebab-case key");
  for (const field of ["title", "description", "category", "prompt_template"] as const) {
    if (blueprint[field].trim() === "") fail(`has an empty ${field}`);
  }
  for (const slot of blueprint.slots) checkSlot(blueprint, slot, fail);
  checkScheduleTemplate(blueprint, fail);
  for (const name of placeholders(blueprint.prompt_template)) {
    if (!blueprint.slots.some((slot) => slot.name === name)) {
      fail(`its prompt template uses {${name}}, which is not one of its slots`);
    }
  }
  if (!JobDelivery.safeParse(blueprint.deliver_default).success) {
    fail(`has a deliver_default "${blueprint.deliver_default}" that is not a delivery target`);
  }
  return Object.freeze({
    ...blueprint,
    slots: Object.freeze(blueprint.slots.map((slot) => Object.freeze({ ...slot }))),
    skills: Object.freeze([...blueprint.skills]),
    tags: Object.freeze([...blueprint.tags]),
  });
}
