/**
 * What `herald kanban` and `/kanban` ask of the board: the
 * {@link KanbanService}, one method per verb, answered with plain records.
 * core/usecases/kanban.ts implements it over a profile's board, profiles
 * and config; core/kanban/kanban_command.ts drives it from the words a
 * person typed. A surface reaches it through a {@link KanbanOpener}, which
 * opens the board for one piece of work and closes it after.
 *
 * @module
 */

import type {
  BlockKind,
  Board,
  TaskComment,
  TaskEdit,
  TaskEvent,
  TaskLink,
  TaskRecord,
  TaskRun,
  TaskStatus,
} from "./board.ts";
import type { AssigneeSource } from "./rules.ts";
import type { DispatchReport, DispatchRequest } from "./dispatch.ts";

/** A task to create, as typed (the assignee not yet resolved). */
export interface CreateTaskInput {
  title: string;
  board?: string;
  body?: string;
  /** The profile asked for; unknown or absent: the fallback (`resolveAssignee`). */
  assignee?: string;
  parents?: readonly string[];
  triage?: boolean;
  priority?: number;
  idempotencyKey?: string;
  maxRetries?: number;
  /** The chat that asked (a messaging gateway): it is told when the task ends. */
  subscribe?: { platform: string; chatId: string; threadId?: string };
}

/** What creating a task did. */
export interface CreateTaskResult {
  task: TaskRecord;
  /** False when the idempotency key named an existing task (returned unchanged). */
  created: boolean;
  /** Where the assignee came from. */
  assignee_source: AssigneeSource;
  /** The profile asked for when it was rewritten (unknown or absent: null). */
  requested_assignee: string | null;
}

/** Which tasks a listing shows. */
export interface TaskListFilter {
  board?: string;
  status?: TaskStatus;
  assignee?: string;
  /** Archived tasks too (hidden otherwise, unless `status` asks for them). */
  all?: boolean;
}

/** One task in full. */
export interface TaskDetail {
  task: TaskRecord;
  /** The tasks this one waits for. */
  parents: string[];
  /** The tasks waiting for this one. */
  children: string[];
  links: TaskLink[];
  comments: TaskComment[];
  events: TaskEvent[];
  runs: TaskRun[];
}

/** Which events a tail reads. */
export interface TailQuery {
  /** One task's events; absent: every task's (of `board`, when given). */
  taskId?: string;
  board?: string;
  /** Events after this sequence number. */
  since?: number;
}

/** Counts of a board's tasks. */
export interface BoardStats {
  board: string;
  total: number;
  /** Tasks per status (every status, zeros included). */
  by_status: Record<TaskStatus, number>;
  /** Per assignee, tasks per status (only statuses with tasks). */
  by_assignee: Record<string, Partial<Record<TaskStatus, number>>>;
  /** Age in ms of the oldest `ready` task, null when none is ready. */
  oldest_ready_age_ms: number | null;
}

/** How a decomposition went: a closed union callers branch on. */
export type DecomposeResult =
  | {
    ok: true;
    task_id: string;
    /** True when children were created. */
    fanout: boolean;
    child_ids: string[];
    message: string;
  }
  | { ok: false; task_id: string; code: string; message: string };

/** One card on the board. */
export interface KanbanCard {
  id: string;
  title: string;
  assignee: string;
  status: TaskStatus;
  priority: number;
  /** How many tasks it waits for, and how many wait for it. */
  parents: number;
  children: number;
  created_at: number;
  updated_at: number;
}

/** A board as columns of cards, in board order (triage to done, archived on request). */
export interface BoardView {
  board: string;
  columns: { status: TaskStatus; tasks: KanbanCard[] }[];
}

/** What {@link KanbanService.edit} changes; absent fields stay. */
export interface TaskChanges extends TaskEdit {
  assignee?: string;
  /** The column to move the task to. */
  status?: TaskStatus;
  /** Why it moves (a block's reason, a completion's result). */
  reason?: string;
}

/** The board's operations, one per verb of `herald kanban`. Errors are HeraldErrors. */
export interface KanbanService {
  /** Creates a task, resolving its assignee against the profiles on disk. */
  create(input: CreateTaskInput): Promise<CreateTaskResult>;
  /** Tasks matching `filter`, highest priority first. */
  list(filter: TaskListFilter): Promise<TaskRecord[]>;
  /** One task with its links, comments, events and runs. */
  show(id: string): Promise<TaskDetail>;
  /** Gives a task to an existing profile. */
  assign(id: string, profile: string): Promise<TaskRecord>;
  /** Makes `child` wait for `parent`. */
  link(parent: string, child: string): Promise<TaskDetail>;
  /** Removes a link; false when there was none. */
  unlink(parent: string, child: string): Promise<boolean>;
  /** Adds a comment by the profile in use. */
  comment(id: string, text: string): Promise<TaskComment>;
  /** Marks a task done; its children whose parents are all finished become ready. */
  complete(id: string, result: string): Promise<{ task: TaskRecord; promoted: TaskRecord[] }>;
  /** Parks a task with a reason (and why: needing input twice in a row sends it to triage). */
  block(id: string, reason: string, kind?: BlockKind): Promise<TaskRecord>;
  /** Frees a blocked task. */
  unblock(id: string): Promise<TaskRecord>;
  /** Archives a task. */
  archive(id: string): Promise<TaskRecord>;
  /** The event log, oldest first. */
  tail(query: TailQuery): Promise<TaskEvent[]>;
  /** Counts per status and assignee. */
  stats(board?: string): Promise<BoardStats>;
  /** Decomposes one triage task, or every triage task of a board (`id` absent). */
  decompose(target: { id: string } | { board?: string }): Promise<DecomposeResult[]>;
  /**
   * Changes a task's title, body, priority or assignee, and moves it when
   * `status` is given (as {@link KanbanService.move}, `reason` saying why).
   * The assignee is checked first and the move made before the edits, so a
   * refused move or an unknown profile changes nothing.
   */
  edit(id: string, changes: TaskChanges): Promise<TaskRecord>;
  /**
   * Moves a task to a column, as dragging its card does: done completes
   * it, blocked blocks it, archived archives it, a blocked task dragged
   * out is unblocked, the rest is the store's `move`.
   */
  move(id: string, to: TaskStatus, options?: { reason?: string }): Promise<TaskRecord>;
  /** One dispatcher tick (or what it would do, with `dryRun`). */
  dispatch(request: DispatchRequest): Promise<DispatchReport>;
  /** A board as columns of cards (archived ones too with `archived`). */
  columns(board: string, options?: { archived?: boolean }): Promise<BoardView>;
  /** The boards. */
  boards(): Promise<Board[]>;
  /** Creates a board. */
  createBoard(slug: string): Promise<Board>;
  /** Removes a board (its tasks are kept). */
  removeBoard(slug: string): Promise<void>;
}

/** Opens the board for `work` and closes it after, whatever happens. */
export type KanbanOpener = <T>(work: (kanban: KanbanService) => Promise<T>) => Promise<T>;
