/**
 * Worker process for tick_race_test.ts (not a test itself), started by
 * tests/_workers.ts.
 *
 * Usage: `deno run --allow-all _tick_worker.ts <cron-dir> <label> <count> <barrier-dir>`
 *
 * Once let go, runs `count` ticks over the jobs in `<cron-dir>/jobs.json`
 * at the same instant (the jobs' planned time plus a minute), each run
 * appending `<job id> <label>` to `<cron-dir>/runs.log` after a short
 * pause, so the other ticker has every chance to run it too.
 *
 * @module
 */

import { join } from "node:path";
import { openJobStore } from "../../../adapters/cron/job_store.ts";
import { tick } from "../../../core/schedules/mod.ts";
import { startWorker } from "../../_workers.ts";

const { target: cronDir, label, count } = await startWorker(
  "usage: _tick_worker.ts <cron-dir> <label> <count> <barrier-dir>",
);

const store = openJobStore(cronDir);
const now = Number(await Deno.readTextFile(join(cronDir, "now.txt")));
for (let i = 0; i < count; i++) {
  await tick(store, async (job) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    await Deno.writeTextFile(join(cronDir, "runs.log"), `${job.id} ${label}\n`, { append: true });
    return { ok: true };
  }, { now: () => now, ticker: `worker:${label}` });
}
console.log(JSON.stringify({ label, count }));
