/**
 * Worker process for job_store_test.ts (not a test itself), started by
 * tests/_workers.ts.
 *
 * Usage: `deno run --allow-all _jobs_worker.ts <cron-dir> <label> <count> <barrier-dir>`
 *
 * Once let go, adds `count` jobs (`job_<label>0000…`) and bumps the shared
 * job `job_shared0` once per job, every change a separate locked
 * read-modify-write of the same `jobs.json` the other workers change too.
 *
 * @module
 */

import { openJobStore } from "../../../adapters/cron/job_store.ts";
import { newJob } from "../../../core/schedules/mod.ts";
import { startWorker } from "../../_workers.ts";

const { target: cronDir, label, count } = await startWorker(
  "usage: _jobs_worker.ts <cron-dir> <label> <count> <barrier-dir>",
);

const store = openJobStore(cronDir);
for (let i = 0; i < count; i++) {
  const job = newJob({ schedule: "every 1h", prompt: `${label} ${i}` }, {
    now: Date.now(),
    timeZone: "UTC",
    randomId: () => `${label}${String(i).padStart(8, "0")}`,
  });
  await store.add(job);
  await store.update("job_shared0000", (shared) => ({
    ...shared,
    repeat: { ...shared.repeat, done: shared.repeat.done + 1 },
  }));
}
console.log(JSON.stringify({ label, count }));
