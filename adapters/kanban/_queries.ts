/**
 * Reads and small writes the board store runs inside its transactions:
 * fetching a task (or failing with its id), the link graph around a task,
 * appending an event, closing a run, promoting children. Private to
 * adapters/kanban.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { NotFoundError } from "../../core/errors.ts";
import {
  childrenToPromote,
  isFinished,
  type TaskRecord,
  type TaskStatus,
} from "../../core/kanban/mod.ts";
import { plain, TASK_COLUMNS } from "./_schema.ts";

/** The task `id`, or undefined. */
export function findTask(db: DatabaseSync, id: string): TaskRecord | undefined {
  const row = db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ?`).get(id);
  return row === undefined ? undefined : plain<TaskRecord>(row);
}

/**
 * The task `id`.
 *
 * @throws NotFoundError naming the id when there is none.
 */
export function requireTask(db: DatabaseSync, id: string): TaskRecord {
  const task = findTask(db, id);
  if (!task) throw new NotFoundError("Task", id, "list the tasks with `herald kanban list`");
  return task;
}

/** The ids of the tasks waiting for `id`. */
export function childIds(db: DatabaseSync, id: string): string[] {
  return (db.prepare("SELECT child_id FROM task_links WHERE parent_id = ?").all(id) as {
    child_id: string;
  }[]).map((row) => row.child_id);
}

/** The statuses of the tasks `id` waits for. */
export function parentStatuses(db: DatabaseSync, id: string): TaskStatus[] {
  return (db.prepare(
    "SELECT p.status FROM task_links l JOIN tasks p ON p.id = l.parent_id WHERE l.child_id = ?",
  ).all(id) as { status: TaskStatus }[]).map((row) => row.status);
}

/** True when every task `id` waits for is done or archived. */
export function parentsFinished(db: DatabaseSync, id: string): boolean {
  return parentStatuses(db, id).every(isFinished);
}

/** Appends one event to the log and returns its seq. */
export function addEvent(
  db: DatabaseSync,
  taskId: string,
  kind: string,
  payload: Record<string, unknown> | null,
  at: number,
): number {
  const result = db.prepare(
    "INSERT INTO task_events (task_id, kind, payload, at) VALUES (?, ?, ?, ?)",
  ).run(taskId, kind, payload === null ? null : JSON.stringify(payload), at);
  return Number(result.lastInsertRowid);
}

/** Closes the task's open run (if any) with `outcome`. */
export function closeOpenRun(
  db: DatabaseSync,
  taskId: string,
  outcome: string,
  at: number,
  error: string | null = null,
): void {
  db.prepare(
    "UPDATE task_runs SET ended_at = ?, outcome = ?, error = ? " +
      "WHERE task_id = ? AND ended_at IS NULL",
  ).run(at, outcome, error, taskId);
}

/** Sets a task's status and stamps `updated_at`. */
export function setStatus(db: DatabaseSync, id: string, status: TaskStatus, at: number): void {
  db.prepare("UPDATE tasks SET status = ?, updated_at = ? WHERE id = ?").run(status, at, id);
}

/** Clears a task's claim (lock, expiry, worker). */
export function clearClaim(db: DatabaseSync, id: string): void {
  db.prepare(
    "UPDATE tasks SET claim_lock = NULL, claim_expires = NULL, worker_pid = NULL WHERE id = ?",
  ).run(id);
}

/**
 * Promotes to `ready` each `todo` child of `parentId` whose parents are now
 * all finished, with a `promoted` event, and returns them as they are now.
 */
export function promoteChildren(db: DatabaseSync, parentId: string, at: number): TaskRecord[] {
  const children = childIds(db, parentId).map((id) => requireTask(db, id));
  const promote = childrenToPromote(children, (id) => parentStatuses(db, id));
  return promote.map((id) => {
    setStatus(db, id, "ready", at);
    addEvent(db, id, "promoted", { status: "ready", parent: parentId }, at);
    return requireTask(db, id);
  });
}
