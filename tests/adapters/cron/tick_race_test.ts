/**
 * Two tickers at once (two processes, as the gateway's ticker and `herald
 * cron tick` would be) over one `cron/jobs.json`: every due job runs
 * exactly once, and each is recorded once.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openJobStore } from "../../../adapters/cron/job_store.ts";
import { newJob } from "../../../core/schedules/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { raceWorkers } from "../../_workers.ts";

const WORKER = new URL("./_tick_worker.ts", import.meta.url).pathname;
const START = Date.UTC(2026, 10, 24, 8, 0);

Deno.test("two tickers in two processes never run a job twice", async () => {
  await using dir = await tempDir();
  const cron = join(dir.path, "cron");
  const store = openJobStore(cron);
  const jobs = 12;
  for (let i = 0; i < jobs; i++) {
    await store.add(newJob({ schedule: "every 1h", prompt: `job ${i}` }, {
      now: START,
      timeZone: "UTC",
      randomId: () => `race${String(i).padStart(4, "0")}`,
    }));
  }
  await Deno.writeTextFile(join(cron, "now.txt"), String(START + 61 * 60_000));
  const results = await raceWorkers({
    script: WORKER,
    target: cron,
    labels: ["gateway", "cli"],
    count: 3,
    barrier: join(dir.path, "barrier"),
  });
  for (const result of results) {
    assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
  }
  const lines = (await Deno.readTextFile(join(cron, "runs.log"))).trim().split("\n");
  const ran = lines.map((line) => line.split(" ")[0]);
  assert.equal(ran.length, jobs, lines.join("\n"));
  assert.equal(new Set(ran).size, jobs, "no job ran twice");
  for (const job of await store.list()) {
    assert.deepEqual([job.repeat.done, job.last_status, job.claim], [1, "ok", null]);
  }
});
