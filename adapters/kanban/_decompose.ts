/**
 * Writing a decomposition (core's `BoardStore.commitDecomposition`) inside
 * the caller's `BEGIN IMMEDIATE` transaction: every child, link, comment
 * and event, or (on any refusal) nothing. Private to adapters/kanban.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { HeraldError } from "../../core/errors.ts";
import {
  type CommittedDecomposition,
  type Decomposition,
  initialStatus,
  newTaskId,
  type TaskRecord,
  type TaskStatus,
} from "../../core/kanban/mod.ts";
import { graphProblem, leafIndices } from "../../core/kanban/task_graph.ts";
import { refuseUnless, required } from "./_checks.ts";
import { addEvent, parentsFinished, requireTask } from "./_queries.ts";
import { plainAll, TASK_COLUMNS } from "./_schema.ts";

/** Writes `plan` (see core's BoardStore.commitDecomposition); call inside a transaction. */
export function writeDecomposition(
  db: DatabaseSync,
  plan: Decomposition,
  at: number,
): CommittedDecomposition {
  const root = requireTask(db, plan.rootId);
  refuseUnless(root, ["triage"], "decomposed");
  return plan.fanout ? writeFanout(db, root, plan, at) : writeSingle(db, root, plan, at);
}

function writeFanout(
  db: DatabaseSync,
  root: TaskRecord,
  plan: Extract<Decomposition, { fanout: true }>,
  at: number,
): CommittedDecomposition {
  const problem = plan.children.length === 0
    ? "a fanout needs at least one child task"
    : graphProblem(plan.children.length, plan.edges);
  if (problem) {
    throw new HeraldError("kanban_graph", "usage", `Task graph refused: ${problem}`, {
      details: { task: root.id },
    });
  }
  const orchestrator = required(plan.rootAssignee, "The root's assignee").toLowerCase();
  const children = plan.children.map((child) => ({
    title: required(child.title, "A child task's title"),
    body: child.body,
    assignee: required(child.assignee, "A child task's assignee").toLowerCase(),
  }));
  const ids = freshIds(db, children.length);
  // What the root waited for, every child that starts the graph waits for too.
  const rootParents = db.prepare(
    "SELECT l.parent_id AS id, p.status AS status FROM task_links l " +
      "JOIN tasks p ON p.id = l.parent_id WHERE l.child_id = ?",
  ).all(root.id) as { id: string; status: TaskStatus }[];
  const parentsOf = ids.map((_, index) => {
    const inGraph = plan.edges.filter(([, child]) => child === index).map(([parent]) =>
      ids[parent]
    );
    return inGraph.length > 0 ? inGraph : rootParents.map((parent) => parent.id);
  });
  const statusOf = new Map(rootParents.map((parent) => [parent.id, parent.status]));
  const insert = db.prepare(
    "INSERT INTO tasks (id, board, title, body, assignee, status, priority, created_by, " +
      "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const link = db.prepare("INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)");
  const created = db.prepare(
    "INSERT INTO task_events (task_id, kind, payload, at) VALUES (?, 'created', ?, ?)",
  );
  children.forEach((child, index) => {
    const parents = [...new Set(parentsOf[index])];
    const status = initialStatus({
      parentStatuses: parents.map((id): TaskStatus => statusOf.get(id) ?? "todo"),
    });
    insert.run(
      ids[index],
      root.board,
      child.title,
      child.body,
      child.assignee,
      status,
      root.priority,
      plan.comment.author,
      at,
      at,
    );
    for (const parent of parents) link.run(parent, ids[index]);
    created.run(
      ids[index],
      JSON.stringify({ assignee: child.assignee, status, parents, decomposed_from: root.id }),
      at,
    );
  });
  const leaves = leafIndices(ids.length, plan.edges).map((index) => ids[index]);
  for (const leaf of leaves) link.run(leaf, root.id);
  db.prepare("UPDATE tasks SET status = 'todo', assignee = ?, updated_at = ? WHERE id = ?")
    .run(orchestrator, at, root.id);
  const records = selectTasks(db, ids);
  addComment(db, root.id, plan.comment.author, plan.comment.body(records), at);
  addEvent(db, root.id, "decomposed", {
    ...plan.details,
    fanout: true,
    children: ids,
    leaves,
    assignee: orchestrator,
    status: "todo",
  }, at);
  return { fanout: true, root: requireTask(db, root.id), children: records };
}

function writeSingle(
  db: DatabaseSync,
  root: TaskRecord,
  plan: Extract<Decomposition, { fanout: false }>,
  at: number,
): CommittedDecomposition {
  const title = required(plan.title, "The task's title");
  const assignee = required(plan.assignee, "The task's assignee").toLowerCase();
  const status: TaskStatus = parentsFinished(db, root.id) ? "ready" : "todo";
  db.prepare(
    "UPDATE tasks SET title = ?, body = ?, assignee = ?, status = ?, updated_at = ? WHERE id = ?",
  ).run(title, plan.body, assignee, status, at, root.id);
  addComment(db, root.id, plan.comment.author, plan.comment.body, at);
  addEvent(db, root.id, "decomposed", {
    ...plan.details,
    fanout: false,
    assignee,
    status,
    title_changed: title !== root.title,
    body_changed: plan.body !== root.body,
  }, at);
  return { fanout: false, root: requireTask(db, root.id) };
}

/** `count` task ids used by no task yet and distinct from each other. */
function freshIds(db: DatabaseSync, count: number): string[] {
  const taken = db.prepare("SELECT 1 AS taken FROM tasks WHERE id = ?");
  const ids = new Set<string>();
  while (ids.size < count) {
    const id = newTaskId();
    if (!taken.get(id)) ids.add(id);
  }
  return [...ids];
}

/** The tasks `ids`, in that order (one query). */
function selectTasks(db: DatabaseSync, ids: readonly string[]): TaskRecord[] {
  const rows = plainAll<TaskRecord>(
    db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)),
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id)!);
}

function addComment(db: DatabaseSync, taskId: string, author: string, body: string, at: number) {
  const who = required(author, "A comment's author");
  const text = required(body, "A comment");
  db.prepare(
    "INSERT INTO task_comments (task_id, author, body, created_at) VALUES (?, ?, ?, ?)",
  ).run(taskId, who, text, at);
  addEvent(db, taskId, "commented", { author: who, len: text.length }, at);
}
