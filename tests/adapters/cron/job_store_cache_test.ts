/**
 * The job store's memory and journal: what another process writes is
 * always seen (a change to one job, a job added or removed); the journal
 * of changes is folded into `jobs.json` once it grows; a journal left from
 * an older `jobs.json` is ignored and a line cut short by a crash is
 * dropped; the records handed out are frozen and `list()` is a fresh array
 * each time; a journal that is not one is named and nothing is written.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  JOBS_FILE,
  JOURNAL_FILE,
  JOURNAL_MIN_BYTES,
  openJobStore,
} from "../../../adapters/cron/job_store.ts";
import { HeraldError } from "../../../core/errors.ts";
import { newJob } from "../../../core/schedules/mod.ts";
import { REPO_ROOT, tempDir } from "../../_helpers.ts";

const NOW = Date.UTC(2026, 10, 24, 8, 0);
const WORKER = new URL("./_store_change.ts", import.meta.url).pathname;

function job(id: string, prompt = "Brief me") {
  return newJob({ schedule: "every 1h", prompt }, {
    now: NOW,
    timeZone: "UTC",
    randomId: () => id,
  });
}

/** Runs one change in another process (see _store_change.ts). */
async function inAnotherProcess(cron: string, ...change: string[]): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", WORKER, cron, ...change],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("what another process writes is seen at once: a change, an added and a removed job", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const store = openJobStore(cron);
  await store.add(job("aaaaaaaa"));
  await store.add(job("bbbbbbbb"));
  assert.deepEqual((await store.list()).map((j) => j.name), ["Brief me", "Brief me"]);

  await inAnotherProcess(cron, "rename", "job_aaaaaaaa", "Renamed elsewhere");
  assert.equal((await store.list())[0].name, "Renamed elsewhere");
  await store.update("job_bbbbbbbb", (current) => ({ ...current, name: "Renamed here" }));
  await inAnotherProcess(cron, "rename", "job_bbbbbbbb", "Renamed there");
  assert.deepEqual((await store.list()).map((j) => j.name), ["Renamed elsewhere", "Renamed there"]);

  await inAnotherProcess(cron, "add", "cccccccc");
  assert.deepEqual((await store.list()).map((j) => j.id), [
    "job_aaaaaaaa",
    "job_bbbbbbbb",
    "job_cccccccc",
  ]);
  await inAnotherProcess(cron, "remove", "job_aaaaaaaa");
  assert.deepEqual((await store.list()).map((j) => j.id), ["job_bbbbbbbb", "job_cccccccc"]);
  // A change made here after all that builds on what the others wrote.
  await store.update("job_cccccccc", (current) => ({ ...current, state: "paused" }));
  const fresh = openJobStore(cron);
  assert.deepEqual((await fresh.list()).map((j) => [j.id, j.name, j.state]), [
    ["job_bbbbbbbb", "Renamed there", "scheduled"],
    ["job_cccccccc", "added cccccccc", "paused"],
  ]);
});

Deno.test("a change to one job is a journal line; the journal is folded into jobs.json once it grows", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const store = openJobStore(cron);
  await store.add(job("aaaaaaaa"));
  const list = join(cron, JOBS_FILE), journal = join(cron, JOURNAL_FILE);
  const written = await Deno.readTextFile(list);
  await store.update("job_aaaaaaaa", (current) => ({ ...current, name: "One" }));
  assert.equal(await Deno.readTextFile(list), written, "jobs.json is not rewritten for a change");
  assert.equal((await Deno.stat(journal)).mode! & 0o777, 0o600);
  assert.equal((await Deno.readTextFile(journal)).trim().split("\n").length, 2, "header, change");

  let changes = 1;
  while (await exists(journal)) {
    await store.update("job_aaaaaaaa", (current) => ({ ...current, name: `Change ${++changes}` }));
    assert.ok(changes < 2 * JOURNAL_MIN_BYTES / 100, "the journal is folded in at some point");
  }
  assert.ok(changes * 600 > JOURNAL_MIN_BYTES, `folded after ${changes} changes`);
  const folded = JSON.parse(await Deno.readTextFile(list));
  assert.equal(folded.jobs[0].name, `Change ${changes}`);
  assert.equal((await Deno.stat(list)).mode! & 0o777, 0o600);
  assert.equal((await openJobStore(cron).list())[0].name, `Change ${changes}`);
});

Deno.test("a journal left from an older jobs.json is ignored; a line cut short by a crash is dropped", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const store = openJobStore(cron);
  await store.add(job("aaaaaaaa"));
  const journal = join(cron, JOURNAL_FILE);
  const stale = { ...job("aaaaaaaa"), name: "From a journal of before" };
  await Deno.writeTextFile(
    journal,
    `${JSON.stringify({ journal: 1, generation: "older" })}\n${JSON.stringify({ put: stale })}\n`,
  );
  assert.equal((await store.list())[0].name, "Brief me");
  assert.equal((await openJobStore(cron).list())[0].name, "Brief me", "in a fresh store too");
  await store.update("job_aaaaaaaa", (current) => ({ ...current, name: "Kept" }));
  assert.ok(!(await Deno.readTextFile(journal)).includes("older"), "the old journal was replaced");

  // A crash left half a line at the end: readers skip it, the next change goes over it.
  await Deno.writeTextFile(journal, '{"put": {"id": "job_aaaa', { append: true });
  assert.equal((await openJobStore(cron).list())[0].name, "Kept");
  await store.update("job_aaaaaaaa", (current) => ({ ...current, name: "After the crash" }));
  const lines = (await Deno.readTextFile(journal)).trimEnd().split("\n");
  assert.equal(lines.length, 3);
  for (const line of lines) JSON.parse(line);
  assert.equal((await openJobStore(cron).list())[0].name, "After the crash");
  await inAnotherProcess(cron, "rename", "job_aaaaaaaa", "And elsewhere");
  assert.equal((await store.list())[0].name, "And elsewhere");
});

Deno.test("records handed out are frozen, list() is a fresh array, update() changes a copy", async () => {
  await using dir = await tempDir();
  const store = openJobStore(join(dir.path, "cron"));
  await store.add(job("aaaaaaaa"));
  await store.add(job("bbbbbbbb"));
  const first = await store.list();
  assert.throws(() => {
    first[0].name = "changed in place";
  }, TypeError);
  assert.throws(() => {
    first[0].repeat.done = 9;
  }, TypeError);
  first.reverse();
  assert.deepEqual((await store.list()).map((j) => j.id), ["job_aaaaaaaa", "job_bbbbbbbb"]);
  let seen: unknown;
  const updated = await store.update("job_aaaaaaaa", (current) => {
    current.skills.push("weather"); // a copy of its own
    seen = current;
    return current;
  });
  assert.notEqual(seen, first[1]);
  assert.deepEqual(updated.skills, ["weather"]);
  updated.name = "the caller's own copy";
  assert.equal((await store.list())[0].name, "Brief me");
  assert.deepEqual((await store.list())[0].skills, ["weather"]);
});

Deno.test("a journal that is not one is named in the error and nothing is written", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const store = openJobStore(cron);
  await store.add(job("aaaaaaaa"));
  await store.update("job_aaaaaaaa", (current) => ({ ...current, name: "One" }));
  const journal = join(cron, JOURNAL_FILE);
  const good = await Deno.readTextFile(journal);
  for (const bad of ["not json\n", "7\n", '{"what": 1}\n', '{"put": {"id": "x"}}\n']) {
    await Deno.writeTextFile(journal, good + bad);
    const before = await Deno.readTextFile(join(cron, JOBS_FILE));
    const attempts = [
      () => store.list(),
      () => store.add(job("bbbbbbbb")),
      () => store.remove("job_aaaaaaaa"),
      () => store.update("job_aaaaaaaa", (current) => current),
    ];
    for (const attempt of attempts) {
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(
          error instanceof HeraldError && error.code === "jobs_file_invalid",
          String(error),
        );
        assert.ok(error.message.includes(journal), error.message);
        return true;
      });
    }
    assert.equal(await Deno.readTextFile(journal), good + bad, "the journal was left as it is");
    assert.equal(await Deno.readTextFile(join(cron, JOBS_FILE)), before);
  }
});
