/**
 * The Jobs tab of the Automations page: the scheduler's state, and each
 * job with its schedule as typed, state, next run and last run; Pause or
 * Resume, Run now, Delete (after a confirmation) and its History, whose
 * runs open their saved output as Markdown.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { errorMessage } from "../lib/api.ts";
import { useAsync } from "../lib/use_async.ts";
import { Markdown } from "../components/Markdown.tsx";
import {
  Button,
  ConfirmDialog,
  Dialog,
  Empty,
  ErrorNote,
  Link,
  Loading,
  toast,
} from "../components/ui.tsx";
import {
  type CronStatus,
  formatFullTime,
  formatRunTime,
  type JobRecord,
  type JobRunEntry,
  type JobsBody,
  loadRun,
  loadRuns,
  relativeTime,
  removeJob,
  runJob,
  type SavedRun,
  setPaused,
} from "./automations_api.ts";

/** A time shown in this browser's zone, with the exact instant for machines and a tooltip. */
export function When(props: { at: number; now: number; relative?: boolean }) {
  return (
    <time dateTime={new Date(props.at).toISOString()} title={formatFullTime(props.at)}>
      {formatRunTime(props.at)}
      {props.relative !== false && (
        <span class="muted">{` (${relativeTime(props.at, props.now)})`}</span>
      )}
    </time>
  );
}

/** The jobs and the scheduler's state; `highlight` marks a job just created. */
export function JobsTab(props: {
  data: JobsBody | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  highlight?: string;
  onNewJob: () => void;
}) {
  const { data } = props;
  if (props.error !== undefined && !data) {
    return <ErrorNote error={props.error} onRetry={props.reload} />;
  }
  if (!data) return <Loading label="Loading jobs…" />;
  const now = Date.now();
  return (
    <>
      <SchedulerNote status={data.status} now={now} />
      {data.jobs.length === 0
        ? (
          <Empty>
            No scheduled jobs yet. <Link href="/automations?tab=blueprints">Pick a blueprint</Link>
            {" "}
            or{" "}
            <button type="button" class="automations-link" onClick={props.onNewJob}>
              write a job
            </button>
            .
          </Empty>
        )
        : (
          <ul class="automations-jobs" aria-label="Scheduled jobs">
            {data.jobs.map((job) => (
              <JobCard
                key={job.id}
                job={job}
                now={now}
                highlight={job.id === props.highlight}
                onChanged={props.reload}
              />
            ))}
          </ul>
        )}
    </>
  );
}

/** Whether anything runs the jobs: the gateway's ticker or `herald cron tick`. */
function SchedulerNote(props: { status: CronStatus; now: number }) {
  const { status } = props;
  return (
    <div class="automations-scheduler">
      <p class="muted">
        Times are shown in this browser's zone; jobs run in <strong>{status.time_zone}</strong>{" "}
        (config <code>timezone</code>).
        {status.next && (
          <>
            {" "}Next: {status.next.name}, <When at={status.next.at} now={props.now} />.
          </>
        )}
      </p>
      {!status.ticking && status.jobs.scheduled > 0 && (
        <p class="note note-warn" role="status">
          <span>
            Nothing has run the scheduler {status.ticker
              ? (
                <>
                  since <When at={status.ticker.at} now={props.now} />
                </>
              )
              : "yet"}: jobs run while <code>herald gateway</code> runs, or when a system timer runs
            {" "}
            <code>herald cron tick</code> every minute.
          </span>
        </p>
      )}
    </div>
  );
}

/** How many runs a job makes: `forever`, `2 of 5 runs made`. */
function repeatText(job: JobRecord): string {
  if (job.repeat.times === null) return "forever";
  if (job.schedule.kind === "once") return job.repeat.done > 0 ? "once (done)" : "once";
  return `${job.repeat.done} of ${job.repeat.times} runs made`;
}

function NextRun(props: { job: JobRecord; now: number }) {
  const { job } = props;
  if (job.state === "paused") return <span class="muted">paused</span>;
  if (job.state === "completed") return <span class="muted">none (completed)</span>;
  if (job.next_run_at === null) return <span class="muted">none</span>;
  return <When at={job.next_run_at} now={props.now} />;
}

function LastRun(props: { job: JobRecord; now: number }) {
  const { job } = props;
  if (job.last_run_at === null) return <span class="muted">not yet</span>;
  return (
    <>
      {job.last_status && <StatusBadge status={job.last_status} />}{" "}
      <When at={job.last_run_at} now={props.now} />
      {job.last_error && <span class="automations-error">{job.last_error}</span>}
    </>
  );
}

function StatusBadge(props: { status: string }) {
  return (
    <span class={`badge automations-status automations-status-${props.status}`}>
      {props.status}
    </span>
  );
}

/** One job: its facts and what can be done with it. */
function JobCard(props: {
  job: JobRecord;
  now: number;
  highlight: boolean;
  onChanged: () => void;
}) {
  const { job } = props;
  const [busy, setBusy] = useState<"pause" | "run" | null>(null);
  const [history, setHistory] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const card = useRef<HTMLLIElement>(null);
  const headingId = `automations-job-${job.id}`;
  useEffect(() => {
    if (props.highlight) card.current?.scrollIntoView({ block: "nearest" });
  }, [props.highlight]);

  const togglePause = async () => {
    const pausing = job.state === "scheduled";
    setBusy("pause");
    try {
      await setPaused(job.id, pausing);
      toast(pausing ? `Paused "${job.name}"` : `Resumed "${job.name}"`);
    } catch (error) {
      toast(errorMessage(error), "error");
    } finally {
      setBusy(null);
      props.onChanged();
    }
  };
  const runNow = async () => {
    setBusy("run");
    try {
      const run = await runJob(job.id);
      toast(
        run.status === "error"
          ? `"${job.name}" failed: ${run.error ?? "see its history"}`
          : `Ran "${job.name}": ${run.status}${
            run.delivered === "local" ? "" : `, delivered to ${run.delivered}`
          }`,
        run.status === "error" ? "error" : "info",
      );
    } catch (error) {
      toast(errorMessage(error), "error");
    } finally {
      setBusy(null);
      props.onChanged();
    }
  };

  return (
    <li
      ref={card}
      class={`card automations-job${props.highlight ? " automations-job-new" : ""}`}
      aria-labelledby={headingId}
    >
      <header class="automations-job-head">
        <h2 id={headingId}>{job.name}</h2>
        <span class={`badge automations-state automations-state-${job.state}`}>{job.state}</span>
        <code class="automations-id muted">{job.id}</code>
      </header>
      <dl class="automations-facts">
        <dt>Schedule</dt>
        <dd>
          <code>{job.schedule.text}</code>
          {job.schedule.kind === "cron" && job.schedule.expression !== job.schedule.text && (
            <span class="muted">{` (cron ${job.schedule.expression})`}</span>
          )}
        </dd>
        <dt>Next run</dt>
        <dd data-testid="next-run">
          <NextRun job={job} now={props.now} />
        </dd>
        <dt>Last run</dt>
        <dd>
          <LastRun job={job} now={props.now} />
        </dd>
        <dt>Delivers to</dt>
        <dd>{job.deliver}</dd>
        <dt>Repeats</dt>
        <dd>{repeatText(job)}</dd>
        {job.skills.length > 0 && (
          <>
            <dt>Skills</dt>
            <dd>{job.skills.join(", ")}</dd>
          </>
        )}
      </dl>
      {job.prompt && <p class="automations-prompt">{job.prompt}</p>}
      {job.script && (
        <p class="automations-prompt">
          <span class="muted">{job.script_only ? "Script only: " : "Script: "}</span>
          <code>{job.script}</code>
        </p>
      )}
      <div class="automations-actions">
        {job.state !== "completed" && (
          <Button
            disabled={busy !== null}
            onClick={togglePause}
            aria-label={`${job.state === "paused" ? "Resume" : "Pause"} ${job.name}`}
          >
            {job.state === "paused" ? "Resume" : "Pause"}
          </Button>
        )}
        <Button disabled={busy !== null} onClick={runNow} aria-label={`Run ${job.name} now`}>
          {busy === "run" ? "Running…" : "Run now"}
        </Button>
        <Button
          onClick={() => setHistory(!history)}
          aria-expanded={history ? "true" : "false"}
          aria-label={`History of ${job.name}`}
        >
          History
        </Button>
        <Button
          variant="danger"
          disabled={busy !== null}
          onClick={() => setDeleting(true)}
          aria-label={`Delete ${job.name}`}
        >
          Delete
        </Button>
      </div>
      {history && <History job={job} now={props.now} />}
      {deleting && (
        <ConfirmDialog
          title={`Delete "${job.name}"?`}
          confirmLabel="Delete job"
          busyLabel="Deleting…"
          danger
          onConfirm={async () => {
            await removeJob(job.id);
            toast(`Deleted "${job.name}"`);
            props.onChanged();
          }}
          onClose={() => setDeleting(false)}
        >
          <p>
            The job stops running and its saved runs are deleted. Its schedule was{" "}
            <code>{job.schedule.text}</code>.
          </p>
        </ConfirmDialog>
      )}
    </li>
  );
}

/** A job's saved runs, newest first, reloaded when it runs again. */
function History(props: { job: JobRecord; now: number }) {
  const { job } = props;
  const runs = useAsync((signal) => loadRuns(job.id, signal), [job.id], [job.last_run_at]);
  const [open, setOpen] = useState<JobRunEntry>();
  return (
    <section class="automations-history" aria-label={`Runs of ${job.name}`}>
      {runs.error !== undefined && <ErrorNote error={runs.error} onRetry={runs.reload} />}
      {!runs.data && runs.loading && <Loading label="Loading runs…" />}
      {runs.data && runs.data.length === 0 && (
        <p class="muted">No runs yet. Run now, or wait for its next run.</p>
      )}
      {runs.data && runs.data.length > 0 && (
        <ul class="automations-runs">
          {runs.data.map((run) => (
            <li key={run.file}>
              <StatusBadge status={run.status} />
              <When at={run.at} now={props.now} />
              {run.at - run.planned_at > 5 * 60_000 && (
                <span class="muted">
                  late, planned <When at={run.planned_at} now={props.now} relative={false} />
                </span>
              )}
              <span class="muted automations-delivered">
                {run.delivered === "local" ? "kept locally" : `delivered: ${run.delivered}`}
              </span>
              <Button
                variant="ghost"
                onClick={() => setOpen(run)}
                aria-label={`Open the run of ${formatRunTime(run.at)}`}
              >
                Open
              </Button>
            </li>
          ))}
        </ul>
      )}
      {open && <RunDialog job={job} entry={open} onClose={() => setOpen(undefined)} />}
    </section>
  );
}

/** One saved run's output, as Markdown. */
function RunDialog(props: { job: JobRecord; entry: JobRunEntry; onClose: () => void }) {
  const run = useAsync<SavedRun>(
    () => loadRun(props.job.id, props.entry.file),
    [props.job.id, props.entry.file],
  );
  return (
    <Dialog
      title={`${props.job.name}: run of ${formatRunTime(props.entry.at)}`}
      onClose={props.onClose}
      class="automations-run-dialog"
    >
      {run.error !== undefined && <ErrorNote error={run.error} onRetry={run.reload} />}
      {!run.data && run.loading && <Loading label="Loading the output…" />}
      {run.data && (
        <>
          <p class="muted">
            <StatusBadge status={run.data.status} />{" "}
            {run.data.delivered === "local" ? "Kept locally." : `Delivered: ${run.data.delivered}.`}
            {run.data.error && <span class="automations-error">{run.data.error}</span>}
          </p>
          {run.data.output.trim() === ""
            ? <p class="muted">The run printed nothing.</p>
            : <Markdown text={run.data.output} class="automations-output" />}
        </>
      )}
      <div class="dialog-actions">
        <Button onClick={props.onClose} autoFocus>Close</Button>
      </div>
    </Dialog>
  );
}
