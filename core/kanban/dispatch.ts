/**
 * One dispatcher tick ({@link dispatchTick}): what the gateway does every
 * `kanban.dispatch_interval_seconds` and `herald kanban dispatch` does
 * once. In order: decompose a few triage tasks (auto mode); look after
 * every running task (a dead worker's attempt ends `crashed`, or
 * `reclaimed` once its claim expired; a live worker past its claim keeps
 * it while it heartbeats and is stopped when it went silent); stop the
 * workers of tasks taken from them (archived, moved back); promote the
 * tasks whose parents are done; claim ready tasks and start their
 * workers. Claims are compare-and-swap in the store, so two dispatchers
 * ticking one board never start two workers for one task. When a worker
 * ends, {@link settleWorkerExit} judges its exit.
 *
 * @module
 */

import { errorText } from "../errors.ts";
import {
  type AttemptEnd,
  BLOCK_RECURRENCE_LIMIT,
  type BoardStore,
  type TaskEvent,
  type TaskRecord,
} from "./board.ts";

/** A failed automatic decomposition waits this long before the next try, doubling each time. */
export const DECOMPOSE_BACKOFF_MS = 5 * 60_000;

/** The longest wait between automatic tries at one triage task. */
export const DECOMPOSE_BACKOFF_MAX_MS = 24 * 3_600_000;

/** How long past `kanban.max_runtime_seconds` a worker may run before the dispatcher stops it. */
export const RUNTIME_GRACE_MS = 60_000;

/** What a tick is asked to do. */
export interface DispatchRequest {
  /** One board's tasks; absent: every board. */
  board?: string;
  /** Report what a tick would do and write nothing. */
  dryRun?: boolean;
  /** At most this many workers started in this tick. */
  max?: number;
  /** Failures in a row before a task is blocked (`gave_up`); default `kanban.failure_limit`. */
  failureLimit?: number;
}

/** What a tick did (or, in a dry run, would do). */
export interface DispatchReport {
  dry_run: boolean;
  decomposed: { task_id: string; ok: boolean; message: string }[];
  promoted: string[];
  extended: string[];
  reclaimed: string[];
  crashed: string[];
  gave_up: string[];
  stopped: string[];
  spawned: { task_id: string; assignee: string; pid: number | null }[];
  skipped: { task_id: string; reason: string }[];
}

/** The dispatcher's settings (config `kanban.*`, resolved). */
export interface DispatchSettings {
  /** `kanban.failure_limit`: failures in a row before a task is blocked. */
  failureLimit: number;
  /** `kanban.claim_ttl_seconds` in ms: how long a claim holds without a heartbeat. */
  claimTtlMs: number;
  /** A live worker whose last heartbeat is older than this is stopped once its claim expires. */
  heartbeatStaleMs: number;
  /** `kanban.auto_decompose`. */
  autoDecompose: boolean;
  /** `kanban.auto_decompose_per_tick`. */
  autoDecomposePerTick: number;
  /** `kanban.max_in_progress`: running tasks at most (this tick counts those already running). */
  maxInProgress: number;
  /**
   * `kanban.max_runtime_seconds` in ms: a worker stops itself then; one
   * still running {@link RUNTIME_GRACE_MS} later is stopped (`timed_out`).
   */
  maxRuntimeMs: number;
}

/** A worker this process started and still watches. */
export interface WatchedWorker {
  taskId: string;
  lock: string;
  /** Ends its process group. */
  stop(): Promise<void>;
}

/** What a tick works with besides the board. */
export interface DispatchPorts {
  readonly board: BoardStore;
  readonly now: () => number;
  /** A fresh claim lock for one attempt (unique: `<host>:<pid>:<nonce>`). */
  newLock(): string;
  /**
   * Whether the worker of the claim `lock` (process `pid`) still runs;
   * undefined when that cannot be told from here (another machine, no pid yet).
   */
  workerAlive(lock: string, pid: number | null): Promise<boolean | undefined>;
  /** Stops the worker of `lock` (its whole process group). */
  stopWorker(lock: string, pid: number | null): Promise<void>;
  /** Starts the worker of `task`, claimed under `lock`, and resolves its pid; throws when it cannot. */
  spawn(task: TaskRecord, lock: string): Promise<number>;
  /** The workers this process started and still watches. */
  watched(): readonly WatchedWorker[];
  /** Decomposes one triage task; null when no decomposer model is configured. */
  readonly decompose: ((taskId: string) => Promise<{ ok: boolean; message: string }>) | null;
  /** The profiles a worker can run as. */
  profiles(): Promise<readonly string[]>;
}

/** An empty report. */
function emptyReport(dryRun: boolean): DispatchReport {
  return {
    dry_run: dryRun,
    decomposed: [],
    promoted: [],
    extended: [],
    reclaimed: [],
    crashed: [],
    gave_up: [],
    stopped: [],
    spawned: [],
    skipped: [],
  };
}

/**
 * Runs one tick over `request.board` (or every board) and reports what it
 * did. A failure with one task is reported as skipped and the tick goes on.
 *
 * @example
 * ```ts
 * const report = await dispatchTick(ports, settings, { max: 2 });
 * report.spawned; // [{ task_id: "t_1a2b3c4d", assignee: "coder", pid: 4242 }]
 * ```
 */
export async function dispatchTick(
  ports: DispatchPorts,
  settings: DispatchSettings,
  request: DispatchRequest = {},
): Promise<DispatchReport> {
  const dryRun = request.dryRun ?? false;
  const report = emptyReport(dryRun);
  const failureLimit = request.failureLimit ?? settings.failureLimit;
  await decomposeTriage(ports, settings, request, report);
  const running = await ports.board.listTasks({
    ...(request.board === undefined ? {} : { board: request.board }),
    status: "running",
  });
  let stillRunning = 0;
  for (const task of running) {
    if (await lookAfter(ports, settings, task, failureLimit, report)) stillRunning++;
  }
  if (!dryRun) await stopTakenWorkers(ports, report);
  if (!dryRun) {
    const promoted = await ports.board.promoteReady(request.board);
    report.promoted.push(...promoted.map((task) => task.id));
  }
  const budget = Math.min(
    request.max ?? Number.POSITIVE_INFINITY,
    Math.max(0, settings.maxInProgress - stillRunning),
  );
  await startWorkers(ports, settings, request, budget, failureLimit, report);
  return report;
}

/**
 * Auto mode: decomposes up to `autoDecomposePerTick` triage tasks. A task
 * sent back to triage for needing input again waits for a person; one
 * whose decomposition failed is tried again only after a backoff
 * ({@link DECOMPOSE_BACKOFF_MS}, doubling), each failure recorded as a
 * `decompose_failed` event so every dispatcher sees it.
 */
async function decomposeTriage(
  ports: DispatchPorts,
  settings: DispatchSettings,
  request: DispatchRequest,
  report: DispatchReport,
): Promise<void> {
  if (!settings.autoDecompose || settings.autoDecomposePerTick <= 0 || !ports.decompose) return;
  const triage = await ports.board.listTasks({
    ...(request.board === undefined ? {} : { board: request.board }),
    status: "triage",
    limit: settings.autoDecomposePerTick + 32,
  });
  let tried = 0;
  for (const task of triage) {
    if (tried >= settings.autoDecomposePerTick) break;
    if (needsPerson(task)) continue;
    const failures = failedDecompositions(await ports.board.events(task.id));
    if (failures.length > 0 && ports.now() - failures.at(-1)!.at < backoff(failures.length)) {
      continue;
    }
    tried++;
    if (request.dryRun) {
      report.decomposed.push({ task_id: task.id, ok: true, message: "would be decomposed" });
      continue;
    }
    const outcome = await ports.decompose(task.id).catch((error) => ({
      ok: false,
      message: errorText(error),
    }));
    report.decomposed.push({ task_id: task.id, ...outcome });
    if (!outcome.ok) {
      await ports.board.recordEvent(task.id, "decompose_failed", {
        message: outcome.message,
        failures: failures.length + 1,
        retry_after_ms: backoff(failures.length + 1),
      }).catch((error) => report.skipped.push({ task_id: task.id, reason: errorText(error) }));
    }
  }
}

/** True for a task that went back to triage for needing input again: a person decides next. */
export function needsPerson(task: TaskRecord): boolean {
  return task.status === "triage" && task.block_kind === "needs_input" &&
    task.block_recurrences >= BLOCK_RECURRENCE_LIMIT;
}

/** The `decompose_failed` events since the task last came (back) to triage. */
function failedDecompositions(events: readonly TaskEvent[]): TaskEvent[] {
  const failed: TaskEvent[] = [];
  for (const event of events) {
    if (event.kind === "decompose_failed") failed.push(event);
    else if (event.kind === "moved" || event.kind === "block_loop_detected") failed.length = 0;
  }
  return failed;
}

/** The wait after `failures` failed decompositions in a row. */
function backoff(failures: number): number {
  return Math.min(DECOMPOSE_BACKOFF_MS * 2 ** (failures - 1), DECOMPOSE_BACKOFF_MAX_MS);
}

/**
 * Looks after one running task; true when it still runs afterwards. A dead
 * worker's attempt ends (`crashed` while its claim held, `reclaimed` after
 * it expired); a live one past its claim keeps it while it heartbeats, and
 * is stopped (`timed_out`) when it went silent.
 */
async function lookAfter(
  ports: DispatchPorts,
  settings: DispatchSettings,
  task: TaskRecord,
  failureLimit: number,
  report: DispatchReport,
): Promise<boolean> {
  const lock = task.claim_lock;
  if (lock === null) {
    // A running row without a claim (a write cut short long ago): back to the queue.
    return !(await endAttempt(ports, task, report, {
      lock: "",
      outcome: "reclaimed",
      error: "it was running without a claim",
      failed: false,
      failureLimit,
    }, report.reclaimed));
  }
  const now = ports.now();
  const expired = (task.claim_expires ?? 0) <= now;
  const alive = await ports.workerAlive(lock, task.worker_pid);
  if (alive === false) {
    return !(await endAttempt(
      ports,
      task,
      report,
      expired
        ? {
          lock,
          outcome: "reclaimed",
          error: "its claim expired and its worker is gone",
          failed: false,
          failureLimit,
        }
        : {
          lock,
          outcome: "crashed",
          error: `its worker (pid ${task.worker_pid}) ended without finishing the task`,
          failed: true,
          failureLimit,
          details: { pid: task.worker_pid },
        },
      expired ? report.reclaimed : report.crashed,
    ));
  }
  if (alive === true) {
    const open = (await ports.board.runs(task.id)).at(-1);
    const ranFor = open && open.ended_at === null ? now - open.started_at : 0;
    if (ranFor > settings.maxRuntimeMs + RUNTIME_GRACE_MS) {
      if (!report.dry_run) await ports.stopWorker(lock, task.worker_pid);
      return !(await endAttempt(ports, task, report, {
        lock,
        outcome: "timed_out",
        error: `its worker ran ${Math.round(ranFor / 60_000)} min, past ` +
          "kanban.max_runtime_seconds, and was stopped",
        failed: true,
        failureLimit,
        details: { pid: task.worker_pid },
      }, report.crashed));
    }
  }
  if (!expired) return true;
  if (alive === undefined) {
    return !(await endAttempt(ports, task, report, {
      lock,
      outcome: "reclaimed",
      error: "its claim expired and its worker cannot be seen from here",
      failed: false,
      failureLimit,
    }, report.reclaimed));
  }
  const heartbeat = task.heartbeat_at ?? task.started_at ?? 0;
  if (now - heartbeat < settings.heartbeatStaleMs) {
    if (!report.dry_run) {
      await ports.board.extendClaim(task.id, lock, now + settings.claimTtlMs, "worker alive");
    }
    report.extended.push(task.id);
    return true;
  }
  if (!report.dry_run) await ports.stopWorker(lock, task.worker_pid);
  return !(await endAttempt(ports, task, report, {
    lock,
    outcome: "timed_out",
    error: `its worker sent no heartbeat for ${Math.round((now - heartbeat) / 60_000)} min`,
    failed: true,
    failureLimit,
    details: { pid: task.worker_pid },
  }, report.crashed));
}

/** Ends an attempt (unless a dry run) and files the task under `list`; true when it ended. */
async function endAttempt(
  ports: DispatchPorts,
  task: TaskRecord,
  report: DispatchReport,
  end: AttemptEnd,
  list: string[],
): Promise<boolean> {
  if (report.dry_run) {
    list.push(task.id);
    return true;
  }
  const ended = await ports.board.endAttempt(task.id, end)
    .catch((error) => {
      report.skipped.push({ task_id: task.id, reason: errorText(error) });
      return undefined;
    });
  if (!ended) return false;
  list.push(task.id);
  if (ended.gaveUp) report.gave_up.push(task.id);
  return true;
}

/**
 * Stops the workers this process watches whose task was taken from them:
 * archived, moved back to the queue, or claimed again under another lock.
 * A worker whose task is done, blocked or in triage just finished it and
 * is left to exit.
 */
async function stopTakenWorkers(ports: DispatchPorts, report: DispatchReport): Promise<void> {
  for (const worker of ports.watched()) {
    const task = await ports.board.getTask(worker.taskId);
    const taken = task === undefined || task.status === "archived" ||
      task.status === "todo" || task.status === "ready" ||
      (task.status === "running" && task.claim_lock !== worker.lock);
    if (!taken) continue;
    await worker.stop();
    report.stopped.push(worker.taskId);
  }
}

/** Claims up to `budget` ready tasks and starts their workers in parallel. */
async function startWorkers(
  ports: DispatchPorts,
  settings: DispatchSettings,
  request: DispatchRequest,
  budget: number,
  failureLimit: number,
  report: DispatchReport,
): Promise<void> {
  if (budget <= 0) return;
  const profiles = new Set(await ports.profiles());
  const ready = await ports.board.listTasks({
    ...(request.board === undefined ? {} : { board: request.board }),
    status: "ready",
    limit: Number.isFinite(budget) ? budget + 64 : undefined,
  });
  const claimed: { task: TaskRecord; lock: string }[] = [];
  for (const task of ready) {
    if (claimed.length >= budget) break;
    if (!profiles.has(task.assignee)) {
      report.skipped.push({
        task_id: task.id,
        reason:
          `no profile "${task.assignee}" to run it (herald kanban assign ${task.id} <profile>)`,
      });
      continue;
    }
    if (request.dryRun) {
      claimed.push({ task, lock: "" });
      continue;
    }
    const lock = ports.newLock();
    const won = await ports.board.claim(task.id, {
      lock,
      expiresAt: ports.now() + settings.claimTtlMs,
    });
    if (won) claimed.push({ task, lock });
    else report.skipped.push({ task_id: task.id, reason: "claimed by another dispatcher" });
  }
  if (request.dryRun) {
    report.spawned.push(
      ...claimed.map(({ task }) => ({ task_id: task.id, assignee: task.assignee, pid: null })),
    );
    return;
  }
  await Promise.all(claimed.map(async ({ task, lock }) => {
    let pid: number;
    try {
      pid = await ports.spawn(task, lock);
    } catch (error) {
      await endAttempt(ports, task, report, {
        lock,
        outcome: "spawn_failed",
        error: `its worker could not start: ${errorText(error)}`,
        failed: true,
        failureLimit,
      }, report.crashed);
      return;
    }
    report.spawned.push({ task_id: task.id, assignee: task.assignee, pid });
    // The worker runs either way; without its pid on the board it is judged when it exits.
    await ports.board.recordWorker(task.id, lock, pid).catch((error) =>
      report.skipped.push({
        task_id: task.id,
        reason: `its worker (pid ${pid}) started but was not recorded: ${errorText(error)}`,
      })
    );
  }));
}

/**
 * Judges a worker's exit: when its task still runs under its claim, a
 * clean exit (code 0) is a `protocol_violation` (the worker never called
 * kanban_complete or kanban_block) and any other a `crashed` attempt; both
 * count toward the failure limit. Undefined when the task had moved on.
 */
export async function settleWorkerExit(
  board: BoardStore,
  worker: { taskId: string; lock: string; pid: number },
  code: number,
  failureLimit: number,
): Promise<"protocol_violation" | "crashed" | undefined> {
  const outcome = code === 0 ? "protocol_violation" : "crashed";
  const ended = await board.endAttempt(worker.taskId, {
    lock: worker.lock,
    outcome,
    error: code === 0
      ? "the worker exited cleanly without kanban_complete or kanban_block; a run without " +
        "either counts as failed"
      : `the worker exited with code ${code}`,
    failed: true,
    failureLimit,
    details: { pid: worker.pid, exit_code: code },
  });
  return ended ? outcome : undefined;
}
