/**
 * The board as people read it, for `herald kanban` and `/kanban` alike:
 * the task table, one task in full, the event log, the counts, the boards,
 * and one-line confirmations. Times show as UTC (`2026-11-24 09:00Z`).
 *
 * @module
 */

import { clipLine, textTable } from "../_util/verb_args.ts";
import type { Board, TaskComment, TaskEvent, TaskRecord, TaskRun } from "./board.ts";
import type { BoardStats, CreateTaskResult, DecomposeResult, TaskDetail } from "./service.ts";
import type { DispatchReport } from "./dispatch.ts";

/** An instant as `YYYY-MM-DD HH:MM:SSZ` (UTC). */
export function stamp(at: number): string {
  return new Date(at).toISOString().replace("T", " ").slice(0, 19) + "Z";
}

/** `t_1a2b3c4d "Write the docs"`. */
export function taskLabel(task: TaskRecord): string {
  return `${task.id} "${clipLine(task.title, 60)}"`;
}

/** The note when a requested assignee was rewritten, or undefined. */
export function rewriteNote(result: CreateTaskResult): string | undefined {
  if (result.assignee_source === "requested") return undefined;
  const to = result.assignee_source === "kanban.default_assignee"
    ? `kanban.default_assignee (${result.task.assignee})`
    : `the default profile (${result.task.assignee})`;
  return result.requested_assignee === null
    ? `No assignee given; assigned to ${to}.`
    : `No profile "${result.requested_assignee}"; assigned to ${to}.`;
}

/** The answer to creating a task (or finding it by its idempotency key). */
export function createdText(result: CreateTaskResult): string {
  const { task } = result;
  const head = result.created
    ? `Created ${taskLabel(task)} (${task.status}, assignee=${task.assignee})`
    : `Exists already: ${taskLabel(task)} (${task.status}, assignee=${task.assignee}) ` +
      `has idempotency key "${task.idempotency_key}"; nothing was created`;
  const note = result.created ? rewriteNote(result) : undefined;
  return note ? `${head}\n${note}` : head;
}

/** The task table, or how to create the first task. */
export function listText(tasks: readonly TaskRecord[], prefix: string): string {
  if (tasks.length === 0) {
    return `No tasks. Create one: ${prefix} create "Write the release notes" --assignee <profile>`;
  }
  const rows = [
    ["ID", "STATUS", "PRI", "ASSIGNEE", "TITLE"],
    ...tasks.map((task) => [
      task.id,
      task.status,
      String(task.priority),
      task.assignee,
      clipLine(task.title, 60),
    ]),
  ];
  return textTable(rows).join("\n");
}

/** One event as a line of the log. */
export function eventLine(event: TaskEvent): string {
  const payload = event.payload === null || Object.keys(event.payload).length === 0
    ? ""
    : `  ${JSON.stringify(event.payload)}`;
  return `#${event.seq}  ${stamp(event.at)}  ${event.task_id}  ${event.kind}${payload}`;
}

/** The event log, or a note that there is nothing new. */
export function tailText(events: readonly TaskEvent[]): string {
  return events.length === 0 ? "No events." : events.map(eventLine).join("\n");
}

function commentLine(comment: TaskComment): string {
  const [first, ...rest] = comment.body.split("\n");
  return [
    `  ${stamp(comment.created_at)}  ${comment.author}: ${first}`,
    ...rest.map((line) => `      ${line}`),
  ].join("\n");
}

function runLine(run: TaskRun): string {
  const ended = run.ended_at === null
    ? "running"
    : `${run.outcome ?? "ended"} ${stamp(run.ended_at)}`;
  return `  #${run.id}  ${stamp(run.started_at)}  ${ended}` +
    (run.error ? `  ${clipLine(run.error, 120)}` : "");
}

/** One task in full: its fields, links, comments, runs and events. */
export function showText(detail: TaskDetail): string {
  const { task } = detail;
  const fields: [string, string][] = [
    ["status", task.status],
    ["assignee", task.assignee],
    ["board", task.board],
    ["priority", String(task.priority)],
    ["created", `${stamp(task.created_at)}${task.created_by ? ` by ${task.created_by}` : ""}`],
    ["parents", detail.parents.length > 0 ? detail.parents.join(", ") : "-"],
    ["children", detail.children.length > 0 ? detail.children.join(", ") : "-"],
  ];
  if (task.idempotency_key) fields.push(["idempotency key", task.idempotency_key]);
  if (task.max_retries !== null) fields.push(["max retries", String(task.max_retries)]);
  if (task.consecutive_failures > 0) fields.push(["failures", String(task.consecutive_failures)]);
  if (task.claim_lock) fields.push(["claimed by", task.claim_lock]);
  if (task.completed_at !== null) fields.push(["completed", stamp(task.completed_at)]);
  if (task.result) fields.push(["result", task.result]);
  const width = Math.max(...fields.map(([label]) => label.length));
  const lines = [taskLabel(task)];
  for (const [label, value] of fields) {
    const [first, ...rest] = value.split("\n");
    lines.push(`  ${label.padEnd(width)}  ${first}`);
    for (const more of rest) lines.push(`  ${"".padEnd(width)}  ${more}`);
  }
  if (task.body) lines.push("", ...task.body.split("\n").map((line) => `  ${line}`));
  lines.push("", detail.comments.length === 0 ? "No comments." : "Comments:");
  lines.push(...detail.comments.map(commentLine));
  if (detail.runs.length > 0) lines.push("Runs:", ...detail.runs.map(runLine));
  lines.push("Events:", ...detail.events.map((event) => `  ${eventLine(event)}`));
  return lines.join("\n");
}

/** The answer to completing a task, naming the children it let go. */
export function completedText(task: TaskRecord, promoted: readonly TaskRecord[]): string {
  const lines = [`Completed ${taskLabel(task)}.`];
  for (const child of promoted) lines.push(`Promoted ${taskLabel(child)} to ready.`);
  return lines.join("\n");
}

/** The answer to linking: the child and its status now. */
export function linkedText(parent: string, detail: TaskDetail): string {
  return `Linked: ${detail.task.id} waits for ${parent} (${detail.task.id} is ${detail.task.status}).`;
}

/** Counts per status and per assignee. */
export function statsText(stats: BoardStats): string {
  const lines = [`Board ${stats.board}: ${stats.total} task${stats.total === 1 ? "" : "s"}`];
  const statuses = Object.entries(stats.by_status);
  lines.push("  " + statuses.map(([status, count]) => `${status} ${count}`).join(", "));
  const assignees = Object.entries(stats.by_assignee).sort(([a], [b]) => a.localeCompare(b));
  if (assignees.length > 0) lines.push("By assignee:");
  for (const [assignee, counts] of assignees) {
    const parts = Object.entries(counts).map(([status, count]) => `${status} ${count}`);
    lines.push(`  ${assignee}: ${parts.join(", ")}`);
  }
  if (stats.oldest_ready_age_ms !== null) {
    const minutes = Math.floor(stats.oldest_ready_age_ms / 60_000);
    lines.push(`Oldest ready task waits ${minutes < 1 ? "under a minute" : `${minutes} min`}.`);
  }
  return lines.join("\n");
}

/** The boards, one per line. */
export function boardsText(boards: readonly Board[]): string {
  return textTable([
    ["SLUG", "NAME", "CREATED"],
    // The default board exists from the start (stored as time 0).
    ...boards.map((
      board,
    ) => [board.slug, board.name, board.created_at ? stamp(board.created_at) : "-"]),
  ]).join("\n");
}

/** How each decomposition went. */
export function decomposedText(results: readonly DecomposeResult[]): string {
  if (results.length === 0) return "No triage task to decompose.";
  return results.map((result) =>
    result.ok
      ? `${result.task_id}: ${result.message}` +
        (result.child_ids.length > 0 ? ` (children: ${result.child_ids.join(", ")})` : "")
      : `${result.task_id}: not decomposed: ${result.message}`
  ).join("\n");
}

/** What a dispatcher tick did (or would do, in a dry run), a line per kind of action. */
export function dispatchedText(report: DispatchReport): string {
  const lines: string[] = [];
  const verb = (done: string, would: string) => report.dry_run ? would : done;
  for (const entry of report.decomposed) {
    lines.push(
      entry.ok
        ? `${verb("decomposed", "would decompose")} ${entry.task_id}: ${entry.message}`
        : `could not decompose ${entry.task_id}: ${entry.message}`,
    );
  }
  const listed: [string[], string, string][] = [
    [report.promoted, "promoted", "would promote"],
    [report.extended, "extended the claim of", "would extend the claim of"],
    [report.reclaimed, "reclaimed", "would reclaim"],
    [report.crashed, "ended the failed attempt of", "would end the failed attempt of"],
    [report.gave_up, "gave up on (blocked)", "would give up on"],
    [report.stopped, "stopped the worker of", "would stop the worker of"],
  ];
  for (const [ids, done, would] of listed) {
    if (ids.length > 0) lines.push(`${verb(done, would)} ${ids.join(", ")}`);
  }
  for (const spawned of report.spawned) {
    lines.push(
      `${verb("started", "would start")} ${spawned.task_id} as ${spawned.assignee}` +
        (spawned.pid === null ? "" : ` (pid ${spawned.pid})`),
    );
  }
  for (const skipped of report.skipped) lines.push(`skipped ${skipped.task_id}: ${skipped.reason}`);
  if (lines.length === 0) {
    return report.dry_run ? "Nothing to do." : "Nothing to do: no task is ready.";
  }
  return (report.dry_run ? "Dry run, nothing written:\n" : "") + lines.join("\n");
}
