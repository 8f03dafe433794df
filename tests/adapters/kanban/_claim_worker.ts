/**
 * Worker process for sqlite_board_test.ts (not a test itself), started by
 * tests/_workers.ts.
 *
 * Usage: `deno run --allow-all _claim_worker.ts <kanban.db> <label> <count> <barrier-dir>`
 *
 * Once let go, tries to claim every ready task of the board (`count` is the
 * number of rounds over the list) under the lock `<label>:<pid>`, and prints
 * the ids it won as JSON.
 *
 * @module
 */

import { openSqliteBoard } from "../../../adapters/kanban/mod.ts";
import { startWorker } from "../../_workers.ts";

const { target, label, count } = await startWorker(
  "usage: _claim_worker.ts <kanban.db> <label> <count> <barrier-dir>",
);

const board = openSqliteBoard(target);
const won: string[] = [];
for (let round = 0; round < count; round++) {
  for (const task of await board.listTasks({ status: "ready" })) {
    const claimed = await board.claim(task.id, {
      lock: `${label}:${Deno.pid}`,
      expiresAt: Date.now() + 15 * 60_000,
      pid: Deno.pid,
    });
    if (claimed) won.push(task.id);
  }
}
board.close();
console.log(JSON.stringify({ label, won }));
