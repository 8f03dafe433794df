/**
 * What the Kanban page reads and writes (`/api/plugins/kanban`, see
 * docs/dashboard.md) and the live refresh: the board's events arrive as
 * `kanban.event` over `/api/ws` whichever process wrote them (a worker,
 * the CLI, this page), and the page reloads what they touch.
 */

import { api, ApiError } from "../lib/api.ts";
import { DAY_TIME, timeFormat } from "../lib/time.ts";
import { useEventStream } from "../lib/use_events.ts";
import type {
  TaskComment,
  TaskEvent,
  TaskRecord,
  TaskRun,
  TaskStatus,
} from "../../../../core/kanban/board.ts";
import type { BoardView, KanbanCard, TaskDetail } from "../../../../core/kanban/service.ts";

export type {
  BoardView,
  KanbanCard,
  TaskComment,
  TaskDetail,
  TaskEvent,
  TaskRecord,
  TaskRun,
  TaskStatus,
};

const BASE = "/api/plugins/kanban";

/** The board's columns in order, with their headings. */
export const COLUMN_LABELS: Record<TaskStatus, string> = {
  triage: "Triage",
  todo: "Todo",
  ready: "Ready",
  running: "Running",
  blocked: "Blocked",
  done: "Done",
  archived: "Archived",
};

/** `GET /orchestration`. */
export interface Orchestration {
  orchestrator_profile: string | null;
  default_assignee: string | null;
  auto_decompose: boolean;
  resolved: { orchestrator_profile: string; default_assignee: string };
}

/** A profile as the roster lists it. */
export interface RosterProfile {
  name: string;
  description: string;
}

/** A board's slug and name. */
export interface BoardInfo {
  slug: string;
  name: string;
}

/** The body of `POST /tasks`. */
export interface NewTask {
  title: string;
  body?: string;
  assignee?: string;
  priority?: number;
  triage?: boolean;
}

/** The changes `PATCH /tasks/:id` takes. */
export interface TaskChanges {
  title?: string;
  body?: string;
  priority?: number;
  assignee?: string;
  status?: TaskStatus;
  reason?: string;
}

/** What a decomposition did (`ok: false` carries the code and message). */
export type DecomposeAnswer =
  | { ok: true; task_id: string; fanout: boolean; child_ids: string[]; message: string }
  | { ok: false; task_id: string; code: string; message: string };

/** The board's columns (archived too, with `archived`). */
export function loadBoard(
  board: string,
  archived: boolean,
  signal?: AbortSignal,
): Promise<BoardView> {
  return api<BoardView>("GET", `${BASE}/board`, {
    query: { board, archived: archived ? 1 : undefined },
    signal,
  });
}

/** The boards. */
export async function loadBoards(signal?: AbortSignal): Promise<BoardInfo[]> {
  return (await api<{ boards: BoardInfo[] }>("GET", `${BASE}/boards`, { signal })).boards;
}

/** One task in full. */
export function loadTask(id: string, signal?: AbortSignal): Promise<TaskDetail> {
  return api<TaskDetail>("GET", `${BASE}/tasks/${encodeURIComponent(id)}`, { signal });
}

/** The profiles a task can go to. */
export async function loadRoster(signal?: AbortSignal): Promise<RosterProfile[]> {
  return (await api<{ profiles: RosterProfile[] }>("GET", `${BASE}/profiles`, { signal }))
    .profiles;
}

/** The orchestration settings and what they resolve to. */
export function loadOrchestration(signal?: AbortSignal): Promise<Orchestration> {
  return api<Orchestration>("GET", `${BASE}/orchestration`, { signal });
}

/** Turns automatic decomposition on or off. */
export function setAutoDecompose(on: boolean): Promise<Orchestration> {
  return api<Orchestration>("PUT", `${BASE}/orchestration`, { body: { auto_decompose: on } });
}

/** Creates a task on `board`. */
export async function createTask(board: string, task: NewTask): Promise<TaskRecord> {
  return (await api<{ task: TaskRecord }>("POST", `${BASE}/tasks`, {
    query: { board },
    body: task,
  })).task;
}

/** Edits or moves a task (a move the board refuses rejects with its message). */
export async function changeTask(id: string, changes: TaskChanges): Promise<TaskRecord> {
  return (await api<{ task: TaskRecord }>("PATCH", `${BASE}/tasks/${encodeURIComponent(id)}`, {
    body: changes,
  })).task;
}

/** Adds a comment by the selected profile. */
export async function addComment(id: string, body: string): Promise<TaskComment> {
  return (await api<{ comment: TaskComment }>(
    "POST",
    `${BASE}/tasks/${encodeURIComponent(id)}/comments`,
    { body: { body } },
  )).comment;
}

/** Runs the decomposer on a triage task; a refusal is an `ok: false` answer, not a throw. */
export async function decomposeTask(id: string): Promise<DecomposeAnswer> {
  try {
    return await api<DecomposeAnswer>(
      "POST",
      `${BASE}/tasks/${encodeURIComponent(id)}/decompose`,
    );
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 0) throw error;
    return { ok: false, task_id: id, code: error.code, message: error.message };
  }
}

/** A `kanban.event` as the page uses it. */
export interface KanbanLiveEvent {
  board: string;
  task_id: string;
  kind: string;
  event_seq: number;
}

/** How often a lost subscription is tried again (and the board reloaded). */
const RESUBSCRIBE_MS = 10_000;

/** The event types the page watches. */
const KANBAN_EVENTS = ["kanban.event"];

/**
 * Calls `onEvent` for every `kanban.event` (the board's log, whoever wrote
 * it). A dropped connection is watched again within {@link RESUBSCRIBE_MS},
 * with `onEvent(null)` so the page reloads what it missed. Returns whether
 * the events are being watched.
 */
export function useKanbanLive(onEvent: (event: KanbanLiveEvent | null) => void): boolean {
  // The board is every profile's: no profile filter.
  return useEventStream(KANBAN_EVENTS, onEvent, {
    retryMs: RESUBSCRIBE_MS,
    reloadOnReconnect: true,
  });
}

/** A time as people read it: `5 Jan, 07:30`. */
export const formatTime: (at: number) => string = timeFormat(DAY_TIME);
