/**
 * The `worker_context` markdown `kanban_show` returns: what a worker needs
 * to start on a task in one read (its title, assignee and status, its
 * body, how earlier attempts ended, its parents' results and the newest
 * comments), each part capped so a long thread cannot flood the model.
 * Private to core/tools.
 *
 * @module
 */

import type { TaskComment, TaskRecord, TaskRun } from "../kanban/mod.ts";

/** Characters of a task's body kept. */
export const BODY_CHARS = 8 * 1024;
/** Characters of any other field kept (a result, an error). */
export const FIELD_CHARS = 4 * 1024;
/** Characters of one comment kept. */
export const COMMENT_CHARS = 2 * 1024;
/** The newest comments shown. */
export const COMMENTS_SHOWN = 30;
/** The newest closed attempts shown. */
export const ATTEMPTS_SHOWN = 10;

/** What {@link workerContext} renders. */
export interface WorkerContextInput {
  task: TaskRecord;
  /** The task's runs, oldest first. */
  runs: readonly TaskRun[];
  /** The tasks it waits for. */
  parents: readonly TaskRecord[];
  /** The ids of the tasks waiting for it. */
  children: readonly string[];
  /** Its comments, oldest first. */
  comments: readonly TaskComment[];
  /** The clock (ms since the epoch), for ages. */
  now: number;
}

/** `text` cut to `limit` characters, saying how much was left out. */
export function capped(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… [truncated, ${text.length - limit} chars omitted]`;
}

/** `2026-11-24 09:00 UTC`. */
function stamp(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** How long ago `at` was: `just now`, `5m ago`, `3h ago`, `2d ago`. */
export function age(at: number, now: number): string {
  const seconds = Math.floor((now - at) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

function attempts(runs: readonly TaskRun[], now: number): string[] {
  const closed = runs.map((run, index) => ({ run, number: index + 1 }))
    .filter(({ run }) => run.ended_at !== null)
    .slice(-ATTEMPTS_SHOWN);
  if (closed.length === 0) return ["(none: this is the first attempt)"];
  return closed.flatMap(({ run, number }) => {
    const lines = [
      `### Attempt ${number}: ${run.outcome ?? "ended"} (${stamp(run.started_at)}, ${
        age(run.ended_at ?? run.started_at, now)
      })`,
    ];
    if (run.error) lines.push(`Error: ${capped(run.error, FIELD_CHARS)}`);
    return [...lines, ""];
  });
}

function parentResults(parents: readonly TaskRecord[], now: number): string[] {
  if (parents.length === 0) return ["(none: this task waits for no other task)"];
  return parents.flatMap((parent) => [
    `### ${parent.id}: ${parent.title} (${parent.status}, @${parent.assignee}${
      parent.completed_at === null ? "" : `, done ${age(parent.completed_at, now)}`
    })`,
    parent.result === null || parent.result.trim() === ""
      ? "(no result)"
      : capped(parent.result, FIELD_CHARS),
    "",
  ]);
}

function thread(comments: readonly TaskComment[]): string[] {
  if (comments.length === 0) return ["(no comments)"];
  const shown = comments.slice(-COMMENTS_SHOWN);
  const lines = comments.length > shown.length
    ? [`(the newest ${shown.length} of ${comments.length} comments)`, ""]
    : [];
  for (const comment of shown) {
    lines.push(
      `**${comment.author}** at ${stamp(comment.created_at)}:`,
      capped(comment.body, COMMENT_CHARS),
      "",
    );
  }
  return lines;
}

/**
 * The markdown a worker reads before it starts: `# Kanban task <id>:
 * <title>`, its assignee, status and board, `## Body`, `## Prior
 * attempts`, `## Parent task results`, `## Waiting for this task` and
 * `## Comment thread`.
 *
 * @example
 * ```ts
 * const markdown = workerContext({ task, runs, parents, children: [], comments, now: Date.now() });
 * ```
 */
export function workerContext(input: WorkerContextInput): string {
  const { task, now } = input;
  const lines = [
    `# Kanban task ${task.id}: ${task.title}`,
    "",
    `Assignee: ${task.assignee}`,
    `Status: ${task.status}`,
    `Board: ${task.board}`,
    `Priority: ${task.priority}`,
    ...(task.created_by === null ? [] : [`Created by: ${task.created_by}`]),
    ...(task.consecutive_failures > 0
      ? [`Failed attempts in a row: ${task.consecutive_failures}`]
      : []),
    "",
    "## Body",
    "",
    task.body.trim() === "" ? "(no body)" : capped(task.body, BODY_CHARS),
    "",
    "## Prior attempts",
    "",
    ...attempts(input.runs, now),
    "",
    "## Parent task results",
    "",
    ...parentResults(input.parents, now),
    "",
    "## Waiting for this task",
    "",
    input.children.length === 0 ? "(nothing)" : input.children.join(", "),
    "",
    "## Comment thread",
    "",
    ...thread(input.comments),
  ];
  return `${lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`;
}
