/**
 * `herald kanban work <task>`: one attempt at a claimed kanban task, as
 * the dispatcher starts it (adapters/runtime/kanban_supervisor.ts) under the
 * assignee's profile with the claim in its environment. It opens the
 * profile's agent runtime (source `kanban`, unattended, no scheduled
 * jobs, the worker tools on), loads the `kanban-worker` skill and asks one
 * turn to work the task; a timer heartbeats the claim every third of
 * `kanban.claim_ttl_seconds` while the turn runs, and the turn is stopped
 * after `kanban.max_runtime_seconds` (`timed_out`). A turn that ends with
 * the task still running under this claim (no `kanban_complete` or
 * `kanban_block`) ends the attempt as a `protocol_violation`; a turn that
 * fails ends it `crashed`. Both count toward the failure limit. The worker
 * also looks (read only) every {@link CLAIM_CHECK_MS} whether it still
 * holds its claim, and stops its turn at once when the task was moved,
 * archived or claimed by someone else.
 *
 * @module
 */

import { Conversation } from "../../core/agent/conversation.ts";
import type { TurnResult } from "../../core/agent/turn_runtime.ts";
import type { ProcessEnv } from "../../core/config/mod.ts";
import { errorText } from "../../core/errors.ts";
import type { AttemptFailure, BoardStore, TaskRecord, TaskStatus } from "../../core/kanban/mod.ts";
import { findSkill } from "../../core/skills/mod.ts";
import { unattendedSurface } from "../../core/tools/approval_policy.ts";
import { kanbanDbPath, type ProfilePaths, rootOf } from "../home/mod.ts";
import { openSqliteBoard } from "../kanban/mod.ts";
import { WORKER_ENV } from "./kanban_supervisor.ts";
import { type AgentRuntime, openAgentRuntimeLazily } from "./lazy_agent_runtime.ts";

/** The bundled skill every worker turn loads. */
export const WORKER_SKILL = "kanban-worker";

/** Characters of the last answer kept in a protocol violation's error. */
const ANSWER_CHARS = 400;

/** How often a worker looks whether it still holds its claim, between its heartbeats. */
export const CLAIM_CHECK_MS = 15_000;

/** `kanban.failure_limit` by default, for an attempt that ends before the config is read. */
const DEFAULT_FAILURE_LIMIT = 2;

/** What the worker is started on. */
export interface KanbanWorkerRequest {
  taskId: string;
  /** The claim the dispatcher took (`HERALD_KANBAN_CLAIM`). */
  lock: string;
  /** The task's board (`HERALD_KANBAN_BOARD`), for tasks the worker creates. */
  board?: string;
}

/** Options of {@link runKanbanWorker}. */
export interface KanbanWorkerOptions {
  /** Takes progress and warning lines (the worker's log). */
  log?: (line: string) => void;
  /** The clock (ms since the epoch). */
  now?: () => number;
}

/** How an attempt ended, from this worker's side. */
export type KanbanWorkerOutcome =
  | "completed"
  | "blocked"
  | "claim_lost"
  | "not_held"
  | AttemptFailure;

/** What {@link runKanbanWorker} did. */
export interface KanbanWorkerReport {
  task_id: string;
  outcome: KanbanWorkerOutcome;
  /** The task's status afterwards (null when it does not exist). */
  status: TaskStatus | null;
  /**
   * The exit code: 0 when the turn ran to its end (also with a protocol
   * violation) or the task was completed or blocked by it, else 1.
   */
  code: 0 | 1;
  /** The one-line summary printed on stdout. */
  line: string;
}

/** The one turn a worker asks, behind the skill's `/kanban-worker` token when it is installed. */
export function workerMessage(task: TaskRecord, withSkill: boolean): string {
  return `${withSkill ? `/${WORKER_SKILL} ` : ""}Work kanban task ${task.id}: ${task.title}\n\n` +
    "Nobody is watching this run. Call kanban_show first to read the task, its prior attempts " +
    "and its parents' results; do the work; then finish with exactly one of kanban_complete " +
    "(done, with a summary) or kanban_block (cannot finish, with the reason). A turn that ends " +
    "without either counts as a failed attempt.";
}

/** Whether `task` still runs under `lock`. */
function held(task: TaskRecord | undefined, lock: string): boolean {
  return task?.status === "running" && task.claim_lock === lock;
}

/** What became of a task the worker no longer holds. */
function finishedOutcome(task: TaskRecord | undefined, claimLost: boolean): KanbanWorkerOutcome {
  if (claimLost || !task) return "claim_lost";
  if (task.status === "done") return "completed";
  if (task.status === "blocked" || task.status === "triage") return "blocked";
  return "claim_lost";
}

/**
 * Works the task `request.taskId` under the claim `request.lock` as the
 * profile at `paths` (one model turn), and reports how the attempt ended.
 * Never throws for the turn's own failure: the report says it.
 *
 * @example
 * ```ts
 * const report = await runKanbanWorker(paths, Deno.env.toObject(), { taskId, lock });
 * console.log(report.line);
 * Deno.exitCode = report.code;
 * ```
 */
export async function runKanbanWorker(
  paths: ProfilePaths,
  env: ProcessEnv,
  request: KanbanWorkerRequest,
  options: KanbanWorkerOptions = {},
): Promise<KanbanWorkerReport> {
  const log = options.log ?? (() => {});
  const now = options.now ?? Date.now;
  const { taskId, lock } = request;
  const board = openSqliteBoard(kanbanDbPath(rootOf(paths)), { now });
  const report = (
    outcome: KanbanWorkerOutcome,
    task: TaskRecord | undefined,
    ok: boolean,
    detail: string,
  ): KanbanWorkerReport => ({
    task_id: taskId,
    outcome,
    status: task?.status ?? null,
    code: ok ? 0 : 1,
    line: `Task ${taskId}: ${outcome}${detail === "" ? "" : `: ${detail}`}` +
      (task ? ` (now ${task.status})` : ""),
  });
  try {
    const task = await board.getTask(taskId);
    if (!held(task, lock)) {
      return report(
        "not_held",
        task,
        false,
        task
          ? "this claim does not hold the task; nothing was done"
          : "no such task on the board; nothing was done",
      );
    }
    return await attempt(paths, env, request, task!, board, { log, now }, report);
  } finally {
    board.close();
  }
}

type Reporter = (
  outcome: KanbanWorkerOutcome,
  task: TaskRecord | undefined,
  ok: boolean,
  detail: string,
) => KanbanWorkerReport;

/** Opens the runtime, runs the turn under the heartbeat and time limit, and judges the end. */
async function attempt(
  paths: ProfilePaths,
  env: ProcessEnv,
  request: KanbanWorkerRequest,
  task: TaskRecord,
  board: BoardStore,
  clock: { log: (line: string) => void; now: () => number },
  report: Reporter,
): Promise<KanbanWorkerReport> {
  const { taskId, lock } = request;
  const { log, now } = clock;
  // The default until the profile's config is read (a runtime that does not open reads none).
  let failureLimit = DEFAULT_FAILURE_LIMIT;
  const end = async (outcome: AttemptFailure, error: string, ok: boolean) => {
    const ended = await board.endAttempt(taskId, {
      lock,
      outcome,
      error,
      failed: true,
      failureLimit,
    });
    const after = ended?.task ?? await board.getTask(taskId);
    if (!ended) {
      const outcome = finishedOutcome(after, false);
      return report(outcome, after, outcome !== "claim_lost", "");
    }
    const failures = `${ended.task.consecutive_failures} failed in a row` +
      (ended.gaveUp ? ", gave up" : "");
    return report(outcome, after, ok, `${error.split("\n")[0]} [${failures}]`);
  };

  let runtime: AgentRuntime;
  try {
    runtime = await openAgentRuntimeLazily(paths, {
      safeMode: false,
      source: "kanban",
      cwd: paths.home,
      env: {
        ...env,
        [WORKER_ENV.task]: taskId,
        [WORKER_ENV.claim]: lock,
        [WORKER_ENV.board]: request.board ?? task.board,
      },
      unattended: true,
      approvals: unattendedSurface(log, "kanban", "in a kanban worker"),
      // A worker schedules nothing.
      automations: false,
      onWarning: (file, warning) => log(`kanban: ${taskId}: warning: ${file}: ${warning}`),
    });
  } catch (error) {
    return await end("crashed", `the worker could not start: ${errorText(error)}`, false);
  }
  const { kanban } = runtime.config;
  failureLimit = kanban.failure_limit;
  const ttlMs = kanban.claim_ttl_seconds * 1000;
  const maxRuntimeMs = kanban.max_runtime_seconds * 1000;

  let withSkill = false;
  try {
    withSkill = findSkill((await runtime.catalog.snapshot()).skills, WORKER_SKILL) !== undefined;
  } catch (error) {
    log(`kanban: ${taskId}: the skills could not be read: ${errorText(error)}`);
  }
  if (!withSkill) {
    log(`kanban: ${taskId}: the ${WORKER_SKILL} skill is not installed; working without it`);
  }

  let conversation: Conversation;
  try {
    conversation = await Conversation.open({ runtime });
  } catch (error) {
    return await end("crashed", `the worker could not start: ${errorText(error)}`, false);
  }

  const controller = new AbortController();
  let timedOut = false;
  let claimLost = false;
  // A task this worker no longer holds is either finished (by its own
  // kanban_complete or kanban_block: the turn ends by itself) or taken away
  // (moved, archived, claimed again): then the turn stops at once.
  const stopIfTaken = async () => {
    if (claimLost) return;
    const current = await board.getTask(taskId);
    if (held(current, lock) || finishedOutcome(current, false) !== "claim_lost") return;
    claimLost = true;
    log(`kanban: ${taskId}: the claim was taken from this worker; stopping`);
    controller.abort();
  };
  const guarded = (what: string, step: () => Promise<unknown>) => () =>
    void step().catch((error) => log(`kanban: ${taskId}: ${what} failed: ${errorText(error)}`));
  const beatEvery = Math.max(1000, Math.floor(ttlMs / 3));
  const heartbeats = setInterval(
    guarded("the heartbeat", async () => {
      if (!(await board.heartbeat(taskId, lock, now() + ttlMs))) await stopIfTaken();
    }),
    beatEvery,
  );
  // Between heartbeats (every 5 min by default), a cheaper read-only look.
  const checks = setInterval(guarded("checking the claim", stopIfTaken), CLAIM_CHECK_MS);
  const deadline = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, maxRuntimeMs);

  let result: TurnResult | undefined;
  let failure: string | undefined;
  try {
    result = await conversation.ask(workerMessage(task, withSkill), {
      signal: controller.signal,
    });
    if (!result.aborted && result.stopped) {
      failure = `the turn was stopped: ${result.stopped.message}`;
    }
  } catch (error) {
    failure = errorText(error);
  } finally {
    clearInterval(heartbeats);
    clearInterval(checks);
    clearTimeout(deadline);
    await conversation.close().catch((error) =>
      log(`kanban: ${taskId}: closing its conversation failed: ${errorText(error)}`)
    );
  }

  const after = await board.getTask(taskId);
  if (claimLost || !held(after, lock)) {
    const outcome = finishedOutcome(after, claimLost);
    // Finished by its own kanban_complete or kanban_block: the attempt went as it should.
    return report(outcome, after, outcome !== "claim_lost", failure ?? "");
  }
  if (timedOut) {
    return await end(
      "timed_out",
      `the worker ran longer than ${kanban.max_runtime_seconds} s (kanban.max_runtime_seconds)`,
      false,
    );
  }
  if (failure !== undefined || !result || result.aborted) {
    return await end("crashed", failure ?? "the turn was stopped", false);
  }
  const answer = result.response.trim().slice(0, ANSWER_CHARS);
  return await end(
    "protocol_violation",
    "the worker finished its turn without kanban_complete or kanban_block" +
      (answer === "" ? "" : `; its last answer: ${answer}`),
    true,
  );
}
