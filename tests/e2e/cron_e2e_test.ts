/**
 * The real `herald cron` as a subprocess in a temporary home: a job
 * created (text and --json), listed, shown, edited, paused, resumed and
 * removed; an invalid schedule refused with exit 2 and nothing stored; a
 * script-only job run now, its output saved under cron/output/<job>/; a
 * due job run by `herald cron tick`; a named profile's jobs kept apart.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";

interface Job {
  id: string;
  name: string;
  state: string;
  skills: string[];
  next_run_at: number | null;
  schedule: { text: string };
}

async function herald(home: string, ...args: string[]) {
  return await runHerald({ args, home });
}

Deno.test("herald cron creates, lists, shows, edits, pauses, resumes and removes a job", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(join(home.path, "config.yaml"), "timezone: Europe/Berlin\n");

  const help = await herald(home.path, "cron", "--help");
  assert.equal(help.code, 0, help.stderr);
  for (const verb of ["list", "show", "create", "edit", "pause", "resume", "run", "remove"]) {
    assert.match(help.stdout, new RegExp(`^  ${verb}\\b`, "m"), verb);
  }
  assert.match(help.stdout, /^ {2}status$/m);
  assert.match(help.stdout, /^ {2}tick$/m);

  const made = await herald(
    home.path,
    "cron",
    "create",
    "every monday 9am",
    "Check",
    "the backlog",
    "--name",
    "Backlog",
  );
  assert.equal(made.code, 0, made.stderr);
  assert.match(
    made.stdout,
    /^Created job_\w+ "Backlog": every monday 9am; next run \d{4}-\d\d-\d\d 09:00 Europe\/Berlin/,
  );

  const json = await herald(home.path, "cron", "add", "every 2h", "Watch the build", "--json");
  assert.equal(json.code, 0, json.stderr);
  const watch: Job = JSON.parse(json.stdout);
  assert.equal(watch.name, "Watch the build");
  assert.equal(watch.schedule.text, "every 2h");

  const listed = await herald(home.path, "cron", "list", "--json");
  assert.equal(listed.code, 0, listed.stderr);
  const jobs: Job[] = JSON.parse(listed.stdout).jobs;
  assert.deepEqual(jobs.map((job) => job.name).sort(), ["Backlog", "Watch the build"]);
  const backlog = jobs.find((job) => job.name === "Backlog")!;
  const table = await herald(home.path, "cron", "ls");
  assert.match(
    table.stdout,
    new RegExp(
      `^${backlog.id}\\s+Backlog\\s+every monday 9am\\s+scheduled\\s+\\d{4}-\\d\\d-\\d\\d 09:00 Europe/Berlin\\s+-$`,
      "m",
    ),
  );

  const shown = await herald(home.path, "cron", "show", "backlog");
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /prompt\s+Check the backlog/);
  assert.match(
    shown.stdout,
    /next runs(\s+\d{4}-\d\d-\d\d 09:00 Europe\/Berlin\n){3}No runs yet\./,
  );

  const edited = await herald(
    home.path,
    "cron",
    "edit",
    backlog.id,
    "--schedule",
    "weekdays at 08:30",
    "--skill",
    "jira",
    "--json",
  );
  assert.equal(edited.code, 0, edited.stderr);
  const changed: Job = JSON.parse(edited.stdout);
  assert.equal(changed.schedule.text, "weekdays at 08:30");
  assert.deepEqual(changed.skills, ["jira"]);

  const paused = await herald(home.path, "cron", "pause", backlog.id, "--json");
  assert.equal(JSON.parse(paused.stdout).state, "paused");
  const resumed = await herald(home.path, "cron", "resume", backlog.id);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /^Resumed .* next run \d{4}-\d\d-\d\d 08:30 Europe\/Berlin\.$/m);

  const status = await herald(home.path, "cron", "status", "--json");
  assert.equal(status.code, 0, status.stderr);
  const state = JSON.parse(status.stdout);
  assert.deepEqual(state.jobs, { total: 2, scheduled: 2, paused: 0, completed: 0 });
  assert.equal(state.time_zone, "Europe/Berlin");
  assert.equal(state.ticking, false);
  const statusText = await herald(home.path, "cron", "status");
  assert.match(statusText.stdout, /Ticker: not running.*herald gateway start.*herald cron tick/s);

  const jobsFile = join(home.path, "cron", "jobs.json");
  const before = await Deno.readTextFile(jobsFile);
  const invalid = await herald(home.path, "cron", "create", "every fortnight", "Brief me");
  assert.equal(invalid.code, 2);
  assert.match(invalid.stderr, /^herald: Schedule "every fortnight" /);
  const invalidJson = await herald(home.path, "cron", "create", "61 * * * *", "x", "--json");
  assert.equal(invalidJson.code, 2);
  assert.equal(JSON.parse(invalidJson.stdout).error.code, "schedule_invalid");
  assert.match(JSON.parse(invalidJson.stdout).error.message, /"61 \* \* \* \*"/);
  const badOption = await herald(home.path, "cron", "create", "every 2h", "x", "--nmae", "y");
  assert.equal(badOption.code, 2);
  assert.match(badOption.stderr, /Unknown option "--nmae" for create; did you mean --name\?/);
  assert.equal(await Deno.readTextFile(jobsFile), before);

  const removed = await herald(home.path, "cron", "remove", backlog.id);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(removed.stdout, `Removed ${backlog.id} "Backlog" and its saved runs.\n`);
  const missing = await herald(home.path, "cron", "show", backlog.id);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`No job "${backlog.id}"`));
});

Deno.test("herald cron run saves a script-only job's output and cron tick runs a due job", async () => {
  await using home = await tempDir();
  await Deno.writeTextFile(join(home.path, "config.yaml"), "timezone: UTC\n");

  const made = await herald(
    home.path,
    "cron",
    "create",
    "every 1h",
    "--script",
    "echo hi",
    "--script-only",
    "--name",
    "Hello",
    "--json",
  );
  assert.equal(made.code, 0, made.stderr);
  const hello: Job = JSON.parse(made.stdout);
  const ran = await herald(home.path, "cron", "run", "Hello", "--json");
  assert.equal(ran.code, 0, ran.stderr);
  const report = JSON.parse(ran.stdout);
  assert.equal(report.status, "ok");
  assert.equal(report.delivered, "local");
  const folder = join(home.path, "cron", "output", hello.id);
  const files = [...Deno.readDirSync(folder)].map((entry) => entry.name);
  assert.equal(files.length, 1);
  assert.match(files[0], /\.md$/);
  assert.equal(report.file, join(folder, files[0]));
  assert.match(await Deno.readTextFile(report.file), /\bhi\b/);
  const shown = await herald(home.path, "cron", "show", hello.id);
  assert.match(shown.stdout, /Last run:\n {2}.* ok {2}delivered: local/);

  // A one-shot a moment ago (within the grace for a clock a little behind) is due at once.
  const moment = new Date(Date.now() - 30_000).toISOString().slice(0, 19);
  const due = await herald(
    home.path,
    "cron",
    "create",
    moment,
    "--script",
    "echo ticked",
    "--script-only",
    "--json",
  );
  assert.equal(due.code, 0, due.stderr);
  const once: Job = JSON.parse(due.stdout);
  const tick = await herald(home.path, "cron", "tick", "--json");
  assert.equal(tick.code, 0, tick.stderr);
  assert.deepEqual(
    JSON.parse(tick.stdout).ran.map((r: { id: string; ok: boolean }) => [r.id, r.ok]),
    [
      [once.id, true],
    ],
  );
  const outputs = [...Deno.readDirSync(join(home.path, "cron", "output", once.id))];
  assert.equal(outputs.length, 1);
  assert.match(
    await Deno.readTextFile(join(home.path, "cron", "output", once.id, outputs[0].name)),
    /ticked/,
  );
  const again = await herald(home.path, "cron", "tick");
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, "Nothing was due.\n");
  const all = await herald(home.path, "cron", "list", "--all", "--json");
  const completed = JSON.parse(all.stdout).jobs.find((job: Job) => job.id === once.id);
  assert.equal(completed.state, "completed");
  const status = JSON.parse((await herald(home.path, "cron", "status", "--json")).stdout);
  assert.equal(status.ticking, true);
  assert.match(status.ticker.by, /^cli:\d+$/);
});

Deno.test("herald -p <profile> cron keeps a named profile's jobs apart", async () => {
  await using home = await tempDir();
  const created = await herald(home.path, "profile", "create", "work");
  assert.equal(created.code, 0, created.stderr);
  const made = await herald(home.path, "-p", "work", "cron", "create", "every 2h", "Work job");
  assert.equal(made.code, 0, made.stderr);
  const work = JSON.parse((await herald(home.path, "cron", "list", "--json", "-p", "work")).stdout);
  assert.deepEqual(work.jobs.map((job: Job) => job.name), ["Work job"]);
  const main = JSON.parse((await herald(home.path, "cron", "list", "--json")).stdout);
  assert.deepEqual(main.jobs, []);
  const missing = await herald(home.path, "-p", "nope", "cron", "list");
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Profile "nope" does not exist/);
});
