/**
 * `/blueprint` (and `/bp`): the catalog listed; a name found forgivingly
 * (exact, prefix, substring, fuzzy; several → the candidates) and turned
 * into a question-by-question fill request; `slot=value` pairs creating
 * the job through `Automations.create` with a confirmation; every error
 * one clear message with nothing created.
 */

import assert from "node:assert/strict";
import {
  BLUEPRINTS,
  findBlueprint,
  instantiateBlueprint,
  runBlueprintCommand,
} from "../../../core/blueprints/mod.ts";
import { HeraldError } from "../../../core/errors.ts";
import { memoryAutomations, NOW } from "./_automations.ts";

Deno.test("no argument lists the catalog by category, with each schedule in words", async () => {
  const reply = await runBlueprintCommand("  ", {});
  assert.equal(reply.agent_seed, undefined);
  for (const blueprint of BLUEPRINTS) {
    assert.match(reply.text, new RegExp(`\\b${blueprint.key}\\b`));
  }
  for (const category of new Set(BLUEPRINTS.map((blueprint) => blueprint.category))) {
    assert.match(reply.text, new RegExp(`^${category}$`, "m"));
  }
  assert.match(reply.text, /morning-brief +Morning briefing \(daily at 08:00\)/);
  assert.match(reply.text, /important-mail +Important mail watch \(every 30 minutes\)/);
  assert.match(reply.text, /\/blueprint <name> slot=value/);
});

Deno.test("a name is matched forgivingly: exact, prefix, substring, tag, spelling", () => {
  const cases: [string, string][] = [
    ["weekly-review", "weekly-review"],
    ["Weekly_Review", "weekly-review"],
    ["important mail watch", "important-mail"],
    ["Bills & renewals", "bill-renewal-watch"],
    ["morn", "morning-brief"],
    ["renewal", "bill-renewal-watch"],
    ["grat", "gratitude-journal"],
    ["food", "meal-plan"],
    ["weekly reveiw", "weekly-review"],
    ["habbit", "habit-checkin"],
    ["hydraton", "hydration-move"],
  ];
  for (const [query, key] of cases) {
    const match = findBlueprint(query);
    assert.equal(match.blueprint?.key, key, query);
    assert.deepEqual(match.candidates, []);
  }
});

Deno.test("several equally good matches are candidates, never a guess", async () => {
  const watch = findBlueprint("watch");
  assert.equal(watch.blueprint, undefined);
  const keys = watch.candidates.map((blueprint) => blueprint.key);
  for (const key of ["important-mail", "price-watch", "competitor-watch", "page-watch"]) {
    assert.ok(keys.includes(key), key);
  }
  assert.deepEqual(findBlueprint("weekly").candidates.map((blueprint) => blueprint.key), [
    "weekly-review",
    "meal-plan",
  ]);
  const automations = memoryAutomations();
  const reply = await runBlueprintCommand("watch", { automations });
  assert.match(reply.text, /^Several blueprints match "watch":/);
  assert.match(reply.text, /price-watch +Price and stock watch/);
  assert.equal(reply.agent_seed, undefined);
  const pairs = await runBlueprintCommand("watch interval_h=3", { automations });
  assert.match(pairs.text, /^Several blueprints match "watch"/);
  assert.deepEqual(automations.jobs, []);
});

Deno.test("a name that matches nothing says so, with near keys when there are some", async () => {
  assert.deepEqual(findBlueprint("xyzzy"), { candidates: [] });
  const reply = await runBlueprintCommand("xyzzy", { automations: memoryAutomations() });
  assert.equal(reply.text, 'No blueprint matches "xyzzy". Type /blueprint to see them all.');
  const near = await runBlueprintCommand("morning coffee", { automations: memoryAutomations() });
  assert.match(near.text, /^No blueprint matches "morning coffee"; did you mean morning-brief/);
});

Deno.test("a name alone seeds a question-by-question fill that ends in the cronjob tool", async () => {
  const automations = memoryAutomations();
  const reply = await runBlueprintCommand("weekly review", { automations, origin: "telegram:42" });
  assert.match(reply.text, /^Blueprint "Weekly review" \(weekly-review\)/);
  assert.match(reply.text, /I will ask you a few questions/);
  assert.match(reply.text, /\/blueprint weekly-review time=18:00 day=sunday deliver=origin/);
  const seed = reply.agent_seed;
  assert.ok(seed);
  assert.match(seed, /ONE question at a time/);
  assert.match(seed, /1\. time: "What time\?" \(24h local time, e\.g\. 08:00\).*Default: 18:00\./);
  assert.match(seed, /2\. day: "Which day\?".*Default: sunday\./);
  assert.match(
    seed,
    /3\. deliver: "Where to deliver\?".*origin, local, telegram, line.*Default: origin\./,
  );
  assert.match(seed, /summarise the settings and ask me to confirm\. Only after I confirm/);
  assert.match(seed, /Do not create anything before I confirm/);
  const call = /`cronjob` tool with exactly this shape.*?: (\{.*\})$/m.exec(seed);
  assert.ok(call, seed);
  assert.deepEqual(JSON.parse(call[1]), {
    action: "blueprint",
    key: "weekly-review",
    values: { time: "18:00", day: "sunday", deliver: "origin" },
  });
  assert.deepEqual(automations.jobs, [], "never created silently");
});

Deno.test("slot=value pairs create the job at once and confirm it", async () => {
  const automations = memoryAutomations();
  const reply = await runBlueprintCommand(
    'reminder what="call \\"mum\\" back" time=18:30 days=mon,thu',
    { automations },
  );
  assert.equal(reply.agent_seed, undefined);
  assert.equal(automations.jobs.length, 1);
  const [job] = automations.jobs;
  assert.equal(job.prompt, 'Remind me of this, in one short and friendly line: call "mum" back');
  assert.deepEqual(job.schedule, {
    kind: "cron",
    // Shown in words: nobody typed the cron the slots made.
    text: "Mondays and Thursdays at 18:30",
    expression: "30 18 * * 1,4",
  });
  assert.equal(job.deliver, "local", "no chat: origin becomes local");
  assert.equal(
    reply.text,
    [
      `Scheduled "Custom reminder" (${job.id}) from blueprint custom-reminder.`,
      "When: Mondays and Thursdays at 18:30; next run 2026-03-30 18:30 (Europe/Berlin).",
      "Delivers to: saved files only (herald cron show shows the output).",
      `Manage it: /cron list, /cron pause ${job.id}, /cron remove ${job.id}.`,
    ].join("\n"),
  );
});

Deno.test("from a chat the job answers there; the schedule slot makes a one-shot", async () => {
  const automations = memoryAutomations();
  const reply = await runBlueprintCommand("custom-reminder schedule='in 45m' what=stretch", {
    automations,
    origin: "telegram:42",
  });
  const [job] = automations.jobs;
  assert.equal(job.deliver, "origin");
  assert.equal(job.origin, "telegram:42");
  assert.equal(job.schedule.kind, "once");
  assert.equal(job.next_run_at, NOW + 45 * 60_000);
  assert.match(reply.text, /When: once at 2026-03-27 09:45; next run 2026-03-27 09:45/);
  assert.match(reply.text, /Delivers to: this chat\./);
});

Deno.test("each bad input is one clear message naming the value, and nothing is created", async () => {
  const cases: [string, RegExp][] = [
    [
      "morning-brief time=25:00",
      /^Slot "time" \(What time\?\): "25:00" is not a time; use HH:MM, 24h, e\.g\. 08:30$/,
    ],
    [
      "meal-plan diet=keto",
      /"keto" is not one of its values; use one of no restrictions, vegetarian/,
    ],
    ["important-mail interval_min=0", /"0" is not a whole number above 0; use one of 15, 30, 60/],
    ["weekly-review day=funday", /"funday" is not a day; use everyday, weekdays, weekends/],
    [
      "morning-brief colour=blue",
      /^Unknown slot "colour"; the slots of morning-brief are: time, days, deliver$/,
    ],
    ["morning-brief __proto__=x", /^Unknown slot "__proto__"; the slots of morning-brief are/],
    [
      'custom-reminder what=""',
      /^Slot "what" \(What should I remind you of\?\) needs a value, not an empty one/,
    ],
    [
      "custom-reminder what=take a break",
      /^"a" is not slot=value; put slots as name=value and quote values with spaces/,
    ],
    ['custom-reminder what="take a break', /^A double quote is not closed/],
    ["morning-brief time=08:00 time=09:00", /^Slot "time" is given twice/],
    [
      "morning-brief deliver=tele_gram!",
      /^Slot "deliver" \(Where to deliver\?\): "tele_gram!" is not a delivery target/,
    ],
    ['custom-reminder schedule="every blue moon"', /^Schedule "every blue moon" is not/],
    ["time=08:00", /^Say which blueprint first: \/blueprint <name> time=08:00$/],
  ];
  for (const [args, message] of cases) {
    const automations = memoryAutomations();
    const reply = await runBlueprintCommand(args, { automations, origin: "telegram:42" });
    assert.match(reply.text, message, args);
    assert.equal(reply.text.split("\n").length, 1, `one message: ${reply.text}`);
    assert.equal(reply.agent_seed, undefined, args);
    assert.deepEqual(await automations.list(), [], `nothing created by ${args}`);
  }
});

Deno.test("a surface that cannot schedule says so and creates nothing", async () => {
  for (const args of ["morning-brief", "morning-brief time=07:00"]) {
    const reply = await runBlueprintCommand(args, {});
    assert.match(reply.text, /^Scheduled jobs cannot be created from here/);
    assert.equal(reply.agent_seed, undefined);
  }
});

Deno.test("instantiating an unknown key names the near ones; a known key makes the job", async () => {
  const automations = memoryAutomations();
  await assert.rejects(
    () => instantiateBlueprint(automations, "morning-brif", {}, {}),
    (error: unknown) => {
      assert.ok(error instanceof HeraldError);
      assert.equal(error.code, "blueprint_not_found");
      assert.equal(error.kind, "not_found");
      assert.match(error.message, /^No blueprint "morning-brif"; did you mean morning-brief/);
      return true;
    },
  );
  await assert.rejects(
    () => instantiateBlueprint(automations, "Morning", {}, {}),
    /No blueprint "Morning"/,
  );
  assert.deepEqual(automations.jobs, []);
  const job = await instantiateBlueprint(automations, "learn-daily", { topic: "Go generics" }, {});
  assert.match(job.prompt!, /about Go generics today/);
  assert.deepEqual(automations.jobs, [job]);
});
