/**
 * Automation blueprints: parameterised scheduled jobs (a morning briefing,
 * a mail watch, a reminder) that every surface renders from one slot
 * schema: the dashboard's form, `/blueprint` (alias `/bp`), deep links
 * and the catalog. Filling one gives an ordinary {@link NewJob}; every
 * surface ends in `Automations.create`.
 *
 * @example
 * ```ts
 * import { BLUEPRINTS, fillBlueprint, runBlueprintCommand } from "./mod.ts";
 * const job = fillBlueprint(BLUEPRINTS[0], { time: "07:15" }, {}); // { schedule: "15 7 * * *", ... }
 * const reply = await runBlueprintCommand("morning-brief time=07:15", { automations });
 * ```
 *
 * @module
 */

export {
  type Blueprint,
  BlueprintInvalidError,
  type BlueprintSlot,
  DAY_NAMES,
  daySlot,
  daysSlot,
  DELIVER_SLOT,
  readSlotValue,
  SLOT_TYPES,
  type SlotType,
  type SlotValue,
  timeSlot,
  WEEKDAY_OPTIONS,
  WEEKDAY_PRESETS,
} from "./slots.ts";
export { defineBlueprint } from "./define.ts";
export { BLUEPRINTS } from "./catalog.ts";
export {
  type BlueprintPreview,
  fillBlueprint,
  type FillContext,
  previewBlueprint,
  SCHEDULE_SLOT,
} from "./fill.ts";
export { humanCron, humanSchedule, wallTime } from "../schedules/words.ts";
export {
  blueprintCatalog,
  type BlueprintCatalogEntry,
  blueprintCatalogEntry,
  blueprintCommandText,
  blueprintDeepLink,
  type BlueprintField,
  type BlueprintForm,
  blueprintForm,
} from "./render.ts";
export { type BlueprintMatch, findBlueprint, nearBlueprintKeys } from "./match.ts";
export {
  blueprintByKey,
  type BlueprintCommandContext,
  type BlueprintReply,
  blueprintSeed,
  instantiateBlueprint,
  runBlueprintCommand,
} from "./command.ts";
