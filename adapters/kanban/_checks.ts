/**
 * Checks of the board store's input and of a task's state before a write,
 * each failing with a HeraldError that names the value. Private to
 * adapters/kanban.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { HeraldError, NotFoundError } from "../../core/errors.ts";
import {
  DEFAULT_BOARD,
  type NewTask,
  parseBoardSlug,
  type TaskRecord,
  type TaskStatus,
} from "../../core/kanban/mod.ts";

/** A {@link NewTask} checked and normalised. */
export interface CheckedTask {
  board: string;
  title: string;
  body: string;
  assignee: string;
  parents: string[];
  triage: boolean;
  priority: number;
  createdBy: string | null;
  idempotencyKey: string | null;
  maxRetries: number | null;
}

/** `input` checked and normalised (trimmed text, lowercased assignee, unique parents). */
export function checkNewTask(input: NewTask): CheckedTask {
  const priority = input.priority ?? 0;
  if (!Number.isSafeInteger(priority)) {
    throw usage("kanban_priority", `Priority must be a whole number, got ${priority}`);
  }
  const maxRetries = input.max_retries ?? null;
  if (maxRetries !== null && (!Number.isSafeInteger(maxRetries) || maxRetries < 0)) {
    throw usage("kanban_max_retries", `Max retries must be 0 or more, got ${maxRetries}`);
  }
  return {
    board: parseBoardSlug(input.board ?? DEFAULT_BOARD),
    title: required(input.title, "A task's title"),
    body: input.body ?? "",
    assignee: required(input.assignee, "A task's assignee").toLowerCase(),
    parents: [...new Set(input.parents ?? [])],
    triage: input.triage ?? false,
    priority,
    createdBy: input.created_by?.trim() || null,
    idempotencyKey: input.idempotency_key?.trim() || null,
    maxRetries,
  };
}

/** `value` trimmed, or a usage error saying `what` is required. */
export function required(value: string, what: string): string {
  const text = value.trim();
  if (!text) throw usage("kanban_required", `${what} is required and cannot be empty`);
  return text;
}

function usage(code: string, message: string): HeraldError {
  return new HeraldError(code, "usage", message);
}

/**
 * Fails unless the board `slug` exists and is not removed.
 *
 * @throws NotFoundError naming the slug.
 */
export function requireBoard(db: DatabaseSync, slug: string): void {
  const found = db.prepare("SELECT 1 AS found FROM boards WHERE slug = ? AND removed_at IS NULL")
    .get(slug);
  if (!found) {
    throw new NotFoundError("Board", slug, "create it with `herald kanban boards create <slug>`");
  }
}

/** Fails with a conflict naming the task's status unless it is one of `allowed`. */
export function refuseUnless(task: TaskRecord, allowed: readonly TaskStatus[], verb: string): void {
  if (allowed.includes(task.status)) return;
  throw new HeraldError(
    "kanban_task_status",
    "conflict",
    `Task "${task.id}" is ${task.status}; only a ${allowed.join(", ")} task can be ${verb}`,
    { details: { task: task.id, status: task.status } },
  );
}
