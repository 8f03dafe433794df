/**
 * `/api/cron`: the blueprint catalog, its preview and instantiation, and
 * the job endpoints (list, create, show, edit, pause, resume, run now,
 * delete, a run's output), over a real temp profile home: the jobs in its
 * real `cron/jobs.json`, "Run now" running a real script. Bad input is a
 * 400 naming the schedule, slot or field and creates nothing; unknown
 * jobs, blueprints, runs and profiles are 404s; every change is published
 * on the event bus.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { EventBus, type HeraldEvent } from "../../core/events/mod.ts";
import { tempDir } from "../_helpers.ts";
import { readOr, routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;
type Job = Json & { id: string; state: string; next_run_at: number | null; schedule: Json };

/** Monday 5 January 2026, 00:00 UTC: the clock the previews read. */
const NOW = Date.UTC(2026, 0, 5, 0, 0);

/** A test app whose profiles run their jobs in Europe/Berlin, and the events it publishes. */
async function cronApp(root: string) {
  const events = new EventBus();
  const seen: HeraldEvent[] = [];
  events.subscribe({ types: ["cron.job.changed", "cron.job.ran"] }, (event) => {
    seen.push(event);
  });
  const routes = await routesApp(root, { now: () => NOW, events });
  for (const paths of [routes.main, routes.work]) {
    await Deno.mkdir(paths.home, { recursive: true });
    await Deno.writeTextFile(paths.config, "timezone: Europe/Berlin\n", { append: true });
  }
  /** The events published so far, once the bus has delivered them. */
  const published = async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    return seen.map((event) => {
      const { type, profile, source, session_id } = event;
      const rest = event as unknown as Json;
      return {
        type,
        profile,
        source,
        session_id,
        job_id: rest.job_id,
        detail: rest.change ?? rest.status,
      };
    });
  };
  return { ...routes, published };
}

function errorOf(body: Json): { code: string; message: string; details?: Json } {
  return body.error as { code: string; message: string; details?: Json };
}

Deno.test("GET /api/cron/blueprints lists the catalog with each form's fields, schedule and command", async () => {
  await using home = await tempDir();
  const { json } = await cronApp(home.path);
  const { status, body } = await json("GET", "/api/cron/blueprints");
  assert.equal(status, 200);
  const blueprints = body.blueprints as Json[];
  assert.ok(blueprints.length >= 10, "the catalog ships a good number of blueprints");
  const brief = blueprints.find((entry) => entry.key === "morning-brief")!;
  assert.equal(brief.title, "Morning briefing");
  assert.equal(brief.schedule, "0 8 * * *");
  assert.equal(brief.schedule_human, "daily at 08:00");
  assert.match(String(brief.command), /^\/blueprint morning-brief time=08:00/);
  assert.match(String(brief.deep_link), /^herald:\/\/blueprint\/morning-brief\?/);
  const time = (brief.fields as Json[]).find((field) => field.name === "time")!;
  assert.deepEqual(
    [time.type, time.label, time.default, time.optional, time.strict],
    ["time", "What time?", "08:00", false, true],
  );
  for (const entry of blueprints) {
    assert.ok((entry.fields as Json[]).length > 0, `${entry.key} has a form`);
    assert.ok(typeof entry.category === "string" && entry.category !== "");
  }
});

Deno.test("a blueprint preview gives the schedule, in words, and the next runs in the profile's zone", async () => {
  await using home = await tempDir();
  const { json, main } = await cronApp(home.path);
  const { status, body } = await json("POST", "/api/cron/blueprints/preview", {
    key: "morning-brief",
    values: { time: "07:15", days: "weekdays" },
    count: 3,
  });
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.schedule, "15 7 * * 1-5");
  assert.match(String(body.schedule_human), /weekdays at 07:15/);
  assert.equal(body.time_zone, "Europe/Berlin");
  assert.equal(body.command, "/blueprint morning-brief time=07:15 days=weekdays deliver=origin");
  // 07:15 in Berlin in January is 06:15 UTC: Monday, Tuesday, Wednesday.
  assert.deepEqual(body.next_runs, [
    Date.UTC(2026, 0, 5, 6, 15),
    Date.UTC(2026, 0, 6, 6, 15),
    Date.UTC(2026, 0, 7, 6, 15),
  ]);
  const defaults = await json("POST", "/api/cron/blueprints/preview", { key: "morning-brief" });
  assert.equal(defaults.body.schedule, "0 8 * * *");
  assert.equal((defaults.body.next_runs as number[]).length, 5, "five runs by default");
  assert.equal(await readOr(join(main.cron, "jobs.json")), "", "a preview creates nothing");
});

Deno.test("a bad slot value in a preview or an instantiation is a 400 naming the slot, and nothing is created", async () => {
  await using home = await tempDir();
  const { json, main, published } = await cronApp(home.path);
  const cases: [Json, string, RegExp][] = [
    [{ time: "25:00" }, "time", /25:00/],
    [{ days: "someday" }, "days", /someday/],
    [{ colour: "blue" }, "colour", /Unknown slot "colour".*time, days, deliver/],
  ];
  for (const [values, slot, message] of cases) {
    for (const path of ["/api/cron/blueprints/preview", "/api/cron/blueprints/instantiate"]) {
      const { status, body } = await json("POST", path, { key: "morning-brief", values });
      assert.equal(status, 400, `${path} ${JSON.stringify(values)}: ${JSON.stringify(body)}`);
      const error = errorOf(body);
      assert.equal(error.code, "blueprint_invalid");
      assert.equal(error.details?.slot, slot);
      assert.match(error.message, message);
    }
  }
  const listed = await json("GET", "/api/cron/jobs");
  assert.deepEqual(listed.body.jobs, []);
  assert.equal(await readOr(join(main.cron, "jobs.json")), "");
  assert.deepEqual(await published(), [], "no event for what was refused");

  const unknown = await json("POST", "/api/cron/blueprints/instantiate", {
    key: "morning-brif",
    values: {},
  });
  assert.equal(unknown.status, 404);
  assert.equal(errorOf(unknown.body).code, "blueprint_not_found");
  assert.match(errorOf(unknown.body).message, /morning-brief/, "the near key is suggested");
  const noKey = await json("POST", "/api/cron/blueprints/preview", { values: {} });
  assert.equal(noKey.status, 400);
  assert.match(errorOf(noKey.body).message, /"key"/);
  const badValues = await json("POST", "/api/cron/blueprints/preview", {
    key: "morning-brief",
    values: { time: 8 },
  });
  assert.equal(badValues.status, 400);
  assert.match(errorOf(badValues.body).message, /values/);
});

Deno.test("instantiating a blueprint creates the job through the one creation path, listed with its next run", async () => {
  await using home = await tempDir();
  const { json, main, published } = await cronApp(home.path);
  const before = Date.now();
  const { status, body } = await json("POST", "/api/cron/blueprints/instantiate", {
    key: "morning-brief",
    values: { time: "07:30", days: "weekdays" },
  });
  assert.equal(status, 201, JSON.stringify(body));
  const job = body.job as Job;
  assert.equal(job.name, "Morning briefing");
  assert.deepEqual(job.schedule, {
    kind: "cron",
    text: "weekdays at 07:30",
    expression: "30 7 * * 1-5",
  });
  assert.equal(job.deliver, "local", "no chat to answer to: the dashboard's jobs keep files");
  assert.equal(job.state, "scheduled");
  assert.equal(job.time_zone, "Europe/Berlin");
  assert.ok(job.next_run_at !== null && job.next_run_at > before);

  const listed = await json("GET", "/api/cron/jobs");
  assert.equal(listed.status, 200);
  assert.deepEqual((listed.body.jobs as Job[]).map((entry) => entry.id), [job.id]);
  const status2 = listed.body.status as Json;
  assert.equal(status2.profile, "default");
  assert.equal(status2.time_zone, "Europe/Berlin");
  assert.deepEqual(status2.jobs, { total: 1, scheduled: 1, paused: 0, completed: 0 });
  assert.deepEqual(status2.next, { job_id: job.id, name: "Morning briefing", at: job.next_run_at });
  const stored = JSON.parse(await Deno.readTextFile(join(main.cron, "jobs.json")));
  assert.equal(JSON.stringify(stored).includes(job.id), true, "kept in cron/jobs.json");
  assert.deepEqual(await published(), [{
    type: "cron.job.changed",
    profile: "default",
    source: "dashboard",
    session_id: null,
    job_id: job.id,
    detail: "created",
  }]);
});

Deno.test("POST /api/cron/jobs creates a job from a typed schedule; a bad schedule or nothing to run creates nothing", async () => {
  await using home = await tempDir();
  const { json, main } = await cronApp(home.path);
  const bad = await json("POST", "/api/cron/jobs", {
    schedule: "every blue moon",
    prompt: "Howl",
  });
  assert.equal(bad.status, 400);
  assert.equal(errorOf(bad.body).code, "schedule_invalid");
  assert.match(errorOf(bad.body).message, /"every blue moon"/);
  const badCron = await json("POST", "/api/cron/jobs", { schedule: "61 * * * *", prompt: "x" });
  assert.equal(badCron.status, 400);
  assert.match(errorOf(badCron.body).message, /"61 \* \* \* \*"/);
  const empty = await json("POST", "/api/cron/jobs", { schedule: "every 2h" });
  assert.equal(empty.status, 400);
  assert.equal(errorOf(empty.body).code, "job_invalid");
  assert.equal(errorOf(empty.body).details?.field, "prompt");
  const origin = await json("POST", "/api/cron/jobs", {
    schedule: "every 2h",
    prompt: "x",
    deliver: "origin",
  });
  assert.equal(origin.status, 400);
  assert.equal(errorOf(origin.body).details?.field, "deliver");
  const noSchedule = await json("POST", "/api/cron/jobs", { prompt: "x" });
  assert.equal(noSchedule.status, 400);
  assert.match(errorOf(noSchedule.body).message, /"schedule"/);
  const wrongType = await json("POST", "/api/cron/jobs", { schedule: "every 2h", skills: "a" });
  assert.equal(wrongType.status, 400);
  assert.match(errorOf(wrongType.body).message, /skills/);
  assert.equal(await readOr(join(main.cron, "jobs.json")), "", "nothing was created");

  const made = await json("POST", "/api/cron/jobs", {
    schedule: "every monday 9am",
    prompt: "Plan my week",
    name: "Week plan",
    deliver: "telegram:12345",
    repeat: 4,
    skills: ["calendar"],
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const job = made.body.job as Job;
  assert.equal(job.name, "Week plan");
  assert.deepEqual(job.schedule, {
    kind: "cron",
    text: "every monday 9am",
    expression: "0 9 * * 1",
  });
  assert.deepEqual(job.repeat, { times: 4, done: 0 });
  assert.deepEqual(job.skills, ["calendar"]);
  assert.equal(job.deliver, "telegram:12345");
});

Deno.test("a job is shown with its runs, edited, paused and resumed, with an event for each change", async () => {
  await using home = await tempDir();
  const { json, published } = await cronApp(home.path);
  const job = (await json("POST", "/api/cron/jobs", { schedule: "every 2h", prompt: "Check" }))
    .body.job as Job;

  const shown = await json("GET", `/api/cron/jobs/${job.id}`);
  assert.equal(shown.status, 200);
  assert.equal((shown.body.job as Job).id, job.id);
  assert.deepEqual(shown.body.runs, []);
  const byName = await json("GET", `/api/cron/jobs/${encodeURIComponent("check")}`);
  assert.equal((byName.body.job as Job).id, job.id, "a unique name names the job too");

  const edited = await json("PATCH", `/api/cron/jobs/${job.id}`, {
    schedule: "weekdays at 08:30",
    name: "Morning check",
    add_skills: ["inbox"],
  });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  const after = edited.body.job as Job;
  assert.equal(after.name, "Morning check");
  assert.deepEqual(after.schedule, {
    kind: "cron",
    text: "weekdays at 08:30",
    expression: "30 8 * * 1-5",
  });
  assert.deepEqual(after.skills, ["inbox"]);
  const removedSkill = await json("PATCH", `/api/cron/jobs/${job.id}`, {
    remove_skills: ["inbox"],
  });
  assert.deepEqual((removedSkill.body.job as Job).skills, []);

  const badEdit = await json("PATCH", `/api/cron/jobs/${job.id}`, { schedule: "at teatime" });
  assert.equal(badEdit.status, 400);
  assert.match(errorOf(badEdit.body).message, /"at teatime"/);
  const typo = await json("PATCH", `/api/cron/jobs/${job.id}`, { schedul: "every 3h" });
  assert.equal(typo.status, 400);
  assert.match(errorOf(typo.body).message, /unknown field "schedul"/);
  const clearing = await json("PATCH", `/api/cron/jobs/${job.id}`, { prompt: null });
  assert.equal(clearing.status, 400, "a job left with nothing to run is refused");
  const unchanged = (await json("GET", `/api/cron/jobs/${job.id}`)).body.job as Job;
  assert.equal(unchanged.schedule.text, "weekdays at 08:30");
  assert.equal(unchanged.prompt, "Check");

  const paused = await json("POST", `/api/cron/jobs/${job.id}/pause`);
  assert.equal(paused.status, 200);
  assert.equal((paused.body.job as Job).state, "paused");
  const resumed = await json("POST", `/api/cron/jobs/${job.id}/resume`, {});
  assert.equal(resumed.status, 200);
  assert.equal((resumed.body.job as Job).state, "scheduled");
  assert.ok((resumed.body.job as Job).next_run_at! > Date.now() - 1000);

  assert.deepEqual((await published()).map((event) => event.detail), [
    "created",
    "edited",
    "edited",
    "paused",
    "resumed",
  ]);
});

Deno.test("Run now runs the job's script, records the run, and its output is read back; delete removes job and runs", async () => {
  await using home = await tempDir();
  const { json, main, published } = await cronApp(home.path);
  const job = (await json("POST", "/api/cron/jobs", {
    schedule: "every 1d",
    script: "echo 'hello from the job'",
    script_only: true,
    name: "Echo",
  })).body.job as Job;

  const ran = await json("POST", `/api/cron/jobs/${job.id}/run`);
  assert.equal(ran.status, 200, JSON.stringify(ran.body));
  const run = ran.body.run as Json;
  assert.equal(run.job_id, job.id);
  assert.equal(run.status, "ok");
  assert.equal(run.delivered, "local");

  const shown = await json("GET", `/api/cron/jobs/${job.id}`);
  const runs = shown.body.runs as Json[];
  assert.equal(runs.length, 1);
  assert.equal(runs[0].status, "ok");
  assert.equal((shown.body.job as Job).last_status, "ok");
  const output = await json(
    "GET",
    `/api/cron/jobs/${job.id}/runs/${encodeURIComponent(String(runs[0].file))}`,
  );
  assert.equal(output.status, 200, JSON.stringify(output.body));
  assert.match(String((output.body.run as Json).output), /hello from the job/);
  const missing = await json("GET", `/api/cron/jobs/${job.id}/runs/2020-01-01T00-00-00Z.md`);
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing.body).code, "run_not_found");

  const removed = await json("DELETE", `/api/cron/jobs/${job.id}`);
  assert.equal(removed.status, 200);
  assert.equal((removed.body.removed as Job).id, job.id);
  const gone = await json("GET", `/api/cron/jobs/${job.id}`);
  assert.equal(gone.status, 404);
  assert.equal(errorOf(gone.body).code, "job_not_found");
  assert.deepEqual((await json("GET", "/api/cron/jobs")).body.jobs, []);
  assert.equal(await readOr(join(main.cron, "output", job.id, String(runs[0].file))), "");

  assert.deepEqual((await published()).map((event) => [event.type, event.detail]), [
    ["cron.job.changed", "created"],
    ["cron.job.ran", "ok"],
    ["cron.job.changed", "removed"],
  ]);
});

Deno.test("an unknown job is a 404 on every job route, naming it", async () => {
  await using home = await tempDir();
  const { json } = await cronApp(home.path);
  const routes: [string, string, unknown?][] = [
    ["GET", "/api/cron/jobs/job_nothere1"],
    ["PATCH", "/api/cron/jobs/job_nothere1", { name: "x" }],
    ["POST", "/api/cron/jobs/job_nothere1/pause"],
    ["POST", "/api/cron/jobs/job_nothere1/resume"],
    ["POST", "/api/cron/jobs/job_nothere1/run"],
    ["DELETE", "/api/cron/jobs/job_nothere1"],
    ["GET", "/api/cron/jobs/job_nothere1/runs/2026-01-01T00-00-00Z.md"],
  ];
  for (const [method, path, body] of routes) {
    const answer = await json(method, path, body);
    assert.equal(answer.status, 404, `${method} ${path}`);
    assert.equal(errorOf(answer.body).code, "job_not_found");
    assert.match(errorOf(answer.body).message, /"job_nothere1"/);
  }
});

Deno.test("the cron routes need the token, also through a percent-encoded path", async () => {
  await using home = await tempDir();
  const { request } = await cronApp(home.path);
  for (const path of ["/api/cron/jobs", "/%61pi/cron/jobs", "/api/cron/blueprints"]) {
    const refused = await request(path, { auth: false });
    assert.equal(refused.status, 401, path);
    await refused.body?.cancel();
  }
  const created = await request("/%61pi/cron/jobs", {
    method: "POST",
    auth: false,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ schedule: "every 2h", prompt: "x" }),
  });
  assert.equal(created.status, 401);
  await created.body?.cancel();
  const allowed = await request("/%61pi/cron/jobs");
  assert.equal(allowed.status, 200);
  assert.deepEqual((await allowed.json()).jobs, []);
});

Deno.test("jobs are scoped to the profile the query or the body names; an unknown profile is a 404", async () => {
  await using home = await tempDir();
  const { json, work, main, published } = await cronApp(home.path);
  const inWork = await json("POST", "/api/cron/jobs?profile=default", {
    schedule: "every 2h",
    prompt: "Work things",
    profile: "work",
  });
  assert.equal(inWork.status, 201);
  const job = inWork.body.job as Job;
  assert.deepEqual((await json("GET", "/api/cron/jobs")).body.jobs, []);
  const listed = await json("GET", "/api/cron/jobs?profile=work");
  assert.deepEqual((listed.body.jobs as Job[]).map((entry) => entry.id), [job.id]);
  assert.equal((listed.body.status as Json).profile, "work");
  assert.equal((await json("GET", `/api/cron/jobs/${job.id}`)).status, 404, "not the default's");
  const fromBlueprint = await json("POST", "/api/cron/blueprints/instantiate", {
    key: "workday-start",
    profile: "work",
  });
  assert.equal(fromBlueprint.status, 201);
  assert.match(await Deno.readTextFile(join(work.cron, "jobs.json")), /Workday kickoff/);
  assert.equal(await readOr(join(main.cron, "jobs.json")), "");
  assert.deepEqual(
    (await published()).map((event) => event.profile),
    ["work", "work"],
    "the events name the profile",
  );

  for (
    const [method, path] of [
      ["GET", "/api/cron/jobs?profile=nobody"],
      ["GET", "/api/cron/blueprints?profile=nobody"],
      ["POST", "/api/cron/jobs?profile=nobody"],
      ["POST", "/api/cron/blueprints/preview?profile=nobody"],
      ["POST", `/api/cron/jobs/${job.id}/pause?profile=nobody`],
    ]
  ) {
    const answer = await json(
      method,
      path,
      method === "POST" ? { key: "x", schedule: "x" } : undefined,
    );
    assert.equal(answer.status, 404, `${method} ${path}`);
    assert.equal(errorOf(answer.body).code, "profile_not_found");
  }
});
