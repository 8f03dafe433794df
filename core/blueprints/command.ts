/**
 * `/blueprint` (alias `/bp`), the one handler behind every surface: no
 * argument lists the catalog; a name starts a question-by-question fill
 * conversation (an `agent_seed` the surface sends as the user's next
 * turn); a name with `slot=value` pairs creates the job at once through
 * {@link instantiateBlueprint}, which ends in `Automations.create`.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import type { Automations, JobRecord } from "../schedules/mod.ts";
import { parseBlueprintArgs } from "./_args.ts";
import { BLUEPRINTS } from "./catalog.ts";
import { fillBlueprint, type FillContext } from "./fill.ts";
import { humanSchedule, wallTime } from "../schedules/words.ts";
import { findBlueprint, nearBlueprintKeys } from "./match.ts";
import { blueprintCatalogEntry, blueprintCommandText } from "./render.ts";
import type { Blueprint, BlueprintSlot } from "./slots.ts";

/** What `/blueprint` answers: text to show, and maybe the user's next turn. */
export interface BlueprintReply {
  text: string;
  /** A natural-language request the surface sends as the user's next turn (the fill conversation). */
  agent_seed?: string;
}

/** Where `/blueprint` runs. */
export interface BlueprintCommandContext {
  /** The profile's jobs; absent where this surface cannot schedule. */
  automations?: Automations;
  /** The chat the command came from (`telegram:12345`); absent in the terminal and the dashboard. */
  origin?: string;
}

const USAGE = "Set one up with /blueprint <name> (I will ask a few questions), or create it at " +
  "once with /blueprint <name> slot=value ... (quote values with spaces). Alias: /bp.";

const CANNOT_SCHEDULE = "Scheduled jobs cannot be created from here; use `herald cron` or " +
  "/blueprint in `herald chat`, or the dashboard's Automations page.";

/**
 * Creates a job from the blueprint `key` (exact) filled with `values`,
 * through `automations.create`, the one job-creation function.
 *
 * @throws HeraldError `blueprint_not_found` (kind `not_found`) naming near keys.
 * @throws BlueprintInvalidError, ScheduleError, JobInvalidError; nothing is created.
 */
export async function instantiateBlueprint(
  automations: Automations,
  key: string,
  values: Readonly<Record<string, string>>,
  context: FillContext,
): Promise<JobRecord> {
  return await automations.create(fillBlueprint(blueprintByKey(key), values, context));
}

/**
 * The blueprint whose key is exactly `key`.
 *
 * @throws HeraldError `blueprint_not_found` (kind `not_found`) naming near keys.
 */
export function blueprintByKey(key: string): Blueprint {
  const blueprint = BLUEPRINTS.find((candidate) => candidate.key === key);
  if (blueprint) return blueprint;
  const near = nearBlueprintKeys(key);
  throw new HeraldError(
    "blueprint_not_found",
    "not_found",
    `No blueprint "${key}"${near.length ? `; did you mean ${near.join(", ")}?` : ""} ` +
      "(/blueprint and the dashboard's Automations page list them)",
    { details: { blueprint: key } },
  );
}

/** The catalog as text, grouped by category. */
function catalogText(): string {
  const entries = BLUEPRINTS.map(blueprintCatalogEntry);
  const width = Math.max(...entries.map((entry) => entry.key.length));
  const lines = ["Automation blueprints:"];
  for (const category of [...new Set(entries.map((entry) => entry.category))]) {
    lines.push("", category);
    for (const entry of entries.filter((candidate) => candidate.category === category)) {
      lines.push(`  ${entry.key.padEnd(width)}  ${entry.title} (${entry.schedule_human})`);
    }
  }
  lines.push("", USAGE);
  return lines.join("\n");
}

function candidatesText(query: string, candidates: readonly Blueprint[]): string {
  return [
    `Several blueprints match "${query}":`,
    ...candidates.map((blueprint) => `  ${blueprint.key}  ${blueprint.title}`),
    "Say which one: /blueprint <key>.",
  ].join("\n");
}

/** One slot as the assistant should ask about it. */
function question(slot: BlueprintSlot, index: number): string {
  const parts = [`${index + 1}. ${slot.name}: "${slot.label}"`];
  if (slot.help) parts.push(`(${slot.help})`);
  if (slot.options?.length) {
    const choices = slot.type === "enum" && slot.strict !== false
      ? "one of"
      : slot.type === "weekdays"
      ? "for example"
      : "suggestions (other values are fine)";
    parts.push(`${choices}: ${slot.options.join(", ")}.`);
  }
  if (slot.type === "time") parts.push("Answer as HH:MM, 24h.");
  parts.push(slot.default ? `Default: ${slot.default}.` : "No default.");
  if (slot.optional) parts.push("Optional: it may be left empty.");
  return parts.join(" ");
}

/** The fill request that becomes the user's next turn. */
export function blueprintSeed(blueprint: Blueprint): string {
  const defaults = Object.fromEntries(
    blueprint.slots.filter((slot) => slot.default).map((slot) => [slot.name, slot.default!]),
  );
  const call = JSON.stringify({ action: "blueprint", key: blueprint.key, values: defaults });
  return [
    `I want to set up the automation "${blueprint.title}" (blueprint ${blueprint.key}): ` +
    blueprint.description,
    "Ask me for its settings ONE question at a time, in this order, and wait for my answer " +
    "before the next question. If I say default or skip, keep the default.",
    ...blueprint.slots.map(question),
    "When you have every answer, summarise the settings and ask me to confirm. Only after I " +
    "confirm, create the job by calling the `cronjob` tool with exactly this shape, the " +
    `values being my answers as strings (the defaults are shown): ${call}`,
    "Do not create anything before I confirm, and nothing if I decline.",
  ].join("\n");
}

function deliveryText(job: JobRecord): string {
  if (job.deliver === "origin") return "this chat";
  if (job.deliver === "local") return "saved files only (herald cron show shows the output)";
  return job.deliver;
}

/** The confirmation after a job was created. */
function createdText(blueprint: Blueprint, job: JobRecord): string {
  const next = job.next_run_at === null
    ? "no run planned"
    : `next run ${wallTime(job.next_run_at, job.time_zone)} (${job.time_zone})`;
  return [
    `Scheduled "${job.name}" (${job.id}) from blueprint ${blueprint.key}.`,
    `When: ${humanSchedule(job.schedule, job.time_zone)}; ${next}.`,
    `Delivers to: ${deliveryText(job)}.`,
    `Manage it: /cron list, /cron pause ${job.id}, /cron remove ${job.id}.`,
  ].join("\n");
}

function notFoundText(query: string): string {
  const near = nearBlueprintKeys(query);
  return `No blueprint matches "${query}"` +
    (near.length ? `; did you mean ${near.join(", ")}?` : ".") +
    " Type /blueprint to see them all.";
}

/**
 * Runs `/blueprint <args>` (and `/bp`). Errors come back as text; on an
 * error nothing is created and there is no seed.
 *
 * @example
 * ```ts
 * await runBlueprintCommand("", {});                       // the catalog
 * await runBlueprintCommand("morning", { automations });   // { text, agent_seed }: the questions
 * await runBlueprintCommand("morning-brief time=07:15", { automations }); // creates the job
 * ```
 */
export async function runBlueprintCommand(
  args: string,
  context: BlueprintCommandContext,
): Promise<BlueprintReply> {
  try {
    if (args.trim() === "") return { text: catalogText() };
    const { name, values } = parseBlueprintArgs(args);
    if (name === "") {
      return { text: `Say which blueprint first: /blueprint <name> ${args.trim()}` };
    }
    const match = findBlueprint(name);
    if (!match.blueprint) {
      return {
        text: match.candidates.length ? candidatesText(name, match.candidates) : notFoundText(name),
      };
    }
    const blueprint = match.blueprint;
    if (!context.automations) return { text: CANNOT_SCHEDULE };
    if (values === undefined) {
      return {
        text: `Blueprint "${blueprint.title}" (${blueprint.key}): ${blueprint.description}\n` +
          "I will ask you a few questions to set it up, then confirm before creating it. " +
          `To create it at once instead: ${blueprintCommandText(blueprint)}`,
        agent_seed: blueprintSeed(blueprint),
      };
    }
    const job = await instantiateBlueprint(context.automations, blueprint.key, values, context);
    return { text: createdText(blueprint, job) };
  } catch (error) {
    if (error instanceof HeraldError) return { text: error.message };
    throw error;
  }
}
