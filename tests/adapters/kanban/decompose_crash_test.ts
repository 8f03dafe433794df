/**
 * Kill -9 in the middle of a decomposition, 50 times: a worker process
 * commits decompositions of fresh triage roots into 4 children in a loop on
 * a shared kanban.db and is killed with SIGKILL at a random moment (before
 * it opened the database, or while it writes); after each kill the database
 * is intact and every root has none of its children or all 4, never some.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "../../_helpers.ts";

const WORKER = new URL("./_decompose_worker.ts", import.meta.url).pathname;
const KILLS = 50;
const READY_TIMEOUT_MS = 30_000;

/** Waits for the worker's `ready` line (its first decomposition committed). */
async function readyLine(stdout: ReadableStream<Uint8Array>): Promise<void> {
  const reader = stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const timer = setTimeout(() => reader.cancel("timed out"), READY_TIMEOUT_MS);
  try {
    while (!seen.includes("ready\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the worker ended or went quiet before it was ready: ${seen}`);
      seen += value;
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

interface RootRow {
  id: string;
  status: string;
  assignee: string;
}

/** Counts rows per key with one grouped query (`key`, `n` columns). */
function countsBy(db: DatabaseSync, sql: string): Map<string, number> {
  const rows = db.prepare(sql).all() as unknown as { key: string; n: number }[];
  return new Map(rows.map((row) => [row.key, Number(row.n)]));
}

/** A child's title starts with its root's id: `<root id> part <k>`. */
const CHILD = "c.title LIKE 't\\_% part %' ESCAPE '\\'";

/**
 * Checks the database after a kill; returns how many roots were decomposed
 * and how many not yet. Grouped queries, so the check stays linear in the
 * board's size however many roots the workers committed.
 */
function checkBoard(path: string, kill: number): { whole: number; untouched: number } {
  const db = new DatabaseSync(path);
  try {
    const integrity = db.prepare("PRAGMA integrity_check").all().map((row) => ({ ...row }));
    assert.deepEqual(integrity, [{ integrity_check: "ok" }], `kill ${kill}`);
    const roots = db.prepare("SELECT id, status, assignee FROM tasks WHERE title LIKE 'root %'")
      .all() as unknown as RootRow[];
    const childrenOf = countsBy(
      db,
      `SELECT substr(c.title, 1, 10) AS key, count(*) AS n FROM tasks c WHERE ${CHILD} GROUP BY key`,
    );
    const decomposedOf = countsBy(
      db,
      "SELECT task_id AS key, count(*) AS n FROM task_events WHERE kind = 'decomposed' " +
        "GROUP BY key",
    );
    const commentsOf = countsBy(
      db,
      "SELECT task_id AS key, count(*) AS n FROM task_comments GROUP BY key",
    );
    const waitsForOf = countsBy(
      db,
      "SELECT child_id AS key, count(*) AS n FROM task_links GROUP BY key",
    );
    const siblingLinksOf = countsBy(
      db,
      "SELECT substr(c.title, 1, 10) AS key, count(*) AS n FROM task_links l " +
        `JOIN tasks c ON c.id = l.child_id WHERE ${CHILD} GROUP BY key`,
    );
    const createdOf = countsBy(
      db,
      "SELECT substr(c.title, 1, 10) AS key, count(*) AS n FROM task_events e " +
        `JOIN tasks c ON c.id = e.task_id WHERE ${CHILD} AND e.kind = 'created' GROUP BY key`,
    );
    let whole = 0, untouched = 0;
    for (const root of roots) {
      const children = childrenOf.get(root.id) ?? 0;
      const decomposed = decomposedOf.get(root.id) ?? 0;
      const comments = commentsOf.get(root.id) ?? 0;
      const waitsFor = waitsForOf.get(root.id) ?? 0;
      const where = `kill ${kill}, root ${root.id}`;
      if (children === 0) {
        untouched++;
        assert.deepEqual([root.status, decomposed, comments, waitsFor], ["triage", 0, 0, 0], where);
        continue;
      }
      whole++;
      assert.equal(children, 4, `${where}: ${children} of 4 children`);
      assert.deepEqual(
        [root.status, root.assignee, decomposed, comments, waitsFor],
        ["todo", "lead", 1, 1, 3],
        where,
      );
      assert.equal(siblingLinksOf.get(root.id) ?? 0, 2, where);
      assert.equal(createdOf.get(root.id) ?? 0, 4, where);
    }
    const orphans = Number(
      (db.prepare(
        `SELECT count(*) AS n FROM tasks c WHERE ${CHILD} ` +
          "AND NOT EXISTS (SELECT 1 FROM tasks r WHERE r.id = substr(c.title, 1, 10))",
      ).get() as { n: number }).n,
    );
    assert.equal(orphans, 0, `kill ${kill}: children without their root`);
    return { whole, untouched };
  } finally {
    db.close();
  }
}

Deno.test("killing the process with -9 during decomposition commits leaves no children or all of them, 50 times", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "kanban.db");
  let afterReady = 0;
  let last = { whole: 0, untouched: 0 };
  for (let kill = 1; kill <= KILLS; kill++) {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", WORKER, path],
      cwd: REPO_ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    // One kill in five at any moment from the spawn (before the database is
    // even open); the rest once the worker commits, at a random point of its loop.
    if (kill % 5 === 0) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
    } else {
      await readyLine(child.stdout);
      afterReady++;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 30));
    }
    child.kill("SIGKILL");
    const status = await child.status;
    await child.stdout.cancel().catch(() => {});
    assert.equal(status.signal, "SIGKILL", `kill ${kill}: the worker ended by itself`);
    last = checkBoard(path, kill);
  }
  assert.equal(afterReady, KILLS - KILLS / 5);
  // Each worker killed after its first commit left at least that one whole.
  assert.ok(last.whole >= afterReady, JSON.stringify(last));
});
