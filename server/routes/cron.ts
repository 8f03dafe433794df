/**
 * `/api/cron`: the profile's scheduled jobs and the blueprint catalog, as
 * `herald cron` and `/blueprint` drive them. The work is core's (an
 * {@link Automations} over the profile, core/blueprints); every job is
 * created through `Automations.create`. Each change the dashboard makes is
 * published on the event bus (`cron.job.changed`, `cron.job.ran`).
 *
 * | route | body | answer |
 * | --- | --- | --- |
 * | `GET /api/cron/blueprints` | | `{blueprints}` |
 * | `POST /api/cron/blueprints/preview` | `{key, values?, count?}` | `{schedule, schedule_human, next_runs, time_zone, command}` |
 * | `POST /api/cron/blueprints/instantiate` | `{key, values?}` | 201 `{job}` |
 * | `GET /api/cron/jobs` | | `{jobs, status}` |
 * | `POST /api/cron/jobs` | `{schedule, prompt?, script?, script_only?, skills?, deliver?, name?, repeat?}` | 201 `{job}` |
 * | `GET /api/cron/jobs/:id` | | `{job, runs}` |
 * | `PATCH /api/cron/jobs/:id` | changes (`add_skills`, `remove_skills`, ...) | `{job}` |
 * | `POST /api/cron/jobs/:id/pause`, `/resume` | | `{job}` |
 * | `POST /api/cron/jobs/:id/run` | | `{run}` |
 * | `DELETE /api/cron/jobs/:id` | | `{removed}` |
 * | `GET /api/cron/jobs/:id/runs/:file` | | `{run}` |
 *
 * A bad schedule, slot or field is a 400 naming it (nothing is created or
 * changed), an unknown job, blueprint or run a 404.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { z } from "zod";
import {
  blueprintByKey,
  blueprintCatalog,
  blueprintCommandText,
  instantiateBlueprint,
  previewBlueprint,
} from "../../core/blueprints/mod.ts";
import { eventOf, type EventPayload } from "../../core/events/mod.ts";
import type { Automations, JobChanges, JobRecord } from "../../core/schedules/mod.ts";
import { parseInput } from "../../core/validation.ts";
import { openAutomations } from "../../adapters/runtime/automations.ts";
import type { RouteDeps } from "../deps.ts";
import { scopedProfile } from "../profile_scope.ts";
import { absentAsUndefined, intQuery, jsonBody, requiredString } from "../_input.ts";

/** The most characters a prompt or script sent to these routes may have. */
const MAX_TEXT = 20_000;
/** The most characters a schedule, name, delivery target or slot value may have. */
const MAX_SHORT = 500;
/** The most skills, or blueprint values, one request may name. */
const MAX_ITEMS = 50;

function text(name: string, max: number) {
  return z.string({ error: `"${name}" must be a string` }).max(
    max,
    `"${name}" is longer than ${max} characters`,
  );
}

function skillList(name: string) {
  return absentAsUndefined(
    z.array(text(name, MAX_SHORT), { error: `"${name}" must be a list of skill names` })
      .max(MAX_ITEMS, `"${name}" names more than ${MAX_ITEMS} skills`),
  );
}

const repeatCount = z.number({ error: '"repeat" must be a whole number of runs, or null' });

/** Slot values: `{time: "07:30", days: "weekdays"}`. */
const SlotValues = absentAsUndefined(
  z.record(text("values", MAX_SHORT), text("values", MAX_SHORT), {
    error: '"values" must be an object of slot names to text values',
  }).refine(
    (values) => Object.keys(values).length <= MAX_ITEMS,
    `"values" names more than ${MAX_ITEMS} slots`,
  ),
);

const blueprintKey = requiredString("key", {
  trim: true,
  message: '"key" (the blueprint\'s key, such as morning-brief) is required',
});

/** `POST /api/cron/blueprints/preview`. */
const PreviewBody = z.looseObject({
  key: blueprintKey,
  values: SlotValues,
  count: absentAsUndefined(
    z.number({ error: '"count" must be a whole number from 1 to 20' }).int().min(1).max(20),
  ),
});

/** `POST /api/cron/blueprints/instantiate`. */
const InstantiateBody = z.looseObject({ key: blueprintKey, values: SlotValues });

/** `POST /api/cron/jobs`: a job as `herald cron create` takes it. */
const CreateBody = z.looseObject({
  schedule: requiredString("schedule", {
    message: '"schedule" (such as "every 2h", "weekdays at 08:30" or "0 9 * * 1") is required',
  }).pipe(text("schedule", MAX_SHORT)),
  prompt: absentAsUndefined(text("prompt", MAX_TEXT)),
  script: absentAsUndefined(text("script", MAX_TEXT)),
  script_only: absentAsUndefined(z.boolean({ error: '"script_only" must be true or false' })),
  skills: skillList("skills"),
  deliver: absentAsUndefined(text("deliver", MAX_SHORT)),
  name: absentAsUndefined(text("name", MAX_SHORT)),
  repeat: absentAsUndefined(repeatCount),
});

/** `PATCH /api/cron/jobs/:id`: what changes (absent fields stay); unknown fields are refused. */
const EditBody = z.strictObject({
  profile: z.string().optional(),
  name: absentAsUndefined(text("name", MAX_SHORT)),
  schedule: absentAsUndefined(text("schedule", MAX_SHORT)),
  prompt: text("prompt", MAX_TEXT).nullable().optional(),
  script: text("script", MAX_TEXT).nullable().optional(),
  skills: skillList("skills"),
  add_skills: skillList("add_skills"),
  remove_skills: skillList("remove_skills"),
  deliver: absentAsUndefined(text("deliver", MAX_SHORT)),
  repeat: repeatCount.nullable().optional(),
  catch_up: absentAsUndefined(
    z.enum(["run_once", "skip"], { error: '"catch_up" must be "run_once" or "skip"' }),
  ),
}, {
  error: (issue) => issue.code === "unrecognized_keys" ? unknownFields(issue.keys) : undefined,
});

function unknownFields(keys: readonly string[]): string {
  return `unknown field${keys.length === 1 ? "" : "s"} ${
    keys.map((key) => `"${key}"`).join(", ")
  }; a job's changes are name, schedule, prompt, script, skills, add_skills, remove_skills, ` +
    "deliver, repeat and catch_up";
}

/** The edit body as the {@link JobChanges} core takes. */
function jobChanges(body: z.output<typeof EditBody>): JobChanges {
  const changes: JobChanges = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.schedule !== undefined) changes.schedule = body.schedule;
  if (body.prompt !== undefined) changes.prompt = body.prompt;
  if (body.script !== undefined) changes.script = body.script;
  if (body.skills !== undefined) changes.skills = body.skills;
  if (body.add_skills !== undefined) changes.addSkills = body.add_skills;
  if (body.remove_skills !== undefined) changes.removeSkills = body.remove_skills;
  if (body.deliver !== undefined) changes.deliver = body.deliver;
  if (body.repeat !== undefined) changes.repeat = body.repeat;
  if (body.catch_up !== undefined) changes.catch_up = body.catch_up;
  return changes;
}

/** Registers the scheduled-job routes. */
export function registerCronRoutes(app: Hono, deps: RouteDeps): void {
  const now = () => (deps.now ?? Date.now)();
  const ticker = `dashboard:${Deno.pid}`;

  /** The jobs of the profile a request names (`raw`: its JSON body, whose `profile` wins). */
  const automations = async (c: Context, raw?: unknown): Promise<Automations> =>
    openAutomations(await scopedProfile(c, deps, raw), deps.env, { ticker });

  /** A write's jobs and its body checked by `schema` (the profile first: unknown is a 404). */
  const writing = async <S extends z.ZodType>(c: Context, schema: S, optional = false) => {
    const raw = await jsonBody(c, { optional });
    const jobs = await automations(c, raw);
    return { jobs, body: parseInput(schema, raw, "The request body") as z.output<S> };
  };

  const changed = (
    jobs: Automations,
    job: JobRecord,
    change: EventPayload<"cron.job.changed">["change"],
  ) => {
    deps.events.publish(
      eventOf("cron.job.changed", cronSubject(jobs), { job_id: job.id, change }),
    );
  };

  app.get("/api/cron/blueprints", async (c) => {
    // The catalog is every profile's, but a profile named is checked like everywhere else.
    await scopedProfile(c, deps);
    return c.json({ blueprints: blueprintCatalog() });
  });

  app.post("/api/cron/blueprints/preview", async (c) => {
    const { jobs, body } = await writing(c, PreviewBody);
    const blueprint = blueprintByKey(body.key);
    const values = body.values ?? {};
    const timeZone = await jobs.timeZone();
    const preview = previewBlueprint(blueprint, values, {
      now: now(),
      timeZone,
      count: body.count ?? 5,
    });
    return c.json({
      ...preview,
      time_zone: timeZone,
      command: blueprintCommandText(blueprint, values),
    });
  });

  app.post("/api/cron/blueprints/instantiate", async (c) => {
    const { jobs, body } = await writing(c, InstantiateBody);
    const job = await instantiateBlueprint(jobs, body.key, body.values ?? {}, {});
    changed(jobs, job, "created");
    return c.json({ job }, 201);
  });

  app.get("/api/cron/jobs", async (c) => {
    const jobs = await automations(c);
    return c.json({ jobs: await jobs.list(), status: await jobs.status() });
  });

  app.post("/api/cron/jobs", async (c) => {
    const { jobs, body } = await writing(c, CreateBody);
    const job = await jobs.create({
      schedule: body.schedule,
      ...(body.prompt !== undefined ? { prompt: body.prompt } : {}),
      ...(body.script !== undefined ? { script: body.script } : {}),
      ...(body.script_only !== undefined ? { scriptOnly: body.script_only } : {}),
      ...(body.skills !== undefined ? { skills: body.skills } : {}),
      ...(body.deliver !== undefined ? { deliver: body.deliver } : {}),
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.repeat !== undefined ? { repeat: body.repeat } : {}),
    });
    changed(jobs, job, "created");
    return c.json({ job }, 201);
  });

  app.get("/api/cron/jobs/:id", async (c) => {
    const jobs = await automations(c);
    const job = await jobs.get(c.req.param("id"));
    const limit = intQuery(c, "limit", 50, { min: 1, max: 500 });
    return c.json({ job, runs: await jobs.history(job.id, limit) });
  });

  app.patch("/api/cron/jobs/:id", async (c) => {
    const { jobs, body } = await writing(c, EditBody);
    const job = await jobs.edit(c.req.param("id"), jobChanges(body));
    changed(jobs, job, "edited");
    return c.json({ job });
  });

  for (const action of ["pause", "resume"] as const) {
    app.post(`/api/cron/jobs/:id/${action}`, async (c) => {
      const { jobs } = await writing(c, z.looseObject({}), true);
      const job = await jobs[action](c.req.param("id"));
      changed(jobs, job, action === "pause" ? "paused" : "resumed");
      return c.json({ job });
    });
  }

  app.post("/api/cron/jobs/:id/run", async (c) => {
    const { jobs } = await writing(c, z.looseObject({}), true);
    const run = await jobs.run(c.req.param("id"));
    deps.events.publish(
      eventOf("cron.job.ran", cronSubject(jobs), { job_id: run.job_id, status: run.status }),
    );
    return c.json({ run });
  });

  app.delete("/api/cron/jobs/:id", async (c) => {
    const { jobs } = await writing(c, z.looseObject({}), true);
    const removed = await jobs.remove(c.req.param("id"));
    changed(jobs, removed, "removed");
    return c.json({ removed });
  });

  app.get("/api/cron/jobs/:id/runs/:file", async (c) => {
    const jobs = await automations(c);
    return c.json({ run: await jobs.output(c.req.param("id"), c.req.param("file")) });
  });
}

/** Who a job event is about: the profile; no session; the dashboard. */
function cronSubject(jobs: Automations) {
  return { profile: jobs.profile, session_id: null, source: "dashboard" };
}
