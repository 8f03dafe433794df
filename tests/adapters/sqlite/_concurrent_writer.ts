/**
 * Writer process for concurrent_writers_test.ts (not a test itself), started
 * by tests/_workers.ts.
 *
 * Usage: `deno run --allow-all _concurrent_writer.ts <db> <label> <count> <barrier-dir>`
 *
 * Once let go, opens the store (racing the other writer through
 * the migrations of a fresh file), creates session `ses_writer_<label>` and
 * appends `count` messages, one transaction each. Message `i` carries the
 * unique word `w<label>n<i>` so the parent can find every one in the index.
 *
 * @module
 */

import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { startWorker } from "../../_workers.ts";

const { target: path, label, count } = await startWorker(
  "usage: _concurrent_writer.ts <db> <label> <count> <barrier-dir>",
);

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
