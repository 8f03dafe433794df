/**
 * Writer process for concurrent_writers_test.ts (not a test itself).
 *
 * Usage: `deno run --allow-all _concurrent_writer.ts <db> <label> <count> <barrier-dir>`
 *
 * Announces itself with `<barrier-dir>/ready-<label>`, waits for
 * `<barrier-dir>/go`, then opens the store (racing the other writer through
 * the migrations of a fresh file), creates session `ses_writer_<label>` and
 * appends `count` messages, one transaction each. Message `i` carries the
 * unique word `w<label>n<i>` so the parent can find every one in the index.
 *
 * @module
 */

import { openStateStore } from "../../../adapters/sqlite/mod.ts";

const [path, label, countText, barrier] = Deno.args;
const count = Number(countText);
if (!path || !label || !Number.isInteger(count) || !barrier) {
  console.error("usage: _concurrent_writer.ts <db> <label> <count> <barrier-dir>");
  Deno.exit(2);
}

await Deno.writeTextFile(`${barrier}/ready-${label}`, String(Deno.pid));
const deadline = Date.now() + 30_000;
for (;;) {
  try {
    await Deno.stat(`${barrier}/go`);
    break;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    if (Date.now() > deadline) throw new Error(`writer ${label}: no go signal within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const store = openStateStore(path);
try {
  const session = store.createSession({ id: `ses_writer_${label}`, source: "test" });
  for (let i = 0; i < count; i++) {
    store.appendMessages(session.id, [{
      role: i % 2 === 0 ? "user" : "assistant",
      content: `writer ${label} says hello, message ${i} w${label}n${i}\r\n`,
      toolCalls: i % 2 === 1 ? [{ id: `call_${label}_${i}` }] : null,
    }]);
  }
} finally {
  store.close();
}
console.log(JSON.stringify({ label, count }));
