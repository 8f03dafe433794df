/**
 * The kanban board's records and the {@link BoardStore} port. One schema
 * per noun (task, link, comment, event, run, board), used both as type and
 * as validator. The SQL lives in the adapter (adapters/kanban), so a store
 * for another database implements the same port.
 *
 * @module
 */

import { z } from "zod";

/** Where a task is in its life, in board-column order. */
export const TASK_STATUSES = [
  "triage",
  "todo",
  "ready",
  "running",
  "blocked",
  "done",
  "archived",
] as const;

/** One of {@link TASK_STATUSES}. */
export const TaskStatusSchema = z.enum(TASK_STATUSES);

/** One of {@link TASK_STATUSES}. */
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** A task id: `t_` and 8 hex digits. */
export const TASK_ID_PATTERN = /^t_[0-9a-f]{8}$/;

/** A board slug: 1-64 lowercase letters, digits, `-` or `_`, starting with a letter or digit. */
export const BOARD_SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The board that always exists and cannot be removed. */
export const DEFAULT_BOARD = "default";

/** The parent statuses that let a child go: a done or archived parent no longer holds it back. */
export const FINISHED_STATUSES: readonly TaskStatus[] = ["done", "archived"];

/** One task on a board. Times are epoch milliseconds. */
export const TaskRecordSchema = z.object({
  id: z.string().regex(TASK_ID_PATTERN),
  board: z.string().regex(BOARD_SLUG_PATTERN),
  title: z.string().min(1),
  body: z.string(),
  /** The profile that works on it; never empty. */
  assignee: z.string().min(1),
  status: TaskStatusSchema,
  /** Higher goes first. */
  priority: z.number().int(),
  created_by: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  /** When it was first claimed. */
  started_at: z.number().nullable(),
  completed_at: z.number().nullable(),
  idempotency_key: z.string().nullable(),
  /** Failures allowed before it is blocked; null: the dispatcher's limit. */
  max_retries: z.number().int().min(0).nullable(),
  consecutive_failures: z.number().int().min(0),
  /** Who holds the claim while it runs (for example `host:1234`). */
  claim_lock: z.string().nullable(),
  claim_expires: z.number().nullable(),
  worker_pid: z.number().int().nullable(),
  heartbeat_at: z.number().nullable(),
  result: z.string().nullable(),
  /** Why it was last blocked (one of {@link BLOCK_KINDS}); cleared when it completes. */
  block_kind: z.string().nullable(),
  /** How many blocks in a row had that kind. */
  block_recurrences: z.number().int().min(0),
  /** What the last failed attempt said (shown to the next worker). */
  last_failure_error: z.string().nullable(),
});

/** One task on a board. */
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/** A dependency: `child_id` waits for `parent_id`. */
export const TaskLinkSchema = z.object({
  parent_id: z.string().regex(TASK_ID_PATTERN),
  child_id: z.string().regex(TASK_ID_PATTERN),
});

/** A dependency: `child_id` waits for `parent_id`. */
export type TaskLink = z.infer<typeof TaskLinkSchema>;

/** A note on a task. */
export const TaskCommentSchema = z.object({
  id: z.number().int(),
  task_id: z.string(),
  author: z.string().min(1),
  body: z.string().min(1),
  created_at: z.number(),
});

/** A note on a task. */
export type TaskComment = z.infer<typeof TaskCommentSchema>;

/** One entry of the append-only event log; `seq` grows across the whole board database. */
export const TaskEventSchema = z.object({
  seq: z.number().int(),
  task_id: z.string(),
  /** `created`, `promoted`, `claimed`, `completed`, `blocked`, `linked`, ... */
  kind: z.string().min(1),
  payload: z.record(z.string(), z.unknown()).nullable(),
  at: z.number(),
});

/** One entry of the append-only event log. */
export type TaskEvent = z.infer<typeof TaskEventSchema>;

/** How an attempt ended (null while it runs). */
export const RUN_OUTCOMES = [
  "completed",
  "blocked",
  "crashed",
  "timed_out",
  "spawn_failed",
  "gave_up",
  "reclaimed",
  "protocol_violation",
] as const;

/** One attempt at a task: opened by a claim, closed with its outcome. */
export const TaskRunSchema = z.object({
  id: z.number().int(),
  task_id: z.string(),
  claim_lock: z.string().nullable(),
  worker_pid: z.number().int().nullable(),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  outcome: z.enum(RUN_OUTCOMES).nullable(),
  error: z.string().nullable(),
});

/** One attempt at a task. */
export type TaskRun = z.infer<typeof TaskRunSchema>;

/**
 * Why a task is blocked. `needs_input` twice in a row sends the task back
 * to triage (a person must look at it) instead of blocking it again.
 */
export const BLOCK_KINDS = ["needs_input", "dependency", "capability", "transient"] as const;

/** One of {@link BLOCK_KINDS}. */
export type BlockKind = (typeof BLOCK_KINDS)[number];

/** Blocks of one kind in a row after which a task goes back to triage. */
export const BLOCK_RECURRENCE_LIMIT = 2;

/** How an attempt can end without its worker completing or blocking the task. */
export type AttemptFailure =
  | "crashed"
  | "reclaimed"
  | "protocol_violation"
  | "spawn_failed"
  | "timed_out";

/** What {@link BoardStore.endAttempt} is told about an attempt that ended unfinished. */
export interface AttemptEnd {
  /** The claim the attempt ran under; nothing is written unless the task still runs under it. */
  lock: string;
  outcome: AttemptFailure;
  /** What went wrong, in words (kept as the task's `last_failure_error`). */
  error: string;
  /** True when it counts toward the failure limit (a reclaim of an expired claim does not). */
  failed: boolean;
  /** Failures in a row after which the task is blocked (`gave_up`); the task's `max_retries` wins. */
  failureLimit: number;
  /** Added to the event's payload (pid, exit code). */
  details?: Record<string, unknown>;
}

/** What {@link BoardStore.endAttempt} did. */
export interface EndedAttempt {
  task: TaskRecord;
  /** True when the failure limit was reached and the task is now blocked. */
  gaveUp: boolean;
}

/** The fields {@link BoardStore.edit} can change. */
export interface TaskEdit {
  title?: string;
  body?: string;
  priority?: number;
}

/** A chat told when a task it created ends (completed, blocked, gave up). */
export interface TaskSubscription {
  task_id: string;
  platform: string;
  chat_id: string;
  /** The thread inside the chat, or "" for none. */
  thread_id: string;
  /** The profile whose gateway delivers the notice. */
  profile: string;
  /** The last event already told. */
  last_seq: number;
  created_at: number;
}

/** A board: tasks are grouped by its slug. */
export const BoardSchema = z.object({
  slug: z.string().regex(BOARD_SLUG_PATTERN),
  name: z.string(),
  created_at: z.number(),
});

/** A board. */
export type Board = z.infer<typeof BoardSchema>;

/** What {@link BoardStore.createTask} needs; the assignee is already resolved (rules.ts). */
export interface NewTask {
  title: string;
  /** The board's slug; default `default`. */
  board?: string;
  body?: string;
  /** A profile name, never empty (resolve it with `resolveAssignee` first). */
  assignee: string;
  /** Tasks this one waits for. */
  parents?: readonly string[];
  /** Start in `triage` (to be decomposed) instead of `todo`/`ready`. */
  triage?: boolean;
  priority?: number;
  created_by?: string;
  /** A second create with the same key on the same board returns the first task. */
  idempotency_key?: string;
  max_retries?: number | null;
}

/** What {@link BoardStore.createTask} did. */
export interface CreatedTask {
  task: TaskRecord;
  /** False when the idempotency key named an existing task, which is returned unchanged. */
  created: boolean;
}

/** What {@link BoardStore.complete} did. */
export interface CompletedTask {
  task: TaskRecord;
  /** The children that became `ready` because this was their last unfinished parent. */
  promoted: TaskRecord[];
}

/** One child of a decomposition, its assignee already resolved (never empty). */
export interface NewChildTask {
  title: string;
  body: string;
  assignee: string;
}

/**
 * What {@link BoardStore.commitDecomposition} writes for the triage task
 * `rootId`: a graph of children (fanout) or the task itself tightened.
 */
export type Decomposition =
  | {
    fanout: true;
    rootId: string;
    children: readonly NewChildTask[];
    /** `[parent, child]` indices into `children`: the child waits for the parent. */
    edges: readonly (readonly [number, number])[];
    /** Who the root goes to (the orchestrator profile). */
    rootAssignee: string;
    /** The audit comment on the root, written once the children exist (in `children` order). */
    comment: { author: string; body: (children: readonly TaskRecord[]) => string };
    /** Added to the `decomposed` event's payload (the model's rationale, say). */
    details?: Record<string, unknown>;
  }
  | {
    fanout: false;
    rootId: string;
    title: string;
    body: string;
    assignee: string;
    /** The audit comment on the task (keeping what it said before). */
    comment: { author: string; body: string };
    /** Added to the `decomposed` event's payload. */
    details?: Record<string, unknown>;
  };

/** What {@link BoardStore.commitDecomposition} did. */
export type CommittedDecomposition =
  | { fanout: true; root: TaskRecord; children: TaskRecord[] }
  | { fanout: false; root: TaskRecord };

/** Which tasks {@link BoardStore.listTasks} returns (all filters combine). */
export interface TaskFilter {
  board?: string;
  status?: TaskStatus;
  assignee?: string;
  /** At most this many (the first ones in listing order). */
  limit?: number;
}

/** A claim: who holds it, until when, and the worker's process id. */
export interface Claim {
  lock: string;
  expiresAt: number;
  pid?: number;
}

/**
 * The board store. Every write is atomic: a task, its links and its
 * `created` event land together or not at all. Errors are HeraldErrors
 * (NotFoundError for an unknown task or board).
 */
export interface BoardStore {
  /**
   * Creates a task (status by `initialStatus`), its links to `parents` and
   * its `created` event in one transaction. With an idempotency key that a
   * non-archived task on the board already has, returns that task with
   * `created: false` and writes nothing.
   */
  createTask(input: NewTask): Promise<CreatedTask>;
  /** The task, or undefined. */
  getTask(id: string): Promise<TaskRecord | undefined>;
  /** Tasks matching `filter`, highest priority first, then oldest first. */
  listTasks(filter?: TaskFilter): Promise<TaskRecord[]>;
  /** The links touching `taskId` (as parent or child). */
  links(taskId: string): Promise<TaskLink[]>;
  /** For each task of `board` with links: how many it waits for and how many wait for it. */
  linkCounts(board: string): Promise<Map<string, { parents: number; children: number }>>;
  /**
   * Makes `childId` wait for `parentId` (`linked` event). A self-link, a
   * link across boards or one that would close a cycle is refused and
   * nothing is written; a `ready` child of an unfinished parent goes back
   * to `todo`.
   */
  link(parentId: string, childId: string): Promise<void>;
  /** Removes a link (`unlinked` event); a `todo` child whose parents are now all finished is promoted. False when there was no such link. */
  unlink(parentId: string, childId: string): Promise<boolean>;
  /** Adds a comment (`commented` event). */
  comment(taskId: string, author: string, body: string): Promise<TaskComment>;
  /** The task's comments, oldest first. */
  comments(taskId: string): Promise<TaskComment[]>;
  /** Events in `seq` order: of one task or all, after `afterSeq`. */
  events(taskId?: string, afterSeq?: number): Promise<TaskEvent[]>;
  /** The `seq` of the newest event of the whole log; 0 when it is empty. */
  lastEventSeq(): Promise<number>;
  /** The task's runs, oldest first. */
  runs(taskId: string): Promise<TaskRun[]>;
  /**
   * Appends an event that no other write records (the dispatcher's
   * `decompose_failed`, say).
   *
   * @throws NotFoundError for an unknown task.
   */
  recordEvent(taskId: string, kind: string, payload: Record<string, unknown>): Promise<TaskEvent>;
  /** Gives the task to another profile (`assigned` event); refused while it runs. */
  assign(id: string, assignee: string): Promise<TaskRecord>;
  /**
   * Marks the task done with its result (`completed` event), closes its
   * open run, and promotes each `todo` child whose parents are now all
   * finished (`promoted` event), all in one transaction. With `lock` (a
   * worker's claim), refused unless the task still runs under it.
   */
  complete(id: string, result: string, options?: { lock?: string }): Promise<CompletedTask>;
  /**
   * Parks the task as `blocked` with a reason (`blocked` event), releasing
   * any claim. A block of the same `kind` as the last one counts as a
   * recurrence; at {@link BLOCK_RECURRENCE_LIMIT} `needs_input` blocks in a
   * row the task goes back to `triage` instead (`block_loop_detected`);
   * a `dependency` block parks it in `todo` (`dependency_wait`) until the
   * tasks it waits for finish. With `lock`, refused unless the task still
   * runs under it.
   */
  block(
    id: string,
    reason: string,
    options?: { kind?: BlockKind; lock?: string },
  ): Promise<TaskRecord>;
  /** Frees a blocked task: `ready`, or `todo` while a parent is unfinished (`unblocked` event). */
  unblock(id: string): Promise<TaskRecord>;
  /** Archives the task (`archived` event); its children no longer wait for it. */
  archive(id: string): Promise<TaskRecord>;
  /**
   * Compare-and-swap: moves a `ready` task whose claim is absent or expired
   * (and whose parents are all finished) to `running` under `claim`, opens a
   * run and records `claimed`. False when another claimant won.
   */
  claim(id: string, claim: Claim): Promise<boolean>;
  /** Extends the claim held under `lock` (`heartbeat` event); false when the lock is no longer held. */
  heartbeat(id: string, lock: string, expiresAt: number, note?: string): Promise<boolean>;
  /** Records the worker's process id under the claim (`spawned` event); false when the lock is no longer held. */
  recordWorker(id: string, lock: string, pid: number): Promise<boolean>;
  /**
   * The dispatcher found the claim expired but its worker alive and
   * heartbeating: extends it (`claim_extended` event with `reason`).
   * False when the lock is no longer held.
   */
  extendClaim(id: string, lock: string, expiresAt: number, reason: string): Promise<boolean>;
  /**
   * Ends the attempt running under `end.lock` without a result: closes
   * the run with the outcome, records an event of that kind, and returns
   * the task to `ready` (`todo` while a parent is unfinished). A counted
   * failure that reaches the limit blocks it instead (`gave_up`).
   * Undefined when the task no longer runs under that lock (nothing written).
   */
  endAttempt(id: string, end: AttemptEnd): Promise<EndedAttempt | undefined>;
  /** Promotes every `todo` task (of `board`, or all) whose parents are all finished (`promoted`). */
  promoteReady(board?: string): Promise<TaskRecord[]>;
  /** Changes a task's title, body or priority (`edited` event naming the fields). */
  edit(id: string, changes: TaskEdit): Promise<TaskRecord>;
  /**
   * Moves a task where no other verb applies, as a person dragging a card:
   * triage to todo or ready; ready and todo to each other (ready only when
   * its parents are finished); a running task back to ready or todo (its
   * run `reclaimed`, its claim dropped); a done task reopened (its ready
   * children wait for it again: `demoted`); an archived task restored;
   * any task back to triage. One `moved` event.
   *
   * @throws HeraldError `kanban_task_status` (conflict) for a move it cannot make.
   */
  move(id: string, to: "triage" | "todo" | "ready", actor: string): Promise<TaskRecord>;
  /** Tells the chat `subscription` when the task ends (a second subscribe is harmless). */
  subscribe(subscription: Omit<TaskSubscription, "last_seq" | "created_at">): Promise<void>;
  /** The subscriptions delivered by `profile` (all when absent). */
  subscriptions(profile?: string): Promise<TaskSubscription[]>;
  /** Moves a subscription's cursor to `seq`, or removes it (`done`: its task ended for good). */
  advanceSubscription(
    key: Pick<TaskSubscription, "task_id" | "platform" | "chat_id" | "thread_id">,
    seq: number,
    done: boolean,
  ): Promise<void>;
  /**
   * Writes a decomposition of a triage task in one transaction. Fanout: the
   * children (`ready`, or `todo` when they wait for a sibling), the links
   * of `edges`, the root linked under every leaf child (so it waits for the
   * whole graph), the audit comment, a `created` event per child and a
   * `decomposed` event on the root, which goes to `rootAssignee` as `todo`.
   * Single: the task's new title, body and assignee, `ready` (`todo` while
   * a parent is unfinished), the comment and a `decomposed` event.
   *
   * @throws HeraldError `kanban_task_status` (conflict, naming the status)
   * unless the root is in triage; `kanban_graph` (usage) for no children,
   * an edge out of range, a self-edge or a cycle; NotFoundError for an
   * unknown root. Nothing is written then.
   */
  commitDecomposition(plan: Decomposition): Promise<CommittedDecomposition>;
  /** The boards, `default` first, then by slug. */
  listBoards(): Promise<Board[]>;
  /** Creates a board (or returns the existing one with that slug). */
  createBoard(slug: string, name?: string): Promise<Board>;
  /** Removes a board from the list; its tasks are kept. The `default` board cannot be removed. */
  removeBoard(slug: string): Promise<void>;
  /** Closes the store; later calls fail. Closing twice is harmless. */
  close(): void;
}
