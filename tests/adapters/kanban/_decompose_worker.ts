/**
 * Worker process for decompose_crash_test.ts (not a test itself).
 *
 * Usage: `deno run --allow-all _decompose_worker.ts <kanban.db>`
 *
 * Forever: creates a triage root titled `root <pid>-<n>` and commits its
 * decomposition into 4 children titled `<root id> part <k>` (the second and
 * third wait for the first), one transaction each. Prints `ready` once the
 * first decomposition is committed, so the test can kill it with SIGKILL at
 * a random moment while it writes.
 *
 * @module
 */

import { openSqliteBoard } from "../../../adapters/kanban/mod.ts";

const [path] = Deno.args;
if (!path) {
  console.error("usage: _decompose_worker.ts <kanban.db>");
  Deno.exit(2);
}

const board = openSqliteBoard(path);
const body = "Acceptance: the part is done and its result is written down. ".repeat(20);
for (let n = 0;; n++) {
  const { task: root } = await board.createTask({
    title: `root ${Deno.pid}-${n}`,
    assignee: "default",
    triage: true,
  });
  await board.commitDecomposition({
    fanout: true,
    rootId: root.id,
    children: [0, 1, 2, 3].map((k) => ({
      title: `${root.id} part ${k}`,
      body,
      assignee: k % 2 === 0 ? "coder" : "writer",
    })),
    edges: [[0, 1], [0, 2]],
    rootAssignee: "lead",
    comment: {
      author: "decomposer",
      body: (children) => `Split into ${children.map((child) => child.id).join(", ")}`,
    },
  });
  if (n === 0) Deno.stdout.writeSync(new TextEncoder().encode("ready\n"));
}
