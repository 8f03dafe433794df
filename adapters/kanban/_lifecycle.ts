/**
 * The writes of a task's working life that the dispatcher, its workers and
 * a person dragging cards make: blocking (with the loop guard), ending an
 * attempt that did not finish (with the failure limit), extending and
 * recording claims, promoting what is ready, editing and moving. Each runs
 * inside one of the store's transactions. Private to adapters/kanban.
 *
 * @module
 */

import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { HeraldError } from "../../core/errors.ts";
import {
  type AttemptEnd,
  BLOCK_RECURRENCE_LIMIT,
  type BlockKind,
  type EndedAttempt,
  type TaskEdit,
  type TaskRecord,
  type TaskStatus,
  type TaskSubscription,
} from "../../core/kanban/mod.ts";
import { refuseUnless, required } from "./_checks.ts";
import {
  addEvent,
  childIds,
  clearClaim,
  closeOpenRun,
  findTask,
  parentsFinished,
  requireTask,
  setStatus,
} from "./_queries.ts";

/** The longest failure text kept on a task. */
const FAILURE_TEXT_CHARS = 500;

/**
 * Fails unless `task` still runs under `lock` (a worker whose claim was
 * taken over, or whose task was moved, must not finish it).
 */
export function requireClaim(task: TaskRecord, lock: string): void {
  if (task.status === "running" && task.claim_lock === lock) return;
  throw new HeraldError(
    "kanban_claim_lost",
    "conflict",
    `Task "${task.id}" is no longer held by this worker's claim (it is ${task.status}); ` +
      "stop working on it",
    { details: { task: task.id, status: task.status } },
  );
}

/**
 * Blocks `id` with `reason`. A block of the same kind as the last one is a
 * recurrence; the {@link BLOCK_RECURRENCE_LIMIT}th `needs_input` block in a
 * row sends the task back to triage (`block_loop_detected`). A
 * `dependency` block parks it in `todo` (`dependency_wait`), from where it
 * is promoted once the tasks it now waits for are finished.
 */
export function writeBlock(
  db: DatabaseSync,
  id: string,
  reason: string,
  options: { kind?: BlockKind; lock?: string },
  at: number,
): TaskRecord {
  const why = required(reason, "A block reason");
  const task = requireTask(db, id);
  if (options.lock !== undefined) requireClaim(task, options.lock);
  refuseUnless(task, ["triage", "todo", "ready", "running"], "blocked");
  const kind = options.kind ?? null;
  const recurrences = kind === null ? 0 : task.block_kind === kind ? task.block_recurrences + 1 : 1;
  const loop = kind === "needs_input" && recurrences >= BLOCK_RECURRENCE_LIMIT;
  // Waiting for other tasks is not a block: it waits in todo and is promoted when they finish.
  // With nothing unfinished to wait for, it is an ordinary block (else it would loop).
  const waits = kind === "dependency" && !parentsFinished(db, id);
  const status: TaskStatus = loop ? "triage" : waits ? "todo" : "blocked";
  db.prepare(
    "UPDATE tasks SET status = ?, block_kind = ?, block_recurrences = ?, updated_at = ? " +
      "WHERE id = ?",
  ).run(status, kind, recurrences, at, id);
  clearClaim(db, id);
  closeOpenRun(db, id, "blocked", at, why);
  addEvent(db, id, loop ? "block_loop_detected" : waits ? "dependency_wait" : "blocked", {
    reason: why,
    ...(kind === null ? {} : { kind, recurrences }),
    source_status: task.status,
  }, at);
  return requireTask(db, id);
}

/**
 * Ends the attempt running under `end.lock` (see BoardStore.endAttempt);
 * undefined when the task no longer runs under it.
 */
export function writeAttemptEnd(
  db: DatabaseSync,
  id: string,
  end: AttemptEnd,
  at: number,
): EndedAttempt | undefined {
  const task = findTask(db, id);
  // A running row without a claim is ended with the lock "".
  if (!task || task.status !== "running" || (task.claim_lock ?? "") !== end.lock) return undefined;
  const failures = task.consecutive_failures + (end.failed ? 1 : 0);
  const limit = task.max_retries ?? end.failureLimit;
  const gaveUp = end.failed && failures >= limit;
  const error = end.error.slice(0, FAILURE_TEXT_CHARS);
  const status: TaskStatus = gaveUp ? "blocked" : parentsFinished(db, id) ? "ready" : "todo";
  closeOpenRun(db, id, end.outcome, at, error);
  clearClaim(db, id);
  db.prepare(
    "UPDATE tasks SET status = ?, consecutive_failures = ?, last_failure_error = ?, " +
      "updated_at = ? WHERE id = ?",
  ).run(status, failures, error, at, id);
  addEvent(db, id, end.outcome, { ...end.details, error, failures, status }, at);
  if (gaveUp) addEvent(db, id, "gave_up", { failures, limit, error }, at);
  return { task: requireTask(db, id), gaveUp };
}

/** Extends the claim under `lock` (`claim_extended`); false when it is not held. */
export function writeClaimExtension(
  db: DatabaseSync,
  id: string,
  lock: string,
  expiresAt: number,
  reason: string,
  at: number,
): boolean {
  const held = db.prepare(
    "UPDATE tasks SET claim_expires = ?, updated_at = ? " +
      "WHERE id = ? AND status = 'running' AND claim_lock = ?",
  ).run(expiresAt, at, id, lock);
  if (held.changes !== 1) return false;
  addEvent(db, id, "claim_extended", { reason, expires: expiresAt }, at);
  return true;
}

/** Records the worker's pid on the task and its open run (`spawned`); false when the lock is not held. */
export function writeWorker(
  db: DatabaseSync,
  id: string,
  lock: string,
  pid: number,
  at: number,
): boolean {
  const held = db.prepare(
    "UPDATE tasks SET worker_pid = ?, updated_at = ? " +
      "WHERE id = ? AND status = 'running' AND claim_lock = ?",
  ).run(pid, at, id, lock);
  if (held.changes !== 1) return false;
  db.prepare(
    "UPDATE task_runs SET worker_pid = ? WHERE task_id = ? AND claim_lock = ? AND ended_at IS NULL",
  ).run(pid, id, lock);
  addEvent(db, id, "spawned", { pid }, at);
  return true;
}

/** Promotes every `todo` task (of `board`, or all) whose parents are all finished. */
export function writePromotions(
  db: DatabaseSync,
  board: string | undefined,
  at: number,
): TaskRecord[] {
  const args: SQLInputValue[] = board === undefined ? [] : [board];
  const ids = (db.prepare(
    "SELECT id FROM tasks WHERE status = 'todo'" + (board === undefined ? "" : " AND board = ?") +
      " AND NOT EXISTS (SELECT 1 FROM task_links l JOIN tasks p ON p.id = l.parent_id " +
      "WHERE l.child_id = tasks.id AND p.status NOT IN ('done', 'archived')) " +
      "ORDER BY priority DESC, created_at, id",
  ).all(...args) as { id: string }[]).map((row) => row.id);
  return ids.map((id) => {
    setStatus(db, id, "ready", at);
    addEvent(db, id, "promoted", { status: "ready" }, at);
    return requireTask(db, id);
  });
}

/** Changes a task's title, body or priority (`edited`); no change writes nothing. */
export function writeEdit(db: DatabaseSync, id: string, changes: TaskEdit, at: number): TaskRecord {
  const task = requireTask(db, id);
  const next = {
    title: changes.title === undefined ? task.title : required(changes.title, "A task's title"),
    body: changes.body ?? task.body,
    priority: changes.priority ?? task.priority,
  };
  if (!Number.isSafeInteger(next.priority)) {
    throw new HeraldError(
      "kanban_priority",
      "usage",
      `Priority must be a whole number, got ${next.priority}`,
    );
  }
  const fields = (["title", "body", "priority"] as const).filter((field) =>
    next[field] !== task[field]
  );
  if (fields.length === 0) return task;
  db.prepare("UPDATE tasks SET title = ?, body = ?, priority = ?, updated_at = ? WHERE id = ?")
    .run(next.title, next.body, next.priority, at, id);
  addEvent(db, id, "edited", { fields }, at);
  return requireTask(db, id);
}

/**
 * Moves `id` back to triage or into the queue (see BoardStore.move). Into
 * the queue, the parents decide: `ready` when all are finished, else `todo`.
 */
export function writeMove(
  db: DatabaseSync,
  id: string,
  to: "triage" | "todo" | "ready",
  actor: string,
  at: number,
): TaskRecord {
  const task = requireTask(db, id);
  const status: TaskStatus = to === "triage"
    ? "triage"
    : parentsFinished(db, id)
    ? "ready"
    : "todo";
  if (task.status === status) {
    if (to === status) return task;
    throw new HeraldError(
      "kanban_task_status",
      "conflict",
      status === "todo"
        ? `Task "${id}" waits for a parent that is not done; it becomes ready when its parents finish`
        : `Task "${id}" has no unfinished parent, so it is ready; block it to hold it back`,
      { details: { task: id, status: task.status } },
    );
  }
  if (task.status === "running") {
    clearClaim(db, id);
    closeOpenRun(db, id, "reclaimed", at, `moved to ${status} by ${actor}`);
    addEvent(db, id, "reclaimed", { manual: true, by: actor }, at);
  }
  const reopened = task.status === "done";
  if (reopened) {
    // Its children that had not started wait for it again.
    for (const childId of childIds(db, id)) {
      const child = requireTask(db, childId);
      if (child.status !== "ready") continue;
      setStatus(db, childId, "todo", at);
      addEvent(db, childId, "demoted", { parent: id, reason: "parent reopened" }, at);
    }
  }
  // A person decided: the block streak starts over.
  db.prepare(
    "UPDATE tasks SET status = ?, block_kind = NULL, block_recurrences = 0, " +
      "consecutive_failures = " +
      (task.status === "blocked" ? "0" : "consecutive_failures") +
      ", completed_at = " + (reopened ? "NULL" : "completed_at") +
      ", updated_at = ? WHERE id = ?",
  ).run(status, at, id);
  addEvent(db, id, "moved", { from: task.status, to: status, by: actor }, at);
  return requireTask(db, id);
}

/** Subscribes a chat to a task's end (a second subscribe keeps the first). */
export function writeSubscription(
  db: DatabaseSync,
  subscription: Omit<TaskSubscription, "last_seq" | "created_at">,
  at: number,
): void {
  requireTask(db, subscription.task_id);
  const last = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM task_events WHERE task_id = ?")
    .get(subscription.task_id) as { seq: number };
  db.prepare(
    "INSERT OR IGNORE INTO task_subscriptions " +
      "(task_id, platform, chat_id, thread_id, profile, last_seq, created_at) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?)",
  ).run(
    subscription.task_id,
    required(subscription.platform, "A subscription's platform"),
    required(subscription.chat_id, "A subscription's chat"),
    subscription.thread_id,
    required(subscription.profile, "A subscription's profile"),
    last.seq,
    at,
  );
}

/** Moves a subscription's cursor, or removes it. */
export function writeSubscriptionCursor(
  db: DatabaseSync,
  key: Pick<TaskSubscription, "task_id" | "platform" | "chat_id" | "thread_id">,
  seq: number,
  done: boolean,
): void {
  const where = "WHERE task_id = ? AND platform = ? AND chat_id = ? AND thread_id = ?";
  const args = [key.task_id, key.platform, key.chat_id, key.thread_id];
  if (done) db.prepare(`DELETE FROM task_subscriptions ${where}`).run(...args);
  else db.prepare(`UPDATE task_subscriptions SET last_seq = ? ${where}`).run(seq, ...args);
}
