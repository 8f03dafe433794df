/**
 * Worker process for job_store_cache_test.ts (not a test itself): one
 * change to a job store from another process.
 *
 * Usage: `deno run --allow-all _store_change.ts <cron-dir> rename <id> <name>`,
 * `... add <random-part>` or `... remove <id>`.
 *
 * @module
 */

import { openJobStore } from "../../../adapters/cron/job_store.ts";
import { newJob } from "../../../core/schedules/mod.ts";

const [cronDir, action, argument, name] = Deno.args;
const store = openJobStore(cronDir);
if (action === "rename") {
  await store.update(argument, (job) => ({ ...job, name }));
} else if (action === "add") {
  await store.add(newJob({ schedule: "every 1h", prompt: `added ${argument}` }, {
    now: Date.now(),
    timeZone: "UTC",
    randomId: () => argument,
  }));
} else if (action === "remove") {
  await store.remove(argument);
} else {
  console.error(`usage: _store_change.ts <cron-dir> rename <id> <name> | add <id> | remove <id>`);
  Deno.exit(2);
}
