/**
 * Worker process for pairing_store_test.ts (not a test itself), started by
 * tests/_workers.ts.
 *
 * Usage: `deno run --allow-all _pairing_worker.ts <home> <platform> <count> <barrier-dir>`
 *
 * Once let go, asks for `count` pairing codes on `platform`
 * (users `u0`, `u1`, ...) and approves each one right after, every change a
 * separate locked read-modify-write of the same `pairing.json` the parent
 * process is changing too.
 *
 * @module
 */

import { openPairingStore } from "../../../adapters/channels/pairing_store.ts";
import { startWorker } from "../../_workers.ts";

const { target: home, label: platform, count } = await startWorker(
  "usage: _pairing_worker.ts <home> <platform> <count> <barrier-dir>",
);

const store = openPairingStore(home);
for (let i = 0; i < count; i++) {
  const request = await store.request({ platform, userId: `u${i}`, chatId: `u${i}` }, Date.now());
  if (!request) throw new Error(`worker ${platform}: request ${i} was refused`);
  await store.approve(request.code, Date.now());
}
console.log(JSON.stringify({ platform, count }));
