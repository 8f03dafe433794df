/**
 * The renderers: a blueprint as a form schema (the dashboard), a slash
 * command (`/blueprint morning-brief time=08:00 ...`), a deep link
 * (`herald://blueprint/morning-brief?time=08%3A00`) and a catalog entry
 * (all of these plus its schedule in words). All derive from the one slot
 * schema, so they always carry the same slots.
 *
 * @module
 */

import { BLUEPRINTS } from "./catalog.ts";
import { fillValues, renderSchedule } from "./fill.ts";
import { humanCron } from "../schedules/words.ts";
import type { Blueprint, BlueprintSlot, SlotType } from "./slots.ts";

/** One field of a blueprint's form. */
export interface BlueprintField {
  name: string;
  type: SlotType;
  label: string;
  default: string | null;
  options: string[];
  optional: boolean;
  strict: boolean;
  help: string | null;
}

/** A blueprint as a form: what the dashboard renders. */
export interface BlueprintForm {
  key: string;
  title: string;
  description: string;
  category: string;
  tags: string[];
  fields: BlueprintField[];
}

/** A blueprint in the catalog: its form, its default schedule and how to start it. */
export interface BlueprintCatalogEntry extends BlueprintForm {
  /** The schedule with the defaults filled (a cron expression). */
  schedule: string;
  /** That schedule in words: `weekdays at 08:30`, `every 30 minutes`, `daily at 08:00`. */
  schedule_human: string;
  /** The slash command with the defaults. */
  command: string;
  /** The deep link with the defaults. */
  deep_link: string;
}

function field(slot: BlueprintSlot): BlueprintField {
  return {
    name: slot.name,
    type: slot.type,
    label: slot.label,
    default: slot.default ?? null,
    options: [...(slot.options ?? [])],
    optional: slot.optional ?? false,
    strict: slot.strict ?? true,
    help: slot.help ?? null,
  };
}

/**
 * The form schema of `blueprint`: one field per slot, in order.
 *
 * @example
 * ```ts
 * blueprintForm(blueprint).fields[0]; // { name: "time", type: "time", label: "What time?", ... }
 * ```
 */
export function blueprintForm(blueprint: Blueprint): BlueprintForm {
  return {
    key: blueprint.key,
    title: blueprint.title,
    description: blueprint.description,
    category: blueprint.category,
    tags: [...blueprint.tags],
    fields: blueprint.slots.map(field),
  };
}

/** Each slot with its value (`values`, else the default), the empty ones left out. */
function slotValues(
  blueprint: Blueprint,
  values: Readonly<Record<string, string>> | undefined,
): [BlueprintSlot, string][] {
  return blueprint.slots
    .map((slot): [BlueprintSlot, string] => [
      slot,
      (Object.hasOwn(values ?? {}, slot.name) ? values![slot.name] : slot.default ?? "").trim(),
    ])
    .filter(([, value]) => value !== "");
}

/** `value` as one token of a slash command: double-quoted for text and anything with spaces. */
function commandValue(slot: BlueprintSlot, value: string): string {
  if (slot.type !== "text" && /^[^\s"'\\]+$/.test(value)) return value;
  return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

/**
 * The slash command that creates a job from `blueprint` with `values`
 * (the defaults for slots not given; empty slots left out).
 *
 * @example
 * ```ts
 * blueprintCommandText(reminder, { what: "call mum", time: "18:00" });
 * // '/blueprint custom-reminder what="call mum" time=18:00 days=everyday deliver=origin'
 * ```
 */
export function blueprintCommandText(
  blueprint: Blueprint,
  values?: Readonly<Record<string, string>>,
): string {
  const pairs = slotValues(blueprint, values)
    .map(([slot, value]) => `${slot.name}=${commandValue(slot, value)}`);
  return ["/blueprint", blueprint.key, ...pairs].join(" ");
}

/**
 * The deep link that opens `blueprint`'s form with `values` (the defaults
 * for slots not given; empty slots left out), url-encoded.
 *
 * @example
 * ```ts
 * blueprintDeepLink(morningBrief); // "herald://blueprint/morning-brief?time=08%3A00&days=everyday&deliver=origin"
 * ```
 */
export function blueprintDeepLink(
  blueprint: Blueprint,
  values?: Readonly<Record<string, string>>,
): string {
  const query = slotValues(blueprint, values)
    .map(([slot, value]) => `${encodeURIComponent(slot.name)}=${encodeURIComponent(value)}`)
    .join("&");
  return `herald://blueprint/${encodeURIComponent(blueprint.key)}${query ? `?${query}` : ""}`;
}

/** The catalog entry of `blueprint`: its form, its schedule with defaults, command and link. */
export function blueprintCatalogEntry(blueprint: Blueprint): BlueprintCatalogEntry {
  let schedule: string;
  try {
    schedule = renderSchedule(blueprint, fillValues(blueprint, {}));
  } catch {
    // A slot with no default: the schedule is only known once filled.
    schedule = blueprint.schedule_template;
  }
  return {
    ...blueprintForm(blueprint),
    schedule,
    schedule_human: humanCron(schedule),
    command: blueprintCommandText(blueprint),
    deep_link: blueprintDeepLink(blueprint),
  };
}

/** Every blueprint of the catalog as a {@link BlueprintCatalogEntry}, in catalog order. */
export function blueprintCatalog(): BlueprintCatalogEntry[] {
  return BLUEPRINTS.map(blueprintCatalogEntry);
}
