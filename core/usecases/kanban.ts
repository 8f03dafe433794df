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
  type BlockKind,
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
import { subscriptionNotices } from "../kanban/notices.ts";
import {
  type DispatchPorts,
  type DispatchReport,
  type DispatchRequest,
  type DispatchSettings,
  dispatchTick,
} from "../kanban/dispatch.ts";
import type {
  BoardStats,
  BoardView,
  CreateTaskInput,
  CreateTaskResult,
  DecomposeResult,
  KanbanCard,
  KanbanService,
  TailQuery,
  TaskChanges,
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

/**
 * The dispatcher's machinery where workers can be started (the gateway,
 * `herald kanban dispatch`): starting, watching and stopping worker
 * processes, and the dispatcher's settings.
 */
export interface KanbanDispatcher
  extends Pick<DispatchPorts, "newLock" | "workerAlive" | "stopWorker" | "spawn" | "watched"> {
  /** The `kanban.*` dispatcher settings of the profile in use. */
  settings(): Promise<DispatchSettings>;
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
  /** Starting and watching workers; absent where the dispatcher cannot run. */
  readonly dispatcher?: KanbanDispatcher;
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
  if (input.subscribe) {
    await context.board.subscribe({
      task_id: made.task.id,
      platform: input.subscribe.platform,
      chat_id: input.subscribe.chatId,
      thread_id: input.subscribe.threadId ?? "",
      profile: context.actor,
    });
  }
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
  const wanted = await requireProfile(context, profile);
  await requireTask(context, id);
  return await context.board.assign(id, wanted);
}

/** The profile `profile` names (lowercased), or an error listing the profiles. */
async function requireProfile(context: KanbanContext, profile: string): Promise<string> {
  const names = (await context.profiles()).map((known) => known.name);
  const wanted = profile.trim().toLowerCase();
  if (!names.includes(wanted)) {
    const near = closest(wanted, names);
    throw new HeraldError(
      "kanban_unknown_profile",
      "usage",
      `No profile "${profile}"` + (near ? `; did you mean ${near}?` : ".") +
        ` Profiles: ${names.join(", ")} (herald profile create <name> adds one)`,
      { details: { profile } },
    );
  }
  return wanted;
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

/** Parks a task with a reason (and its kind: needing input twice in a row sends it to triage). */
export function blockTask(
  context: KanbanContext,
  id: string,
  reason: string,
  kind?: BlockKind,
): Promise<TaskRecord> {
  return context.board.block(id, reason, kind === undefined ? {} : { kind });
}

/**
 * Changes a task's title, body, priority or assignee (an assignee that is
 * no profile is refused, as in {@link assignTask}), and moves it when
 * `changes.status` is given ({@link moveTask}). The assignee is checked
 * before anything is written and the move comes first, so a refused move
 * changes nothing, and a running task moved back can be reassigned in the
 * same call.
 *
 * @throws NotFoundError for an unknown id; HeraldError for an empty title, an unknown profile, a refused move or a running task's reassignment.
 */
export async function editTask(
  context: KanbanContext,
  id: string,
  changes: TaskChanges,
): Promise<TaskRecord> {
  const { assignee, status, reason, ...fields } = changes;
  let task = await requireTask(context, id);
  const profile = assignee === undefined ? undefined : await requireProfile(context, assignee);
  if (status !== undefined) {
    task = await moveTask(context, id, status, reason === undefined ? {} : { reason });
  }
  if (profile !== undefined && profile !== task.assignee) {
    task = await context.board.assign(id, profile);
  }
  if (Object.keys(fields).length === 0) return task;
  return await context.board.edit(id, fields);
}

/**
 * Moves a task to the column `to`, as dragging its card does: done
 * completes it, blocked blocks it, archived archives it; a blocked task
 * dragged to the queue is unblocked; triage, todo and ready are the
 * store's move (todo or ready as its parents decide). Nothing moves a task
 * to running but the dispatcher.
 *
 * @throws HeraldError `kanban_task_status` (conflict) for a move that cannot be made.
 */
export async function moveTask(
  context: KanbanContext,
  id: string,
  to: TaskStatus,
  options: { reason?: string } = {},
): Promise<TaskRecord> {
  const task = await requireTask(context, id);
  if (task.status === to) return task;
  const reason = options.reason?.trim();
  switch (to) {
    case "done":
      return (await context.board.complete(id, reason || `marked done by ${context.actor}`)).task;
    case "blocked":
      return await context.board.block(id, reason || `blocked by ${context.actor}`);
    case "archived":
      return await context.board.archive(id);
    case "running":
      throw new HeraldError(
        "kanban_task_status",
        "conflict",
        `Only the dispatcher starts a task; move "${id}" to ready and the next tick picks it up`,
        { details: { task: id, status: task.status } },
      );
    default:
      // Unblocked, it is ready or waits for its parents (todo).
      if (task.status === "blocked" && to !== "triage") return await context.board.unblock(id);
      return await context.board.move(id, to, context.actor);
  }
}

/**
 * One dispatcher tick over `request.board` (or every board): see
 * core/kanban/dispatch.ts. Triage tasks are decomposed with the same use
 * case as `herald kanban decompose`.
 *
 * @throws HeraldError `kanban_dispatch_unavailable` where workers cannot be started.
 */
export async function dispatchTasks(
  context: KanbanContext,
  request: DispatchRequest,
): Promise<DispatchReport> {
  const dispatcher = context.dispatcher;
  if (!dispatcher) {
    throw new HeraldError(
      "kanban_dispatch_unavailable",
      "unavailable",
      "The dispatcher cannot run here; run `herald kanban dispatch` in a terminal, or start the " +
        "gateway (`herald gateway start`), which dispatches every kanban.dispatch_interval_seconds " +
        "(60 by default)",
    );
  }
  const settings = await dispatcher.settings();
  const ports: DispatchPorts = {
    board: context.board,
    now: context.now,
    newLock: () => dispatcher.newLock(),
    workerAlive: (lock, pid) => dispatcher.workerAlive(lock, pid),
    stopWorker: (lock, pid) => dispatcher.stopWorker(lock, pid),
    spawn: (task, lock) => dispatcher.spawn(task, lock),
    watched: () => dispatcher.watched(),
    decompose: context.decomposer
      ? async (taskId) => {
        const [result] = await decomposeTasks(context, { id: taskId });
        return { ok: result.ok, message: result.message };
      }
      : null,
    profiles: async () => (await context.profiles()).map((profile) => profile.name),
  };
  return await dispatchTick(ports, settings, request);
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

/**
 * Tells each chat subscribed through the profile in use (its gateway
 * delivers) what became of its tasks since it was last told: completed,
 * blocked, given up, back to triage, archived. A subscription ends with
 * its task. A notice that cannot be sent stops that subscription's turn
 * (it is tried again next time) but not the others'; the first such error
 * is thrown once every subscription had its turn. Returns how many
 * notices went out.
 */
export async function deliverTaskNotices(
  context: KanbanContext,
  send: (target: string, text: string) => Promise<void>,
): Promise<number> {
  let sent = 0;
  let failure: unknown;
  for (const subscription of await context.board.subscriptions(context.actor)) {
    const task = await context.board.getTask(subscription.task_id);
    if (!task) {
      await context.board.advanceSubscription(subscription, subscription.last_seq, true);
      continue;
    }
    const events = await context.board.events(task.id, subscription.last_seq);
    if (events.length === 0) continue;
    const notices = subscriptionNotices(task, events, subscription.last_seq);
    const target = [subscription.platform, subscription.chat_id, subscription.thread_id]
      .filter(Boolean).join(":");
    try {
      for (const text of notices.texts) {
        await send(target, text);
        sent++;
      }
    } catch (error) {
      // This chat is tried again next time; the others are not held back.
      failure ??= error;
      continue;
    }
    await context.board.advanceSubscription(subscription, notices.lastSeq, notices.done);
  }
  if (failure !== undefined) throw failure;
  return sent;
}

/**
 * The board `slug` as columns of cards (triage, todo, ready, running,
 * blocked, done, and archived with `archived`), each card with its link
 * counts, highest priority first.
 *
 * @throws NotFoundError for an unknown or removed board.
 */
export async function boardColumns(
  context: KanbanContext,
  slug: string,
  options: { archived?: boolean } = {},
): Promise<BoardView> {
  if (!(await context.board.listBoards()).some((board) => board.slug === slug)) {
    throw new NotFoundError("Board", slug, "`herald kanban boards` lists them");
  }
  const [tasks, counts] = await Promise.all([
    listTasks(context, { board: slug, all: options.archived ?? false }),
    context.board.linkCounts(slug),
  ]);
  const statuses = TASK_STATUSES.filter((status) => status !== "archived" || options.archived);
  const columns = statuses.map((status) => ({ status, tasks: [] as KanbanCard[] }));
  const byStatus = new Map(columns.map((column) => [column.status, column.tasks]));
  for (const task of tasks) {
    const links = counts.get(task.id);
    byStatus.get(task.status)?.push({
      id: task.id,
      title: task.title,
      assignee: task.assignee,
      status: task.status,
      priority: task.priority,
      parents: links?.parents ?? 0,
      children: links?.children ?? 0,
      created_at: task.created_at,
      updated_at: task.updated_at,
    });
  }
  return { board: slug, columns };
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
    block: (id, reason, kind) => blockTask(context, id, reason, kind),
    unblock: (id) => unblockTask(context, id),
    archive: (id) => archiveTask(context, id),
    tail: (query) => tailEvents(context, query),
    stats: (board) => boardStats(context, board),
    decompose: (target) => decomposeTasks(context, target),
    edit: (id, changes) => editTask(context, id, changes),
    move: (id, to, options) => moveTask(context, id, to, options),
    dispatch: (request) => dispatchTasks(context, request),
    columns: (slug, options) => boardColumns(context, slug, options),
    boards: () => listBoards(context),
    createBoard: (slug) => createBoard(context, slug),
    removeBoard: (slug) => removeBoard(context, slug),
  };
}
