/**
 * The whole catalog, walked: every blueprint's form, slash command, deep
 * link and catalog entry carry the same slots; every blueprint makes a
 * real job with its defaults; and the slash command read back makes the
 * same job as filling the blueprint directly.
 */

import assert from "node:assert/strict";
import {
  type Blueprint,
  blueprintCatalog,
  blueprintCatalogEntry,
  blueprintCommandText,
  blueprintDeepLink,
  blueprintForm,
  BLUEPRINTS,
  fillBlueprint,
  instantiateBlueprint,
  runBlueprintCommand,
} from "../../../core/blueprints/mod.ts";
import { newJob, parseSchedule } from "../../../core/schedules/mod.ts";
import { memoryAutomations, NOW, withoutId, ZONE } from "./_automations.ts";

/** The slot names of a slash command's `slot=value` pairs (quoted values removed first). */
function commandSlots(command: string): string[] {
  const unquoted = command.replace(/"(?:\\.|[^"\\])*"/g, '""');
  return [...unquoted.matchAll(/(?:^|\s)([a-z][a-z0-9_]*)=/g)].map((match) => match[1]);
}

/** The slot names of a deep link's query, and the key in its path. */
function linkParts(link: string): { key: string; slots: string[] } {
  const url = new URL(link);
  assert.equal(url.protocol, "herald:");
  assert.equal(url.host, "blueprint");
  return { key: decodeURIComponent(url.pathname.slice(1)), slots: [...url.searchParams.keys()] };
}

/** A value for every slot: its default, or a sample for the ones without. */
function everyValue(blueprint: Blueprint): Record<string, string> {
  return Object.fromEntries(
    blueprint.slots.map((
      slot,
    ) => [slot.name, slot.default ?? (slot.name === "schedule" ? "every 2h" : "sample")]),
  );
}

Deno.test("the catalog holds the sixteen classic automations and more, with unique keys", () => {
  const keys = BLUEPRINTS.map((blueprint) => blueprint.key);
  assert.equal(new Set(keys).size, keys.length);
  for (
    const key of [
      "morning-brief",
      "important-mail",
      "weekly-review",
      "workday-start",
      "custom-reminder",
      "evening-winddown",
      "news-digest",
      "bill-renewal-watch",
      "price-watch",
      "competitor-watch",
      "habit-checkin",
      "hydration-move",
      "meal-plan",
      "learn-daily",
      "gratitude-journal",
      "on-this-day",
    ]
  ) {
    assert.ok(keys.includes(key), `${key} is in the catalog`);
  }
  assert.deepEqual(blueprintCatalog().map((entry) => entry.key), keys);
});

Deno.test("form, slash command, deep link and catalog entry of every blueprint carry the same slots", () => {
  for (const blueprint of BLUEPRINTS) {
    const slots = blueprint.slots.map((slot) => slot.name);
    const withDefaults = blueprint.slots.filter((slot) => slot.default).map((slot) => slot.name);
    const form = blueprintForm(blueprint);
    const entry = blueprintCatalogEntry(blueprint);
    assert.deepEqual(form.fields.map((field) => field.name), slots, blueprint.key);
    assert.deepEqual(entry.fields, form.fields, blueprint.key);
    assert.equal(entry.key, blueprint.key);
    for (const field of form.fields) {
      const slot = blueprint.slots.find((candidate) => candidate.name === field.name)!;
      assert.equal(field.type, slot.type);
      assert.equal(field.default, slot.default ?? null);
      assert.equal(field.optional, slot.optional ?? false);
      assert.equal(field.strict, slot.strict ?? true);
      assert.deepEqual(field.options, [...(slot.options ?? [])]);
      assert.ok(["time", "enum", "text", "weekdays"].includes(field.type));
    }

    // With the defaults: every slot that has one (empty optional slots are left out).
    assert.equal(entry.command, blueprintCommandText(blueprint));
    assert.ok(entry.command.startsWith(`/blueprint ${blueprint.key} `), entry.command);
    assert.deepEqual(commandSlots(entry.command), withDefaults, entry.command);
    assert.equal(entry.deep_link, blueprintDeepLink(blueprint));
    assert.deepEqual(linkParts(entry.deep_link), { key: blueprint.key, slots: withDefaults });

    // With a value for every slot: all of them, in slot order.
    const values = everyValue(blueprint);
    assert.deepEqual(commandSlots(blueprintCommandText(blueprint, values)), slots, blueprint.key);
    assert.deepEqual(linkParts(blueprintDeepLink(blueprint, values)).slots, slots, blueprint.key);
    assert.deepEqual(
      Object.fromEntries(new URL(blueprintDeepLink(blueprint, values)).searchParams),
      values,
      "the link's values decode to what went in",
    );

    // The entry's schedule is the one the defaults give, in words.
    assert.equal(entry.schedule, fillBlueprint(blueprint, {}, {}).schedule);
    assert.notEqual(entry.schedule_human, "on a schedule", `${blueprint.key}: ${entry.schedule}`);
  }
});

Deno.test("every blueprint makes a real job with its defaults, with a next run", () => {
  for (const blueprint of BLUEPRINTS) {
    const input = fillBlueprint(blueprint, {}, {});
    assert.equal(input.deliver, "local", "origin becomes local without a chat");
    const schedule = parseSchedule(input.schedule, { now: NOW, timeZone: ZONE });
    assert.equal(schedule.kind, "cron", `${blueprint.key}: ${input.schedule}`);
    const job = newJob(input, { now: NOW, timeZone: ZONE });
    assert.equal(job.name, blueprint.title);
    assert.ok(job.next_run_at !== null && job.next_run_at > NOW, blueprint.key);
    assert.ok(job.prompt && !/\{[a-z_]+\}/.test(job.prompt), `${blueprint.key}: ${job.prompt}`);
    assert.deepEqual(job.skills, [...blueprint.skills]);
  }
});

Deno.test("watchers tell the model to answer exactly [SILENT] when there is nothing to report", () => {
  const watchers = BLUEPRINTS.filter((blueprint) => blueprint.category === "Watchers");
  assert.ok(watchers.length >= 3);
  for (const blueprint of watchers) {
    assert.match(blueprint.prompt_template, /answer exactly \[SILENT\]/, blueprint.key);
  }
});

Deno.test("the slash command text, read back, creates the same job as filling the blueprint", async () => {
  for (const origin of [undefined, "telegram:4242"]) {
    for (const blueprint of BLUEPRINTS) {
      for (const values of [undefined, everyValue(blueprint)]) {
        const direct = memoryAutomations();
        const typed = memoryAutomations();
        const expected = await instantiateBlueprint(direct, blueprint.key, values ?? {}, {
          ...(origin ? { origin } : {}),
        });
        const command = blueprintCommandText(blueprint, values);
        const reply = await runBlueprintCommand(command.slice("/blueprint ".length), {
          automations: typed,
          ...(origin ? { origin } : {}),
        });
        assert.equal(reply.agent_seed, undefined);
        assert.equal(typed.jobs.length, 1, `${command}\n${reply.text}`);
        assert.deepEqual(withoutId(typed.jobs[0]), withoutId(expected), command);
        assert.match(reply.text, new RegExp(`\\(${typed.jobs[0].id}\\)`));
      }
    }
  }
});
