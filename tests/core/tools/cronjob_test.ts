/**
 * The agent's `cronjob` tool over a real profile home (cron/jobs.json)
 * under a fake clock, called through the tool registry as the model calls
 * it: list, create (delivering back to the chat it came from), update,
 * pause, resume, remove and a job from a blueprint; each refusal reaches
 * the model with the use case's code and message, and creates nothing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { createCronjobTool } from "../../../core/tools/cronjob.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { profileAutomations } from "../../../core/usecases/cron.ts";
import { toolContext } from "../../adapters/tools/_context.ts";
import { tempDir } from "../../_helpers.ts";

/** Monday 2026-11-23, 13:00 in Berlin. */
const START = Date.UTC(2026, 10, 23, 12, 0);

async function setup(root: string, origin?: string) {
  const paths = profilePaths(root, "default");
  await Deno.writeTextFile(paths.config, "timezone: Europe/Berlin\n");
  const automations = profileAutomations(openProfileContext(paths, {}), { now: () => START });
  const registry = new ToolRegistry([
    createCronjobTool(automations, origin === undefined ? {} : { origin }),
  ]);
  const context = toolContext({ cwd: root });
  let calls = 0;
  const call = async (args: Record<string, unknown>) => {
    const result = await registry.execute(
      { id: `call_${++calls}`, name: "cronjob", arguments: JSON.stringify(args) },
      context,
    );
    return result.ok
      ? { ok: true as const, value: JSON.parse(result.content) }
      : { ok: false as const, code: result.code, message: result.message };
  };
  const jobsText = () => Deno.readTextFile(join(paths.cron, "jobs.json")).catch(() => "(none)");
  return { automations, registry, call, jobsText };
}

Deno.test("cronjob creates, lists, updates, pauses, resumes and removes jobs", async () => {
  await using dir = await tempDir();
  const { call, automations } = await setup(dir.path, "telegram:42");
  assert.deepEqual(await call({ action: "list" }), { ok: true, value: { jobs: [] } });

  const created = await call({
    action: "create",
    schedule: "every monday 9am",
    prompt: "Plan my week",
    name: "Week plan",
    skills: ["calendar"],
  });
  assert.ok(created.ok, JSON.stringify(created));
  const job = created.value.created;
  assert.deepEqual({ ...job, id: "-" }, {
    id: "-",
    name: "Week plan",
    schedule: "every monday 9am",
    state: "scheduled",
    next_run: "2026-11-30T08:00:00.000Z",
    time_zone: "Europe/Berlin",
    deliver: "origin",
    last_status: null,
  });
  const stored = await automations.get(job.id);
  assert.equal(stored.origin, "telegram:42");
  assert.deepEqual(stored.skills, ["calendar"]);

  const local = await call({
    action: "create",
    schedule: "in 45m",
    prompt: "Stretch",
    deliver: "local",
  });
  assert.ok(local.ok);
  assert.equal(local.value.created.deliver, "local");
  assert.equal(local.value.created.next_run, "2026-11-23T12:45:00.000Z");

  const listed = await call({ action: "list" });
  assert.ok(listed.ok);
  assert.deepEqual(listed.value.jobs.map((j: { name: string }) => j.name), [
    "Stretch",
    "Week plan",
  ]);

  const updated = await call({
    action: "update",
    job_id: "Week plan",
    schedule: "weekdays at 08:30",
    skills: [],
    repeat: 5,
  });
  assert.ok(updated.ok, JSON.stringify(updated));
  assert.equal(updated.value.updated.schedule, "weekdays at 08:30");
  assert.equal(updated.value.updated.next_run, "2026-11-24T07:30:00.000Z");
  const changed = await automations.get(job.id);
  assert.deepEqual(changed.skills, []);
  assert.deepEqual(changed.repeat, { times: 5, done: 0 });

  const paused = await call({ action: "pause", job_id: job.id });
  assert.ok(paused.ok);
  assert.equal(paused.value.paused.state, "paused");
  const resumed = await call({ action: "resume", job_id: job.id });
  assert.ok(resumed.ok);
  assert.equal(resumed.value.resumed.state, "scheduled");
  assert.equal(resumed.value.resumed.next_run, "2026-11-24T07:30:00.000Z");

  const removed = await call({ action: "remove", job_id: job.id });
  assert.deepEqual(removed, { ok: true, value: { removed: { id: job.id, name: "Week plan" } } });
  assert.deepEqual((await automations.list()).map((j) => j.name), ["Stretch"]);
});

Deno.test("cronjob creates a job from a blueprint, delivering to the chat it came from", async () => {
  await using dir = await tempDir();
  const { call, automations } = await setup(dir.path, "telegram:42");
  const made = await call({ action: "blueprint", key: "morning-brief", values: { time: "07:15" } });
  assert.ok(made.ok, JSON.stringify(made));
  assert.equal(made.value.created.next_run, "2026-11-24T06:15:00.000Z");
  const job = await automations.get(made.value.created.id);
  assert.equal(job.origin, "telegram:42");
  assert.equal(job.deliver, "origin");
  assert.equal(job.schedule.kind, "cron");
});

Deno.test("each refusal reaches the model with its code and message, and nothing is created", async () => {
  await using dir = await tempDir();
  const { call, jobsText } = await setup(dir.path);
  const kept = await call({ action: "create", schedule: "every 2h", prompt: "Keep me" });
  assert.ok(kept.ok);
  // Without a chat, a job saves its output locally.
  assert.equal(kept.value.created.deliver, "local");
  const before = await jobsText();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ action: "create", prompt: "No schedule" }, "cronjob_args", /create needs a schedule/],
    [
      { action: "create", schedule: "every fortnight", prompt: "x" },
      "schedule_invalid",
      /"every fortnight"/,
    ],
    [{ action: "create", schedule: "every 2h" }, "job_invalid", /nothing to run/],
    [
      { action: "create", schedule: "every 2h", prompt: "x", deliver: "origin" },
      "job_invalid",
      /not created from a chat/,
    ],
    [
      { action: "create", schedule: "every 2h", prompt: "x", repeat: 0 },
      "invalid_arguments",
      /repeat/,
    ],
    [{ action: "fly" }, "invalid_arguments", /action/],
    [{ action: "update", job_id: "Keep me" }, "cronjob_args", /update needs a change/],
    [{ action: "update", prompt: "x" }, "cronjob_args", /update needs job_id/],
    [{ action: "pause", job_id: "nobody" }, "job_not_found", /No job "nobody"/],
    [
      { action: "update", job_id: "Keep me", schedule: "every 0m" },
      "schedule_invalid",
      /"every 0m"/,
    ],
    [{ action: "blueprint" }, "cronjob_args", /blueprint needs key/],
    [{ action: "blueprint", key: "morning-brif" }, "blueprint_not_found", /morning-brief/],
    [
      { action: "blueprint", key: "morning-brief", values: { time: "25:00" } },
      "blueprint_invalid",
      /25:00/,
    ],
  ];
  for (const [args, code, message] of cases) {
    const result = await call(args);
    assert.ok(!result.ok, `${JSON.stringify(args)} was refused`);
    assert.equal(result.code, code, JSON.stringify(args));
    assert.match(result.message, message, JSON.stringify(args));
  }
  assert.equal(await jobsText(), before);
});

Deno.test("the cronjob tool tells the model what it is for and which actions it takes", async () => {
  await using dir = await tempDir();
  const { registry } = await setup(dir.path);
  const [spec] = registry.specs();
  assert.equal(spec.name, "cronjob");
  assert.match(spec.description, /scheduled jobs/);
  const properties = (spec.parameters as { properties: Record<string, { enum?: string[] }> })
    .properties;
  assert.deepEqual(properties.action.enum, [
    "list",
    "create",
    "update",
    "pause",
    "resume",
    "remove",
    "blueprint",
  ]);
  for (const field of ["job_id", "schedule", "prompt", "skills", "deliver", "repeat", "key"]) {
    assert.ok(field in properties, field);
  }
});
