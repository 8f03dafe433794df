/**
 * The job store in `cron/jobs.json`: jobs kept in order across opens,
 * changed under the lock, a file that is not a job list never overwritten,
 * and two processes adding and changing jobs at once losing nothing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openJobStore } from "../../../adapters/cron/job_store.ts";
import { HeraldError } from "../../../core/errors.ts";
import { newJob } from "../../../core/schedules/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { raceWorkers } from "../../_workers.ts";

const NOW = Date.UTC(2026, 10, 24, 8, 0);
const WORKER = new URL("./_jobs_worker.ts", import.meta.url).pathname;

function job(id: string, prompt = "Brief me") {
  return newJob({ schedule: "weekdays at 08:30", prompt }, {
    now: NOW,
    timeZone: "Europe/Berlin",
    randomId: () => id,
  });
}

Deno.test("jobs are kept in order, changed and removed; the file is 0600", async () => {
  await using dir = await tempDir();
  const store = openJobStore(join(dir.path, "cron"));
  assert.deepEqual(await store.list(), []);
  await store.add(job("aaaaaaaa"));
  await store.add(job("bbbbbbbb", "Review the week"));
  const paused = await store.update("job_aaaaaaaa", (current) => ({ ...current, state: "paused" }));
  assert.equal(paused.state, "paused");
  const again = openJobStore(join(dir.path, "cron"));
  assert.deepEqual((await again.list()).map((j) => [j.id, j.state]), [
    ["job_aaaaaaaa", "paused"],
    ["job_bbbbbbbb", "scheduled"],
  ]);
  assert.equal((await Deno.stat(store.path)).mode! & 0o777, 0o600);
  assert.equal(await store.remove("job_aaaaaaaa"), true);
  assert.equal(await store.remove("job_aaaaaaaa"), false);
  await assert.rejects(
    store.update("job_missing0", (current) => current),
    (error: unknown) => error instanceof HeraldError && error.code === "job_not_found",
  );
  await assert.rejects(
    store.add(job("bbbbbbbb")),
    (error: unknown) => error instanceof HeraldError && error.code === "job_exists",
  );
  // A change that breaks the record is refused and nothing is written.
  const before = await Deno.readTextFile(store.path);
  await assert.rejects(store.update("job_bbbbbbbb", (current) => ({ ...current, name: "" })));
  assert.equal(await Deno.readTextFile(store.path), before);
});

Deno.test("a jobs.json that is not a job list is named in the error and never overwritten", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  await Deno.mkdir(cron);
  const store = openJobStore(cron);
  for (const text of ["{not json", '{"jobs": 3}', '{"jobs": [{"id": "x"}]}']) {
    await Deno.writeTextFile(store.path, text);
    await assert.rejects(store.add(job("cccccccc")), (error: unknown) => {
      assert.ok(error instanceof HeraldError && error.code === "jobs_file_invalid", String(error));
      assert.ok(error.message.includes(store.path));
      return true;
    });
    assert.equal(await Deno.readTextFile(store.path), text);
  }
});

Deno.test("two processes adding and changing jobs at once lose nothing", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const store = openJobStore(cron);
  await store.add({ ...job("shared0000"), repeat: { times: null, done: 0 } });
  const perWorker = 15;
  const results = await raceWorkers({
    script: WORKER,
    target: cron,
    labels: ["a", "b"],
    count: perWorker,
    barrier: join(dir.path, "barrier"),
  });
  for (const result of results) {
    assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
  }
  const jobs = await store.list();
  assert.equal(jobs.length, 1 + 2 * perWorker);
  assert.equal(jobs.find((j) => j.id === "job_shared0000")!.repeat.done, 2 * perWorker);
});
