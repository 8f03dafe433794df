/**
 * The kanban use cases, one function per verb of `herald kanban` and
 * `/kanban`, over a small {@link KanbanContext}: the shared board store,
 * the profiles on disk with their descriptions, the kanban settings of the
 * profile in use, and a clock. {@link kanbanService} binds them into the
 * {@link KanbanService} the command runner (core/kanban/kanban_command.ts)
 * drives; adapters/runtime/kanban.ts wires the context for a profile.
 *
 * @example
 * ```ts
 * const result = await createTask(context, { title: "Write the docs", assignee: "writer" });
 * result.task.status; // "ready"
 * ```
 *
 * @module
 */

import { closest } from "../_util/suggest.ts";
import { HeraldError, NotFoundError } from "../errors.ts";
import {
  type Board,
  type BoardStore,
  DEFAULT_BOARD,
  resolveAssignee,
  TASK_STATUSES,
  type TaskComment,
  type TaskEvent,
  type TaskRecord,
  type TaskStatus,
} from "../kanban/mod.ts";
import { type DecomposeOutcome, type DecomposePorts, decomposeTask } from "../kanban/decompose.ts";
import type {
  BoardStats,
  CreateTaskInput,
  CreateTaskResult,
  DecomposeResult,
  KanbanService,
  TailQuery,
  TaskDetail,
  TaskListFilter,
} from "../kanban/service.ts";

/** A profile as the board sees it: its name and what it is for. */
export interface KanbanProfile {
  name: string;
  /** The description an orchestrator routes by; empty when none is written. */
  description: string;
}

/** The kanban settings of the profile in use (config `kanban.*`, fallbacks resolved by the caller). */
export interface KanbanSettings {
  /** The profile that runs without a profile flag (the sticky default, else `default`). */
  defaultProfile: string;
  /** `kanban.default_assignee`, when set. */
  defaultAssignee?: string;
  /** `kanban.orchestrator_profile`, when set. */
  orchestratorProfile?: string;
}

/** What the kanban use cases work over. */
export interface KanbanContext {
  /** The shared board store (`kanban.db` at the Herald root). */
  readonly board: BoardStore;
  /** The profile in use: the author of its comments and the creator of its tasks. */
  readonly actor: string;
  /** The profiles on disk with their descriptions. */
  profiles(): Promise<KanbanProfile[]>;
  /** The kanban settings of the profile in use. */
  settings(): Promise<KanbanSettings>;
  /** The clock (ms since the epoch). */
  readonly now: () => number;
  /**
   * The `kanban_decomposer` auxiliary call (one system and one user
   * prompt, the answer's text); null when no auxiliary client is configured.
   */
  readonly decomposer?: ((request: { system: string; user: string }) => Promise<string>) | null;
}

/**
 * Creates a task. Its assignee is the profile asked for when it exists,
 * else `kanban.default_assignee`, else the default profile: the result
 * says which (`assignee_source`) and what was asked for when it was
 * rewritten. An idempotency key already used on the board returns that
 * task unchanged (`created: false`).
 *
 * @throws HeraldError from the store: an unknown parent or board, an empty title.
 */
export async function createTask(
  context: KanbanContext,
  input: CreateTaskInput,
): Promise<CreateTaskResult> {
  const [profiles, settings] = await Promise.all([context.profiles(), context.settings()]);
  const { assignee, source } = resolveAssignee(input.assignee, {
    profiles: profiles.map((profile) => profile.name),
    ...(settings.defaultAssignee === undefined
      ? {}
      : { defaultAssignee: settings.defaultAssignee }),
    defaultProfile: settings.defaultProfile,
  });
  const made = await context.board.createTask({
    title: input.title,
    board: input.board ?? DEFAULT_BOARD,
    ...(input.body === undefined ? {} : { body: input.body }),
    assignee,
    ...(input.parents === undefined ? {} : { parents: input.parents }),
    ...(input.triage ? { triage: true } : {}),
    ...(input.priority === undefined ? {} : { priority: input.priority }),
    created_by: context.actor,
    ...(input.idempotencyKey === undefined ? {} : { idempotency_key: input.idempotencyKey }),
    ...(input.maxRetries === undefined ? {} : { max_retries: input.maxRetries }),
  });
  const asked = input.assignee?.trim();
  return {
    task: made.task,
    created: made.created,
    assignee_source: source,
    requested_assignee: source === "requested" || !asked ? null : asked,
  };
}

/** Tasks matching `filter`, highest priority first; archived ones only with `all` or `status`. */
export async function listTasks(
  context: KanbanContext,
  filter: TaskListFilter,
): Promise<TaskRecord[]> {
  const tasks = await context.board.listTasks({
    board: filter.board ?? DEFAULT_BOARD,
    ...(filter.status === undefined ? {} : { status: filter.status }),
    ...(filter.assignee === undefined ? {} : { assignee: filter.assignee.trim().toLowerCase() }),
  });
  if (filter.all || filter.status !== undefined) return tasks;
  return tasks.filter((task) => task.status !== "archived");
}

/** The task or a NotFoundError naming its id. */
async function requireTask(context: KanbanContext, id: string): Promise<TaskRecord> {
  const task = await context.board.getTask(id);
  if (!task) throw new NotFoundError("Task", id, "`herald kanban list` shows the tasks");
  return task;
}

/**
 * One task in full: its parents and children, comments, events and runs.
 *
 * @throws NotFoundError for an unknown id.
 */
export async function showTask(context: KanbanContext, id: string): Promise<TaskDetail> {
  const task = await requireTask(context, id);
  const [links, comments, events, runs] = await Promise.all([
    context.board.links(id),
    context.board.comments(id),
    context.board.events(id),
    context.board.runs(id),
  ]);
  return {
    task,
    parents: links.filter((link) => link.child_id === id).map((link) => link.parent_id),
    children: links.filter((link) => link.parent_id === id).map((link) => link.child_id),
    links,
    comments,
    events,
    runs,
  };
}

/**
 * Gives a task to an existing profile. An explicit reassignment to a
 * profile that does not exist is refused (nothing is written), naming the
 * nearest profile when there is one.
 *
 * @throws HeraldError `kanban_unknown_profile` (usage); the store's conflict while the task runs.
 */
export async function assignTask(
  context: KanbanContext,
  id: string,
  profile: string,
): Promise<TaskRecord> {
  const names = (await context.profiles()).map((known) => known.name);
  const wanted = profile.trim().toLowerCase();
  if (!names.includes(wanted)) {
    const near = closest(wanted, names);
    throw new HeraldError(
      "kanban_unknown_profile",
      "usage",
      `No profile "${profile}"` + (near ? `; did you mean ${near}?` : "") +
        ` Profiles: ${names.join(", ")} (herald profile create <name> adds one)`,
      { details: { profile } },
    );
  }
  await requireTask(context, id);
  return await context.board.assign(id, wanted);
}

/**
 * Makes `child` wait for `parent` and returns the child in full. A
 * self-link or a link closing a cycle is refused and nothing is written.
 *
 * @throws NotFoundError for an unknown id; HeraldError `kanban_link_self` / `kanban_link_cycle`.
 */
export async function linkTasks(
  context: KanbanContext,
  parent: string,
  child: string,
): Promise<TaskDetail> {
  await context.board.link(parent, child);
  return await showTask(context, child);
}

/** Removes a link; false when there was none. */
export async function unlinkTasks(
  context: KanbanContext,
  parent: string,
  child: string,
): Promise<boolean> {
  await requireTask(context, parent);
  await requireTask(context, child);
  return await context.board.unlink(parent, child);
}

/** Adds a comment by the profile in use. */
export function commentTask(
  context: KanbanContext,
  id: string,
  text: string,
): Promise<TaskComment> {
  return context.board.comment(id, context.actor, text);
}

/** Marks a task done; the children it was the last unfinished parent of become ready. */
export function completeTask(
  context: KanbanContext,
  id: string,
  result: string,
): Promise<{ task: TaskRecord; promoted: TaskRecord[] }> {
  return context.board.complete(id, result);
}

/** Parks a task with a reason. */
export function blockTask(context: KanbanContext, id: string, reason: string): Promise<TaskRecord> {
  return context.board.block(id, reason);
}

/** Frees a blocked task. */
export function unblockTask(context: KanbanContext, id: string): Promise<TaskRecord> {
  return context.board.unblock(id);
}

/** Archives a task. */
export function archiveTask(context: KanbanContext, id: string): Promise<TaskRecord> {
  return context.board.archive(id);
}

/**
 * The event log after `since`, oldest first: one task's, or every task's
 * of a board (the default board when none is named).
 *
 * @throws NotFoundError for an unknown task id.
 */
export async function tailEvents(context: KanbanContext, query: TailQuery): Promise<TaskEvent[]> {
  if (query.taskId !== undefined) {
    await requireTask(context, query.taskId);
    return await context.board.events(query.taskId, query.since ?? 0);
  }
  const events = await context.board.events(undefined, query.since ?? 0);
  const onBoard = new Set(
    (await context.board.listTasks({ board: query.board ?? DEFAULT_BOARD })).map((task) => task.id),
  );
  return events.filter((event) => onBoard.has(event.task_id));
}

/** Counts of a board's tasks per status and per assignee, and the age of the oldest ready one. */
export async function boardStats(context: KanbanContext, board?: string): Promise<BoardStats> {
  const slug = board ?? DEFAULT_BOARD;
  const tasks = await context.board.listTasks({ board: slug });
  const byStatus = Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as Record<
    TaskStatus,
    number
  >;
  const byAssignee: BoardStats["by_assignee"] = {};
  let oldestReady: number | undefined;
  for (const task of tasks) {
    byStatus[task.status]++;
    const counts = byAssignee[task.assignee] ??= {};
    counts[task.status] = (counts[task.status] ?? 0) + 1;
    if (task.status === "ready") {
      oldestReady = Math.min(oldestReady ?? task.created_at, task.created_at);
    }
  }
  return {
    board: slug,
    total: tasks.length,
    by_status: byStatus,
    by_assignee: byAssignee,
    oldest_ready_age_ms: oldestReady === undefined ? null : context.now() - oldestReady,
  };
}

/** The kinds of a failed decomposition of one named task, for its exit code. */
const DECOMPOSE_FAILURE_KINDS: Readonly<Record<string, "usage" | "unavailable" | "state">> = {
  unknown_task: "usage",
  not_in_triage: "usage",
  no_auxiliary_client: "usage",
  model_error: "unavailable",
  malformed_json: "state",
  invalid_graph: "state",
};

/** One decomposition's outcome as the service reports it. */
function decomposeResult(taskId: string, outcome: DecomposeOutcome): DecomposeResult {
  if (!outcome.ok) {
    return { ok: false, task_id: taskId, code: outcome.code, message: outcome.message };
  }
  if (!outcome.fanout) {
    return {
      ok: true,
      task_id: taskId,
      fanout: false,
      child_ids: [],
      message: `kept as one task and promoted (${outcome.root.status})`,
    };
  }
  return {
    ok: true,
    task_id: taskId,
    fanout: true,
    child_ids: outcome.children.map((child) => child.id),
    message: `split into ${outcome.children.length} tasks; it waits for them, assigned to ` +
      outcome.root.assignee,
  };
}

/**
 * Decomposes a triage task into a task graph with the `kanban_decomposer`
 * model (core/kanban/decompose.ts), or, without an id, every triage task
 * of a board, one after the other (each outcome reported, none thrown).
 * The orchestrator is `kanban.orchestrator_profile` when it names a
 * profile, else the default profile.
 *
 * @throws HeraldError with the outcome's code when the one task named is not decomposed.
 */
export async function decomposeTasks(
  context: KanbanContext,
  target: { id: string } | { board?: string },
): Promise<DecomposeResult[]> {
  const [profiles, settings] = await Promise.all([context.profiles(), context.settings()]);
  const names = profiles.map((profile) => profile.name);
  const wanted = settings.orchestratorProfile?.trim().toLowerCase();
  const ports: DecomposePorts = {
    complete: context.decomposer ?? null,
    profiles,
    orchestrator: wanted && names.includes(wanted) ? wanted : settings.defaultProfile,
    ...(settings.defaultAssignee === undefined
      ? {}
      : { defaultAssignee: settings.defaultAssignee }),
    defaultProfile: settings.defaultProfile,
    now: context.now,
  };
  if ("id" in target) {
    const result = decomposeResult(target.id, await decomposeTask(context.board, target.id, ports));
    if (!result.ok) {
      throw new HeraldError(
        `kanban_${result.code}`,
        DECOMPOSE_FAILURE_KINDS[result.code] ?? "state",
        result.message,
        { details: { task: target.id } },
      );
    }
    return [result];
  }
  const triage = await context.board.listTasks({
    board: target.board ?? DEFAULT_BOARD,
    status: "triage",
  });
  const results: DecomposeResult[] = [];
  for (const task of triage) {
    results.push(decomposeResult(task.id, await decomposeTask(context.board, task.id, ports)));
  }
  return results;
}

/** The boards, `default` first. */
export function listBoards(context: KanbanContext): Promise<Board[]> {
  return context.board.listBoards();
}

/** Creates a board (or returns the existing one). */
export function createBoard(context: KanbanContext, slug: string): Promise<Board> {
  return context.board.createBoard(slug);
}

/** Removes a board; its tasks are kept. `default` cannot be removed. */
export function removeBoard(context: KanbanContext, slug: string): Promise<void> {
  return context.board.removeBoard(slug);
}

/**
 * The {@link KanbanService} over `context`: each verb is the use case of
 * the same name above.
 *
 * @example
 * ```ts
 * const kanban = kanbanService(context);
 * const tasks = await kanban.list({ status: "ready" });
 * ```
 */
export function kanbanService(context: KanbanContext): KanbanService {
  return {
    create: (input) => createTask(context, input),
    list: (filter) => listTasks(context, filter),
    show: (id) => showTask(context, id),
    assign: (id, profile) => assignTask(context, id, profile),
    link: (parent, child) => linkTasks(context, parent, child),
    unlink: (parent, child) => unlinkTasks(context, parent, child),
    comment: (id, text) => commentTask(context, id, text),
    complete: (id, result) => completeTask(context, id, result),
    block: (id, reason) => blockTask(context, id, reason),
    unblock: (id) => unblockTask(context, id),
    archive: (id) => archiveTask(context, id),
    tail: (query) => tailEvents(context, query),
    stats: (board) => boardStats(context, board),
    decompose: (target) => decomposeTasks(context, target),
    boards: () => listBoards(context),
    createBoard: (slug) => createBoard(context, slug),
    removeBoard: (slug) => removeBoard(context, slug),
  };
}
