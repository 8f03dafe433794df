/**
 * `herald cron` and `/cron`, one parser and one runner: every verb and
 * alias read, quoting, one message per bad input naming the word at
 * fault, and the runner over a real profile home (jobs.json, saved runs,
 * a script run as a process) under a fake clock: create, list, show,
 * edit, pause, resume, remove, run and status, with nothing created on
 * bad input.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { createJobExecutor } from "../../../adapters/runtime/automations.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { HeraldError } from "../../../core/errors.ts";
import {
  parseCronArgs,
  runCronCommand,
  runCronRequest,
  splitArgs,
} from "../../../core/schedules/cron_command.ts";
import type { JobRecord } from "../../../core/schedules/mod.ts";
import { profileAutomations, tickProfile } from "../../../core/usecases/cron.ts";
import { tempDir } from "../../_helpers.ts";

/** Monday 2026-11-23, 13:00 in Berlin. */
const START = Date.UTC(2026, 10, 23, 12, 0);

function usageError(token: string | undefined, ...fragments: string[]) {
  return (error: unknown) => {
    assert.ok(error instanceof HeraldError, String(error));
    assert.equal(error.code, "cron_usage");
    assert.equal(error.kind, "usage");
    for (const fragment of fragments) assert.match(error.message, new RegExp(escape(fragment)));
    if (token !== undefined) assert.equal(error.details.token, token);
    return true;
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("every verb and alias is read into one request", () => {
  assert.deepEqual(parseCronArgs([]), { verb: "list", all: false });
  assert.deepEqual(parseCronArgs(["list", "--all"]), { verb: "list", all: true });
  assert.deepEqual(parseCronArgs(["ls"]), { verb: "list", all: false });
  assert.deepEqual(parseCronArgs(["show", "Morning", "brief"]), {
    verb: "show",
    ref: "Morning brief",
  });
  assert.deepEqual(
    parseCronArgs([
      "create",
      "every monday 9am",
      "Check",
      "the backlog",
      "--name",
      "Backlog",
      "--skill",
      "jira",
      "--skill=notes",
      "--script",
      "ls -la",
      "--deliver",
      "telegram:-100123",
      "--repeat",
      "3",
    ]),
    {
      verb: "create",
      input: {
        schedule: "every monday 9am",
        prompt: "Check the backlog",
        name: "Backlog",
        skills: ["jira", "notes"],
        script: "ls -la",
        deliver: "telegram:-100123",
        repeat: 3,
      },
    },
  );
  assert.deepEqual(parseCronArgs(["add", "in 5m", "--script", "echo hi", "--script-only"]), {
    verb: "create",
    input: { schedule: "in 5m", script: "echo hi", scriptOnly: true },
  });
  assert.deepEqual(parseCronArgs(["create", "every 2h", "hi", "--repeat", "forever"]), {
    verb: "create",
    input: { schedule: "every 2h", prompt: "hi" },
  });
  assert.deepEqual(parseCronArgs(["create", "every 2h", "hi", "--repeat", "once"]), {
    verb: "create",
    input: { schedule: "every 2h", prompt: "hi", repeat: 1 },
  });
  // A word that only looks like a number is prompt text, not an option.
  assert.deepEqual(parseCronArgs(["create", "every 2h", "below", "-5", "degrees"]), {
    verb: "create",
    input: { schedule: "every 2h", prompt: "below -5 degrees" },
  });
  assert.deepEqual(
    parseCronArgs([
      "edit",
      "job_1a2b3c4d",
      "--schedule",
      "every 3h",
      "--prompt",
      "",
      "--name",
      "New",
      "--add-skill",
      "a",
      "--add-skill",
      "b",
      "--remove-skill",
      "c",
      "--clear-skills",
      "--script",
      "date",
      "--deliver",
      "local",
      "--repeat",
      "forever",
      "--catch-up",
      "skip",
    ]),
    {
      verb: "edit",
      ref: "job_1a2b3c4d",
      changes: {
        schedule: "every 3h",
        prompt: "",
        name: "New",
        script: "date",
        deliver: "local",
        skills: [],
        addSkills: ["a", "b"],
        removeSkills: ["c"],
        repeat: null,
        catch_up: "skip",
      },
    },
  );
  assert.deepEqual(parseCronArgs(["edit", "x", "--skill", "a", "--skill", "b"]).verb, "edit");
  for (const verb of ["pause", "resume", "run", "remove"] as const) {
    assert.deepEqual(parseCronArgs([verb, "job_1a2b3c4d"]), { verb, ref: "job_1a2b3c4d" });
  }
  assert.deepEqual(parseCronArgs(["rm", "x"]), { verb: "remove", ref: "x" });
  assert.deepEqual(parseCronArgs(["delete", "x"]), { verb: "remove", ref: "x" });
  assert.deepEqual(parseCronArgs(["status"]), { verb: "status" });
  assert.deepEqual(parseCronArgs(["tick"]), { verb: "tick" });
  assert.deepEqual(parseCronArgs(["help"]), { verb: "help" });
  assert.deepEqual(parseCronArgs(["help", "rm"]), { verb: "help", topic: "remove" });
  assert.deepEqual(parseCronArgs(["create", "--help"]), { verb: "help", topic: "create" });
  assert.deepEqual(parseCronArgs(["LIST"]), { verb: "list", all: false });
});

Deno.test("each bad command line gives one message naming the word and the verb's usage", () => {
  const prefix = { prefix: "herald cron" };
  assert.throws(() => parseCronArgs(["lsit"], prefix), usageError("lsit", '"lsit"', "list?"));
  assert.throws(
    () => parseCronArgs(["create", "every 2h", "hi", "--nmae", "x"], prefix),
    usageError("--nmae", '"--nmae"', "--name?", "Usage: herald cron create <schedule>"),
  );
  assert.throws(
    () => parseCronArgs(["create", "every 2h", "hi", "--name"]),
    usageError("--name", "--name needs a value", "Usage: /cron create"),
  );
  assert.throws(
    () => parseCronArgs(["create", "every 2h", "hi", "--name", "--skill", "a"]),
    usageError("--name", "--name needs a value"),
  );
  assert.throws(
    () => parseCronArgs(["create", "every 2h", "hi", "--repeat", "0"]),
    usageError("0", 'Repeat "0"'),
  );
  assert.throws(
    () => parseCronArgs(["edit", "x", "--repeat", "lots"]),
    usageError("lots", 'Repeat "lots"', "Usage: /cron edit"),
  );
  assert.throws(
    () => parseCronArgs(["edit", "x", "--catch-up", "later"]),
    usageError("later", 'Catch-up "later"', "run_once", "skip"),
  );
  assert.throws(() => parseCronArgs(["edit", "x"]), usageError(undefined, 'change for "x"'));
  assert.throws(() => parseCronArgs(["show"]), usageError(undefined, "show needs a job"));
  assert.throws(() => parseCronArgs(["create"]), usageError(undefined, "needs a schedule"));
  assert.throws(
    () => parseCronArgs(["create", "every", "monday", "9am", "Check"]),
    usageError("every", 'Schedule "every" is cut short', '"every monday 9am"'),
  );
  assert.throws(
    () => parseCronArgs(["create", "0", "9", "*", "*", "1-5", "Brief"]),
    usageError("0", 'Schedule "0" is cut short'),
  );
  assert.throws(() => parseCronArgs(["status", "now"]), usageError("now", '"now" after status'));
  assert.throws(() => parseCronArgs(["list", "--all=yes"]), usageError("--all=yes", "no value"));
  assert.throws(
    () => parseCronArgs(["pause", "x", "--name", "y"]),
    usageError("--name", '"--name" for pause', "pause takes no options"),
  );
  assert.throws(() => parseCronArgs(["help", "fly"]), usageError("fly", '"fly"'));
});

Deno.test("words split like a shell's, apostrophes kept, an unclosed quote refused", () => {
  assert.deepEqual(splitArgs(`a "b c" 'd'`), ["a", "b c", "d"]);
  assert.deepEqual(splitArgs(`create "every monday 9am" Don't forget 'the milk'`), [
    "create",
    "every monday 9am",
    "Don't",
    "forget",
    "the milk",
  ]);
  assert.deepEqual(splitArgs(`--script "echo \\"hi\\"" a\\ b ""`), [
    "--script",
    'echo "hi"',
    "a b",
    "",
  ]);
  assert.deepEqual(splitArgs("  spaced   out  "), ["spaced", "out"]);
  assert.throws(
    () => splitArgs(`create "every monday 9am Check`),
    usageError('"every monday 9am Check', "double quote", "not closed"),
  );
});

/** A profile home in a temp folder, its jobs under a fake clock, Berlin time. */
async function profileHome(root: string) {
  const paths = profilePaths(root, "default");
  await Deno.writeTextFile(paths.config, "timezone: Europe/Berlin\n");
  const profile = openProfileContext(paths, {});
  const clock = { now: START };
  const execute = createJobExecutor(paths, { env: { PATH: Deno.env.get("PATH") ?? "" } });
  const automations = profileAutomations(profile, {
    now: () => clock.now,
    execute,
    ticker: "test:1",
  });
  const jobsFile = join(paths.cron, "jobs.json");
  const jobsText = () => Deno.readTextFile(jobsFile).catch(() => "(none)");
  return { paths, profile, clock, execute, automations, jobsText };
}

Deno.test("create, list, show, edit, pause, resume and remove answer in the job's zone", async () => {
  await using dir = await tempDir();
  const { automations, jobsText } = await profileHome(dir.path);
  const context = { automations, prefix: "herald cron" };
  const run = (args: string) =>
    runCronRequest(parseCronArgs(splitArgs(args), { prefix: "herald cron" }), context);

  const empty = await run("list");
  assert.match(empty.text, /No scheduled jobs/);
  assert.match(empty.text, /herald cron create "every monday 9am"/);
  assert.match(empty.text, /\/blueprint/);
  assert.deepEqual(empty.json, { jobs: [] });

  const created = await run(`create "every monday 9am" Check the backlog --name Backlog`);
  const job = created.json as JobRecord;
  assert.match(job.id, /^job_/);
  assert.equal(job.deliver, "local");
  assert.equal(
    created.text,
    `Created ${job.id} "Backlog": every monday 9am; next run 2026-11-30 09:00 Europe/Berlin; ` +
      "output saved locally only.",
  );

  const listed = await run("ls");
  const [header, row] = listed.text.split("\n");
  assert.match(header, /^ID\s+NAME\s+SCHEDULE\s+STATE\s+NEXT RUN\s+LAST$/);
  assert.match(
    row,
    new RegExp(
      `^${job.id}\\s+Backlog\\s+every monday 9am\\s+scheduled\\s+` +
        "2026-11-30 09:00 Europe/Berlin\\s+-$",
    ),
  );
  assert.deepEqual((listed.json as { jobs: JobRecord[] }).jobs.map((j) => j.id), [job.id]);

  const shown = await run("show backlog");
  assert.match(shown.text, new RegExp(`^${job.id} "Backlog"`));
  assert.match(
    shown.text,
    /schedule\s+every monday 9am \(Mondays at 09:00; cron 0 9 \* \* 1; Europe\/Berlin\)/,
  );
  assert.match(shown.text, /prompt\s+Check the backlog/);
  assert.match(shown.text, /repeat\s+forever$/m);
  assert.match(
    shown.text,
    /next runs\s+2026-11-30 09:00 Europe\/Berlin\n\s+2026-12-07 09:00 Europe\/Berlin\n\s+2026-12-14 09:00 Europe\/Berlin/,
  );
  assert.match(shown.text, /No runs yet\./);
  assert.deepEqual((shown.json as { next_runs: string[] }).next_runs, [
    "2026-11-30T08:00:00.000Z",
    "2026-12-07T08:00:00.000Z",
    "2026-12-14T08:00:00.000Z",
  ]);

  const edited = await run(
    `edit ${job.id} --schedule "weekdays at 08:30" --add-skill jira --repeat 2`,
  );
  assert.equal(
    edited.text,
    `Changed ${job.id} "Backlog": weekdays at 08:30; next run 2026-11-24 08:30 Europe/Berlin.`,
  );
  const changed = edited.json as JobRecord;
  assert.deepEqual(changed.skills, ["jira"]);
  assert.deepEqual(changed.repeat, { times: 2, done: 0 });
  // Two runs left: show lists two.
  assert.equal(
    (await run(`show ${job.id}`)).text.match(/\d{4}-\d\d-\d\d 08:30 Europe\/Berlin/g)?.length,
    2,
  );

  const paused = await run(`pause ${job.id}`);
  assert.equal(
    paused.text,
    `Paused ${job.id} "Backlog"; it keeps its record. Resume it with herald cron resume ${job.id}.`,
  );
  assert.match((await run("list")).text, /paused\s+-\s+-$/m);
  assert.match((await run(`show ${job.id}`)).text, /next runs\s+none while paused/);

  const resumed = await run(`resume ${job.id}`);
  assert.equal(
    resumed.text,
    `Resumed ${job.id} "Backlog"; next run 2026-11-24 08:30 Europe/Berlin.`,
  );

  const removed = await run(`rm ${job.id}`);
  assert.equal(removed.text, `Removed ${job.id} "Backlog" and its saved runs.`);
  assert.deepEqual(JSON.parse(await jobsText()).jobs, []);
  await assert.rejects(
    run(`show ${job.id}`),
    (error: unknown) => error instanceof HeraldError && error.code === "job_not_found",
  );
});

Deno.test("bad input through /cron is one message naming the value, and creates nothing", async () => {
  await using dir = await tempDir();
  const { automations, jobsText } = await profileHome(dir.path);
  await runCronCommand(`create "every 2h" Keep me`, { automations });
  const before = await jobsText();
  const cases: [string, RegExp][] = [
    [`create "every fortnight" Brief me`, /^Schedule "every fortnight" /],
    [`create "61 * * * *" Brief me`, /"61 \* \* \* \*"/],
    [`create "2020-01-01T09:00" Old`, /"2020-01-01T09:00"/],
    [`create "every 2h"`, /nothing to run/],
    [`create "every 2h" --script-only`, /script-only job needs a script/],
    [`create "every 2h" hi --deliver "not a target"`, /Delivery "not a target"/],
    [`create "every 2h" hi --deliver origin`, /origin/],
    [`create "every 2h" hi --nmae x`, /Unknown option "--nmae" for create; did you mean --name\?/],
    [`create every 2h hi`, /Schedule "every" is cut short/],
    [`create "every 2h hi`, /quote .* is not closed/],
    [`edit nobody --name x`, /No job "nobody"/],
    [`edit "Keep me" --schedule "every 0m"`, /Schedule "every 0m"/],
    [`frobnicate`, /Unknown cron command "frobnicate"/],
  ];
  for (const [args, expected] of cases) {
    const answer = await runCronCommand(args, { automations });
    assert.match(answer, expected, args);
    assert.equal(answer.split("\n").length, 1, `one line for ${args}: ${answer}`);
  }
  assert.equal(await jobsText(), before);
});

Deno.test("/cron in a chat delivers back to it; without jobs or for tick it says where to go", async () => {
  await using dir = await tempDir();
  const { automations } = await profileHome(dir.path);
  const answer = await runCronCommand(`add "every 2h" Check the build`, {
    automations,
    origin: "telegram:42",
  });
  assert.match(answer, /delivers to this chat \(telegram:42\)/);
  const [job] = await automations.list();
  assert.equal(job.deliver, "origin");
  assert.equal(job.origin, "telegram:42");
  const local = await runCronCommand(`add "every 2h" Local --deliver local`, {
    automations,
    origin: "telegram:42",
  });
  assert.match(local, /output saved locally only/);

  assert.match(await runCronCommand("list", {}), /cannot be managed from here/);
  assert.match(await runCronCommand("tick", { automations }), /herald cron tick/);
  const help = await runCronCommand("help", { automations });
  for (const verb of ["list", "show", "create", "edit", "pause", "resume", "run", "remove"]) {
    assert.match(help, new RegExp(`/cron ${verb}`));
  }
});

Deno.test("run, show's history, list --all and status after a job ran", async () => {
  await using dir = await tempDir();
  const { automations, profile, clock, execute, paths } = await profileHome(dir.path);
  const context = { automations, prefix: "herald cron" };
  const run = (args: string) =>
    runCronRequest(parseCronArgs(splitArgs(args), { prefix: "herald cron" }), context);

  const status = await run("status");
  assert.match(status.text, /^Profile default, time zone Europe\/Berlin$/m);
  assert.match(status.text, /Jobs: 0 \(0 scheduled, 0 paused, 0 completed\)/);
  assert.match(status.text, /Next run: none scheduled/);
  assert.match(status.text, /Ticker: not running \(no tick recorded yet\)/);
  assert.match(status.text, /herald gateway start/);
  assert.match(status.text, /herald cron tick/);

  const made = await run(`create "every 1h" --script "echo hi" --script-only --name Hello`);
  const job = made.json as JobRecord;
  const ran = await run("run Hello");
  assert.match(ran.text, new RegExp(`^Ran ${job.id} "Hello": ok\n  delivered: local\n  output: `));
  const report = ran.json as { status: string; file: string };
  assert.equal(report.status, "ok");
  assert.ok(report.file.startsWith(join(paths.cron, "output", job.id)), report.file);
  assert.match(await Deno.readTextFile(report.file), /hi/);
  const shown = await run(`show ${job.id}`);
  assert.match(
    shown.text,
    /Last run:\n {2}\d{4}-\d\d-\d\d \d\d:\d\d Europe\/Berlin {2}ok {2}delivered: local/,
  );

  // A one-shot runs on a tick and completes: list hides it, list --all shows it.
  const once = (await run(`create "in 5m" --script "echo once" --script-only --name Once`))
    .json as JobRecord;
  clock.now += 6 * 60_000;
  const tick = await tickProfile(profile, execute, { ticker: "test:tick", now: () => clock.now });
  assert.deepEqual(tick.ran.map((r) => [r.id, r.ok]), [[once.id, true]]);
  const listed = await run("list");
  assert.doesNotMatch(listed.text, /Once/);
  assert.match(listed.text, /\(1 completed job hidden; herald cron list --all shows them\)/);
  assert.match(
    (await run("list --all")).text,
    new RegExp(`${once.id}\\s+Once\\s+in 5m\\s+completed\\s+-\\s+ok`),
  );

  const after = await run("status");
  assert.match(after.text, /Jobs: 2 \(1 scheduled, 0 paused, 1 completed\)/);
  assert.match(
    after.text,
    new RegExp(`Next run: ${job.id} "Hello" at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d Europe/Berlin`),
  );
  assert.match(after.text, /Ticker: running \(last tick .* by test:tick\)/);
  assert.equal((after.json as { ticking: boolean }).ticking, true);
});

Deno.test("-h right after the verb asks for help; later it is an option the verb does not have", () => {
  assert.deepEqual(parseCronArgs(["create", "-h"]), { verb: "help", topic: "create" });
  // Not help (which would create nothing and exit 0): the option is named, so the prompt gets quoted.
  assert.throws(
    () => parseCronArgs(["create", "every 2h", "Run", "ls", "-h"]),
    (error: unknown) =>
      error instanceof HeraldError && error.code === "cron_usage" && /"-h"/.test(error.message),
  );
  const quoted = parseCronArgs(["create", "every 2h", "Run ls -h"]);
  assert.equal((quoted as { input: { prompt?: string } }).input.prompt, "Run ls -h");
});
