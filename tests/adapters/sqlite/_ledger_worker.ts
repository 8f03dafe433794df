/**
 * Worker process for delivery_ledger_test.ts (not a test itself).
 *
 * `deno run --allow-all _ledger_worker.ts record <db> <platform> <count> <barrier-dir>`
 * is a worker of tests/_workers.ts: once let go, it records `count`
 * obligations to chat `<platform>-<i>` and takes each through sending to
 * delivered, one transaction per step.
 *
 * `deno run --allow-all _ledger_worker.ts crash <db>` records two obligations,
 * delivers the first, marks the second `sending`, prints both ids as one
 * JSON line and waits to be killed (the gateway dying mid-send).
 *
 * @module
 */

import { openDeliveryLedger } from "../../../adapters/sqlite/mod.ts";
import { startWorker } from "../../_workers.ts";

const [mode, path, ...rest] = Deno.args;

const USAGE = "usage: _ledger_worker.ts record <db> <platform> <count> <barrier> | crash <db>";

if (mode === "record") {
  const { target, label: platform, count } = await startWorker(USAGE, [path, ...rest]);
  const ledger = openDeliveryLedger(target);
  try {
    for (let i = 0; i < count; i++) {
      const owed = ledger.record({
        to: { platform, chatId: `${platform}-${i}` },
        reply: { parts: [{ kind: "text", text: `reply ${i}` }] },
      });
      ledger.markSending(owed.id);
      ledger.markDelivered(owed.id, [`m${i}`]);
    }
  } finally {
    ledger.close();
  }
  console.log(JSON.stringify({ platform, count }));
} else if (mode === "crash") {
  const ledger = openDeliveryLedger(path);
  const reply = { parts: [{ kind: "text" as const, text: "the answer" }] };
  const delivered = ledger.record({ to: { platform: "telegram", chatId: "1" }, reply });
  ledger.markSending(delivered.id);
  ledger.markDelivered(delivered.id, ["501"]);
  const midSend = ledger.record({
    to: { platform: "telegram", chatId: "2" },
    reply,
    context: { replyToken: "tok" },
  });
  ledger.markSending(midSend.id);
  console.log(JSON.stringify({ delivered: delivered.id, midSend: midSend.id }));
  setInterval(() => {}, 60_000);
} else {
  console.error(USAGE);
  Deno.exit(2);
}
