/**
 * Scheduled jobs as people read them, for `herald cron` and `/cron`
 * alike: the job table, one job in full with its next runs and recent
 * runs, the scheduler's state, and one-line confirmations. Times show as
 * the wall clock of the job's zone (`2026-11-24 09:00 Europe/Berlin`).
 *
 * @module
 */

import { clipLine, textTable } from "../_util/verb_args.ts";
import { humanSchedule, wallTime } from "./words.ts";
import type { CronStatus, JobRunEntry, RunReport } from "./automations.ts";
import type { JobRecord } from "./jobs.ts";
import { nextRunAfter } from "./schedule.ts";

/**
 * An instant as the wall time of `timeZone`, the zone named after it.
 *
 * @example
 * ```ts
 * zonedTime(Date.UTC(2026, 10, 24, 8, 0), "Europe/Berlin"); // "2026-11-24 09:00 Europe/Berlin"
 * ```
 */
export function zonedTime(at: number, timeZone: string): string {
  return `${wallTime(at, timeZone)} ${timeZone}`;
}

/**
 * The next `count` runs of `job` (ms since the epoch), from its next run
 * on; fewer when its repeats run out, none when it is paused or completed.
 *
 * @example
 * ```ts
 * upcomingRuns(job, 3); // [1795510800000, 1796115600000, 1796720400000]
 * ```
 */
export function upcomingRuns(job: JobRecord, count: number): number[] {
  if (job.state !== "scheduled" || job.next_run_at === null) return [];
  const left = job.repeat.times === null
    ? count
    : Math.min(count, job.repeat.times - job.repeat.done);
  const runs: number[] = [];
  let next: number | undefined = job.next_run_at;
  while (next !== undefined && runs.length < left) {
    runs.push(next);
    next = nextRunAfter(job.schedule, next, { timeZone: job.time_zone, anchor: job.created_at });
  }
  return runs;
}

/** `job_ab12cd34 "Morning brief"`. */
export function jobLabel(job: JobRecord): string {
  return `${job.id} "${job.name}"`;
}

/** When a job runs next, for a one-line answer. */
function nextRunText(job: JobRecord): string {
  if (job.state === "paused") return "paused";
  if (job.state === "completed" || job.next_run_at === null) return "no further runs (completed)";
  return `next run ${zonedTime(job.next_run_at, job.time_zone)}`;
}

/** Where a job's output goes, in words. */
function deliveryText(job: JobRecord): string {
  if (job.deliver === "local") return "output saved locally only";
  if (job.deliver === "origin") return `delivers to this chat (${job.origin ?? "origin"})`;
  return `delivers to ${job.deliver}`;
}

/**
 * The job table: id, name, schedule as typed, state, next run, last status.
 * With no job, how to create one.
 */
export function listText(
  jobs: readonly JobRecord[],
  options: { hidden: number; prefix: string },
): string {
  const hiddenNote = options.hidden > 0
    ? `${options.hidden} completed job${options.hidden === 1 ? "" : "s"} hidden; ` +
      `${options.prefix} list --all shows them`
    : "";
  if (jobs.length === 0) {
    return [
      "No scheduled jobs." + (hiddenNote ? ` (${hiddenNote})` : ""),
      `Create one: ${options.prefix} create "every monday 9am" Check the backlog`,
      "or start from a ready-made automation with /blueprint.",
    ].join("\n");
  }
  const rows = [
    ["ID", "NAME", "SCHEDULE", "STATE", "NEXT RUN", "LAST"],
    ...jobs.map((job) => [
      job.id,
      clipLine(job.name, 32),
      clipLine(job.schedule.text, 28),
      job.state,
      job.state === "scheduled" && job.next_run_at !== null
        ? zonedTime(job.next_run_at, job.time_zone)
        : "-",
      job.last_status ?? "-",
    ]),
  ];
  const lines = textTable(rows);
  if (hiddenNote) lines.push(`(${hiddenNote})`);
  return lines.join("\n");
}

/** How many runs a job makes, in words. */
function repeatText(job: JobRecord): string {
  const { times, done } = job.repeat;
  if (times === null) return "forever";
  return `${times} time${times === 1 ? "" : "s"} (${done} done)`;
}

/** One saved run, as a line of the history. */
function runLine(run: JobRunEntry, timeZone: string): string {
  const late = run.at - run.planned_at >= 2 * 60_000
    ? ` (planned ${zonedTime(run.planned_at, timeZone)})`
    : "";
  return `  ${zonedTime(run.at, timeZone)}  ${run.status}  delivered: ${run.delivered}` +
    (run.error ? `  error: ${clipLine(run.error, 120)}` : "") + late;
}

/** One job in full: every field that matters, its next runs and its last runs. */
export function showText(
  job: JobRecord,
  upcoming: readonly number[],
  history: readonly JobRunEntry[],
): string {
  const zone = job.time_zone;
  const words = humanSchedule(job.schedule, zone);
  const notes = [
    ...(words !== job.schedule.text ? [words] : []),
    ...(job.schedule.kind === "cron" && job.schedule.expression !== job.schedule.text
      ? [`cron ${job.schedule.expression}`]
      : []),
    zone,
  ];
  const fields: [string, string][] = [
    ["state", job.state],
    ["schedule", `${job.schedule.text} (${notes.join("; ")})`],
    ["prompt", job.prompt ?? "-"],
    ["script", job.script ? job.script + (job.script_only ? " (script only)" : "") : "-"],
    ["skills", job.skills.length > 0 ? job.skills.join(", ") : "-"],
    ["deliver", job.deliver + (job.deliver === "origin" && job.origin ? ` (${job.origin})` : "")],
    ["repeat", repeatText(job)],
    ["catch-up", job.catch_up === "run_once" ? "run_once (a missed run runs once, late)" : "skip"],
    ["created", zonedTime(job.created_at, zone)],
    [
      "last run",
      job.last_run_at === null
        ? "never"
        : `${zonedTime(job.last_run_at, zone)} ${job.last_status ?? ""}`.trimEnd(),
    ],
  ];
  if (job.last_error) fields.push(["last error", job.last_error]);
  if (job.claim) {
    fields.push(["running", `by ${job.claim.by} since ${zonedTime(job.claim.at, zone)}`]);
  }
  const lines = [jobLabel(job)];
  const width = Math.max(...fields.map(([label]) => label.length), "next runs".length);
  for (const [label, value] of fields) {
    const [first, ...rest] = value.split("\n");
    lines.push(`  ${label.padEnd(width)}  ${first}`);
    for (const more of rest) lines.push(`  ${"".padEnd(width)}  ${more}`);
  }
  const nextLabel = "next runs".padEnd(width);
  if (upcoming.length === 0) {
    lines.push(
      `  ${nextLabel}  ${job.state === "paused" ? "none while paused" : "none (completed)"}`,
    );
  } else {
    upcoming.forEach((at, index) =>
      lines.push(`  ${index === 0 ? nextLabel : "".padEnd(width)}  ${zonedTime(at, zone)}`)
    );
  }
  lines.push(
    history.length === 0
      ? "No runs yet."
      : history.length === 1
      ? "Last run:"
      : `Last ${history.length} runs:`,
  );
  for (const run of history) lines.push(runLine(run, zone));
  return lines.join("\n");
}

/** The answer to creating a job. */
export function createdText(job: JobRecord): string {
  return `Created ${jobLabel(job)}: ${job.schedule.text}; ${nextRunText(job)}; ${
    deliveryText(job)
  }.`;
}

/** The answer to changing a job. */
export function editedText(job: JobRecord): string {
  return `Changed ${jobLabel(job)}: ${job.schedule.text}; ${nextRunText(job)}.`;
}

/** The answer to pausing a job. */
export function pausedText(job: JobRecord, prefix: string): string {
  if (job.state === "completed") return `${jobLabel(job)} is completed; there is nothing to pause.`;
  return `Paused ${jobLabel(job)}; it keeps its record. Resume it with ${prefix} resume ${job.id}.`;
}

/** The answer to resuming a job. */
export function resumedText(job: JobRecord): string {
  if (job.state === "completed") {
    return `${jobLabel(job)} is completed; it has no further runs (edit its schedule or ` +
      "repeat to run it again).";
  }
  return `Resumed ${jobLabel(job)}; ${nextRunText(job)}.`;
}

/** The answer to removing a job. */
export function removedText(job: JobRecord): string {
  return `Removed ${jobLabel(job)} and its saved runs.`;
}

/** The answer to running a job now. */
export function runText(report: RunReport, job: JobRecord): string {
  const how = report.status === "ok"
    ? "ok"
    : report.status === "silent"
    ? "silent (the answer asked for no message, so nothing was delivered)"
    : report.status === "skipped"
    ? `skipped${report.error ? `: ${report.error}` : ""}`
    : `error: ${report.error ?? "the run failed"}`;
  const lines = [`Ran ${jobLabel(job)}: ${how}`];
  if (report.status !== "silent") lines.push(`  delivered: ${report.delivered}`);
  lines.push(`  output: ${report.file ?? "not saved"}`);
  return lines.join("\n");
}

/** The scheduler's state: counts, the next run, and whether anything ticks. */
export function statusText(status: CronStatus): string {
  const zone = status.time_zone;
  const { total, scheduled, paused, completed } = status.jobs;
  const lines = [
    `Profile ${status.profile}, time zone ${zone}`,
    `Jobs: ${total} (${scheduled} scheduled, ${paused} paused, ${completed} completed)`,
    status.next
      ? `Next run: ${status.next.job_id} "${status.next.name}" at ${
        zonedTime(status.next.at, zone)
      }`
      : "Next run: none scheduled",
  ];
  const last = status.ticker
    ? `last tick ${zonedTime(status.ticker.at, zone)} by ${status.ticker.by}`
    : "no tick recorded yet";
  if (status.ticking) {
    lines.push(`Ticker: running (${last})`);
  } else {
    lines.push(
      `Ticker: not running (${last}). Jobs run only while something ticks: start the gateway ` +
        "(herald gateway start; it ticks every minute) or run `herald cron tick` every minute " +
        "from a system timer (cron, a systemd timer).",
    );
  }
  return lines.join("\n");
}
