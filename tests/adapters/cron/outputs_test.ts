/**
 * Saved job runs in `cron/output/<job>/<timestamp>.md`: what is saved reads
 * back the same, files are 0600 in 0700 folders, the newest is listed
 * first, a job keeps its newest KEPT_RUNS runs, a file name that is not one
 * of the job's runs is refused, and removing a job's runs removes its
 * folder. Also the last tick in `cron/ticker.json`.
 */

import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { KEPT_RUNS, openCronFiles, openJobOutputs } from "../../../adapters/cron/outputs.ts";
import { HeraldError } from "../../../core/errors.ts";
import type { SavedRun } from "../../../core/schedules/mod.ts";
import { tempDir } from "../../_helpers.ts";

const JOB = "job_0123abcd";
const AT = Date.UTC(2026, 10, 24, 9, 0, 1, 250);

function run(at: number, extra: Partial<SavedRun> = {}): SavedRun {
  return {
    job_id: JOB,
    at,
    planned_at: at - 1_250,
    status: "ok",
    delivered: "telegram:-100123",
    error: null,
    output: `Run at ${new Date(at).toISOString()}`,
    ...extra,
  };
}

function isRunNotFound(error: unknown): boolean {
  assert.ok(error instanceof HeraldError, String(error));
  assert.equal(error.code, "run_not_found", error.message);
  assert.equal(error.kind, "not_found");
  return true;
}

Deno.test("a saved run reads back as it was saved, and lists with its size", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const outputs = openJobOutputs(cron);
  const saved = run(AT, {
    status: "error",
    delivered: "failed: Telegram answered 403",
    error: 'delivery to telegram:-100123 failed: "blocked"\nby the user',
    output: "# Morning briefing\n\nFirst line.\n\n---\n\nAfter a rule: ünïcödé ✓\n",
  });
  const path = await outputs.save(saved);
  assert.equal(path, join(cron, "output", JOB, "2026-11-24T09-00-01.250Z.md"));
  const text = await Deno.readTextFile(path);
  assert.ok(text.startsWith('---\njob: "job_0123abcd"\n'), text);
  assert.ok(text.includes("\n---\n\n# Morning briefing\n"), "the output follows the header");
  assert.deepEqual(await outputs.read(JOB, basename(path)), saved);
  assert.deepEqual(await outputs.list(JOB), [{
    job_id: JOB,
    file: "2026-11-24T09-00-01.250Z.md",
    at: saved.at,
    planned_at: saved.planned_at,
    status: "error",
    delivered: saved.delivered,
    error: saved.error,
    bytes: new TextEncoder().encode(saved.output).length,
  }]);
  // An empty output and one starting with a blank line survive too.
  for (const output of ["", "\nafter a blank line", "one line"]) {
    const file = basename(await outputs.save(run(AT + 1, { output })));
    assert.equal((await outputs.read(JOB, file)).output, output, JSON.stringify(output));
  }
});

Deno.test("run files are 0600 in 0700 folders", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const path = await openJobOutputs(cron).save(run(AT));
  const mode = async (p: string) => (await Deno.stat(p)).mode! & 0o777;
  assert.equal(await mode(path), 0o600);
  assert.equal(await mode(join(cron, "output", JOB)), 0o700);
  assert.equal(await mode(join(cron, "output")), 0o700);
});

Deno.test("runs list newest first, including two saved in the same millisecond", async () => {
  await using dir = await tempDir();
  const outputs = openJobOutputs(join(dir.path, "cron"));
  for (const at of [AT + 60_000, AT, AT + 120_000]) await outputs.save(run(at));
  await outputs.save(run(AT + 120_000, { output: "again" }));
  const listed = await outputs.list(JOB);
  assert.deepEqual(listed.map((entry) => entry.file), [
    "2026-11-24T09-02-01.250Z-1.md",
    "2026-11-24T09-02-01.250Z.md",
    "2026-11-24T09-01-01.250Z.md",
    "2026-11-24T09-00-01.250Z.md",
  ]);
  assert.equal((await outputs.read(JOB, listed[0].file)).output, "again");
  assert.equal((await outputs.list(JOB, 2)).length, 2);
  assert.deepEqual(await outputs.list("job_99999999"), [], "a job with no runs has none");
});

Deno.test("a job keeps its newest runs and the oldest go", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const outputs = openJobOutputs(cron);
  const extra = 3;
  for (let i = 0; i < KEPT_RUNS + extra; i++) await outputs.save(run(AT + i * 60_000));
  const files = [...Deno.readDirSync(join(cron, "output", JOB))].map((entry) => entry.name);
  assert.equal(files.length, KEPT_RUNS);
  const listed = await outputs.list(JOB, KEPT_RUNS + extra);
  assert.equal(listed.length, KEPT_RUNS);
  assert.equal(listed[0].at, AT + (KEPT_RUNS + extra - 1) * 60_000, "the newest kept");
  assert.equal(listed.at(-1)!.at, AT + extra * 60_000, "the oldest three gone");
});

Deno.test("a file name that is not one of the job's runs is refused", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const outputs = openJobOutputs(cron);
  const file = basename(await outputs.save(run(AT)));
  await Deno.writeTextFile(join(cron, "secret.md"), '---\nstatus: "ok"\n---\n\nnot a run\n');
  for (
    const bad of [
      "../secret.md",
      `../${JOB}/${file}`,
      `${file}/../../../secret.md`,
      "..",
      "/etc/passwd",
      "2026-11-24T09-00-01.250Z.txt",
      "2026-11-24T09-59-59.000Z.md", // the right shape, but no such run
    ]
  ) {
    await assert.rejects(outputs.read(JOB, bad), isRunNotFound, bad);
  }
  // A job id that is not one cannot reach outside the output folder either.
  await assert.rejects(outputs.read("../../cron", file), isRunNotFound);
  await assert.rejects(outputs.list("job_../../x"), isRunNotFound);
  // A file of the right name that is not a run is not one either.
  await Deno.writeTextFile(join(cron, "output", JOB, "2026-11-24T10-00-00.000Z.md"), "junk");
  await assert.rejects(outputs.read(JOB, "2026-11-24T10-00-00.000Z.md"), isRunNotFound);
  assert.deepEqual((await outputs.list(JOB)).map((entry) => entry.file), [file]);
});

Deno.test("removing a job's runs removes its folder and leaves other jobs' runs", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const outputs = openJobOutputs(cron);
  await outputs.save(run(AT));
  await outputs.save(run(AT + 1));
  const other = await outputs.save(run(AT, { job_id: "job_otherjob1" }));
  await outputs.removeAll(JOB);
  await assert.rejects(Deno.stat(join(cron, "output", JOB)), Deno.errors.NotFound);
  assert.deepEqual(await outputs.list(JOB), []);
  assert.ok((await Deno.stat(other)).isFile);
  await outputs.removeAll(JOB); // nothing left: not an error
});

Deno.test("the last tick is kept in cron/ticker.json; an unreadable one reads as none", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const files = openCronFiles(cron);
  assert.equal(await files.readTicker(), null);
  await files.writeTicker({ by: "gateway:41", at: AT, pid: 41 });
  assert.deepEqual(await files.readTicker(), { by: "gateway:41", at: AT, pid: 41 });
  assert.equal((await Deno.stat(join(cron, "ticker.json"))).mode! & 0o777, 0o600);
  for (const text of ["{", '{"by": 3, "at": 1}', "[]"]) {
    await Deno.writeTextFile(join(cron, "ticker.json"), text);
    assert.equal(await files.readTicker(), null, text);
  }
});
