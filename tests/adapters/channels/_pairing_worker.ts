/**
 * Worker process for pairing_store_test.ts (not a test itself).
 *
 * Usage: `deno run --allow-all _pairing_worker.ts <home> <platform> <count> <barrier-dir>`
 *
 * Announces itself with `<barrier-dir>/ready-<platform>`, waits for
 * `<barrier-dir>/go`, then asks for `count` pairing codes on `platform`
 * (users `u0`, `u1`, ...) and approves each one right after, every change a
 * separate locked read-modify-write of the same `pairing.json` the parent
 * process is changing too.
 *
 * @module
 */

import { openPairingStore } from "../../../adapters/channels/pairing_store.ts";

const [home, platform, countText, barrier] = Deno.args;
const count = Number(countText);
if (!home || !platform || !Number.isInteger(count) || !barrier) {
  console.error("usage: _pairing_worker.ts <home> <platform> <count> <barrier-dir>");
  Deno.exit(2);
}

await Deno.writeTextFile(`${barrier}/ready-${platform}`, String(Deno.pid));
const deadline = Date.now() + 30_000;
for (;;) {
  try {
    await Deno.stat(`${barrier}/go`);
    break;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    if (Date.now() > deadline) throw new Error(`worker ${platform}: no go signal within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const store = openPairingStore(home);
for (let i = 0; i < count; i++) {
  const request = await store.request({ platform, userId: `u${i}`, chatId: `u${i}` }, Date.now());
  if (!request) throw new Error(`worker ${platform}: request ${i} was refused`);
  await store.approve(request.code, Date.now());
}
console.log(JSON.stringify({ platform, count }));
