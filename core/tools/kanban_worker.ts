/**
 * The kanban worker tools, offered only to a profile started on a task
 * (`HERALD_KANBAN_TASK` in its environment): `kanban_show`,
 * `kanban_complete`, `kanban_block`, `kanban_heartbeat`, `kanban_comment`,
 * `kanban_create` and `kanban_link`. Completing, blocking and heartbeats
 * act only on the worker's own task and pass its claim lock, so a worker
 * whose claim was taken (reclaimed, moved, archived) cannot finish it.
 * Comments and created tasks are always by the profile: the model cannot
 * name another author. New tasks go through the same use case as `herald
 * kanban create` (the port's `createTask`), which resolves the assignee;
 * one attempt creates at most {@link MAX_CREATES_PER_ATTEMPT}. A worker
 * makes only its own task, or one its profile created, wait for another:
 * it cannot hold back the rest of the board. These bounds keep a confused
 * model in its lane; they are no security boundary (a worker runs with the
 * profile's tools, and the terminal can reach the board file).
 *
 * @module
 */

import { z } from "zod";
import { HeraldError } from "../errors.ts";
import { BLOCK_KINDS, type BoardStore, DEFAULT_BOARD, type TaskRecord } from "../kanban/mod.ts";
import type { CreateTaskInput, CreateTaskResult } from "../kanban/service.ts";
import { workerContext } from "./_kanban_context.ts";
import { defineTypedTool, type Tool, ToolError } from "./types.ts";

/** The most tasks one worker attempt may create with kanban_create. */
export const MAX_CREATES_PER_ATTEMPT = 20;

/** The board operations the worker tools use. */
export type KanbanWorkerBoard = Pick<
  BoardStore,
  | "getTask"
  | "links"
  | "comments"
  | "runs"
  | "complete"
  | "block"
  | "heartbeat"
  | "comment"
  | "link"
>;

/** The board the tools work on, opened when a tool first needs it. */
export interface KanbanWorkerPorts {
  readonly board: KanbanWorkerBoard;
  /** Creates a task as `herald kanban create` does (assignee resolved, created by the profile). */
  createTask(input: CreateTaskInput): Promise<CreateTaskResult>;
}

/** Who the worker is and what it works on. */
export interface KanbanWorkerScope {
  /** The worker's own task (`HERALD_KANBAN_TASK`). */
  taskId: string;
  /**
   * The claim the worker runs under (`HERALD_KANBAN_CLAIM`). Absent (a
   * person started a chat on the task): completing and blocking work
   * without a claim check, as `herald kanban complete` does, and there is
   * no claim to extend.
   */
  lock?: string;
  /** The board new tasks go to (`HERALD_KANBAN_BOARD`); absent: the own task's board. */
  board?: string;
  /** The profile: the author of comments and the creator of tasks. */
  actor: string;
  /** How far a heartbeat extends the claim (`kanban.claim_ttl_seconds` in ms). */
  claimTtlMs: number;
  /** The clock (ms since the epoch). */
  now: () => number;
}

const showArgs = z.object({
  task_id: z.string().optional().describe(
    "The task to show (t_...); default: your own task.",
  ),
});

const completeArgs = z.object({
  summary: z.string().optional().describe(
    "Two to five lines for the next reader: what you did, where the results are (paths, links, " +
      "task ids), how you checked them.",
  ),
  result: z.string().optional().describe(
    "The full answer when the task asked a question or wants a deliverable as text.",
  ),
});

const blockArgs = z.object({
  reason: z.string().describe(
    "What is missing and who can provide it (a decision, a credential, another task's output).",
  ),
  kind: z.enum(BLOCK_KINDS).optional().describe(
    "needs_input: a person must decide or provide something; dependency: another task must " +
      "finish first; capability: this profile lacks a tool or permission; transient: an outage " +
      "worth retrying later.",
  ),
});

const heartbeatArgs = z.object({
  note: z.string().optional().describe("A short note on progress (kept in the task's event log)."),
});

const commentArgs = z.object({
  task_id: z.string().optional().describe(
    "The task to comment on (t_...); default: your own task.",
  ),
  body: z.string().describe("The comment's text."),
});

const createArgs = z.object({
  title: z.string().describe("A short imperative title (Write the CSV export)."),
  assignee: z.string().optional().describe(
    "The profile to do it; an unknown or missing one becomes the board's default assignee.",
  ),
  body: z.string().optional().describe(
    "Self-contained instructions: the goal, the approach and checkable acceptance criteria (the " +
      "worker sees only its task and its parents' results).",
  ),
  parents: z.array(z.string()).optional().describe(
    "Ids of the tasks it waits for (t_...); it becomes ready when they are all done.",
  ),
  priority: z.number().int().optional().describe("Higher runs first; default 0."),
});

const linkArgs = z.object({
  parent_id: z.string().describe("The task that must finish first (t_...)."),
  child_id: z.string().describe("The task that waits for it (t_...)."),
});

/** What the tools say about a task. */
export interface TaskBrief {
  id: string;
  board: string;
  title: string;
  status: TaskRecord["status"];
  assignee: string;
  priority: number;
  created_by: string | null;
  result: string | null;
  consecutive_failures: number;
}

/** The small view of `task` the tools return (its body is in `worker_context`). */
function brief(task: TaskRecord): TaskBrief {
  return {
    id: task.id,
    board: task.board,
    title: task.title,
    status: task.status,
    assignee: task.assignee,
    priority: task.priority,
    created_by: task.created_by,
    result: task.result,
    consecutive_failures: task.consecutive_failures,
  };
}

/** `value` trimmed, or a tool error saying `field` is needed. */
function needed(value: string | undefined, field: string, tool: string): string {
  const text = value?.trim() ?? "";
  if (text === "") throw new ToolError("kanban_args", `${tool} needs ${field}`);
  return text;
}

/** Runs `work`, turning the store's errors into errors the model reads. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HeraldError) throw new ToolError(error.code, error.message);
    throw error;
  }
}

/**
 * The seven kanban worker tools for the worker `scope`, over the board
 * `open` gives (called on each use; the caller opens it once and closes
 * it with the runtime).
 *
 * @example
 * ```ts
 * const tools = createKanbanWorkerTools(
 *   { taskId: "t_1a2b3c4d", lock, actor: "coder", claimTtlMs: 900_000, now: Date.now },
 *   () => Promise.resolve({ board, createTask: (input) => createTask(context, input) }),
 * );
 * ```
 */
export function createKanbanWorkerTools(
  scope: KanbanWorkerScope,
  open: () => Promise<KanbanWorkerPorts>,
): Tool[] {
  const own = scope.taskId;
  const lockOption = scope.lock === undefined ? {} : { lock: scope.lock };
  let created = 0;

  const requireTask = async (board: KanbanWorkerBoard, id: string): Promise<TaskRecord> => {
    const task = await board.getTask(id);
    if (!task) {
      throw new ToolError("not_found", `Task "${id}" not found; task ids look like t_1a2b3c4d`);
    }
    return task;
  };

  const show = defineTypedTool({
    name: "kanban_show",
    description: "Read a kanban task in full: its title, body, status, prior attempts, the " +
      "results of the tasks it waits for and its comments (as `worker_context` markdown). Call " +
      "it first on your own task.",
    schema: showArgs,
    readOnly: true,
    run: (args) =>
      guarded(async () => {
        const { board } = await open();
        const id = args.task_id?.trim() || own;
        const task = await requireTask(board, id);
        const [links, runs, comments] = await Promise.all([
          board.links(id),
          board.runs(id),
          board.comments(id),
        ]);
        const parentIds = links.filter((link) => link.child_id === id).map((l) => l.parent_id);
        const children = links.filter((link) => link.parent_id === id).map((l) => l.child_id);
        const parents = (await Promise.all(parentIds.map((parent) => board.getTask(parent))))
          .filter((parent): parent is TaskRecord => parent !== undefined);
        return {
          task: brief(task),
          yours: id === own,
          parents: parentIds,
          children,
          worker_context: workerContext({
            task,
            runs,
            parents,
            children,
            comments,
            now: scope.now(),
          }),
        };
      }),
  });

  const complete = defineTypedTool({
    name: "kanban_complete",
    description: "Mark your own task done with a summary of the work (and the full result when " +
      "it asked for one). Its waiting tasks start. Call it once, as your last step, after " +
      "checking the work; then stop.",
    schema: completeArgs,
    run: (args) =>
      guarded(async () => {
        const summary = args.summary?.trim() ?? "";
        const result = args.result?.trim() ?? "";
        if (summary === "" && result === "") {
          throw new ToolError("kanban_args", "kanban_complete needs a summary or a result");
        }
        const text = summary !== "" && result !== ""
          ? `${summary}\n\n${result}`
          : summary || result;
        const { board } = await open();
        const done = await board.complete(own, text, lockOption);
        return {
          task_id: own,
          status: done.task.status,
          promoted: done.promoted.map((task) => task.id),
          note: "The task is done; end your turn now.",
        };
      }),
  });

  const block = defineTypedTool({
    name: "kanban_block",
    description: "Park your own task as blocked when you cannot finish it, with the reason and " +
      "what would unblock it. Then stop. A clear block is better than an unfinished turn.",
    schema: blockArgs,
    run: (args) =>
      guarded(async () => {
        const reason = needed(args.reason, "a reason", "kanban_block");
        const { board } = await open();
        const task = await board.block(own, reason, {
          ...lockOption,
          ...(args.kind === undefined ? {} : { kind: args.kind }),
        });
        return {
          task_id: own,
          status: task.status,
          note: task.status === "triage"
            ? "Blocked for input twice in a row: the task went back to triage for a person."
            : "The task is blocked; end your turn now.",
        };
      }),
  });

  const heartbeat = defineTypedTool({
    name: "kanban_heartbeat",
    description: "Tell the board you are still working on your own task (extends your claim). " +
      "Call it every few minutes during long work.",
    schema: heartbeatArgs,
    run: (args) =>
      guarded(async () => {
        if (scope.lock === undefined) {
          throw new ToolError(
            "kanban_no_claim",
            "This run holds no claim on the task (it was not started by the dispatcher); " +
              "there is nothing to extend",
          );
        }
        const { board } = await open();
        const expires = scope.now() + scope.claimTtlMs;
        const note = args.note?.trim();
        const held = await board.heartbeat(own, scope.lock, expires, note || undefined);
        if (!held) {
          throw new ToolError(
            "kanban_claim_lost",
            `Task "${own}" is no longer held by this worker's claim; stop working on it`,
          );
        }
        return { task_id: own, claim_expires: new Date(expires).toISOString() };
      }),
  });

  const comment = defineTypedTool({
    name: "kanban_comment",
    description: "Add a comment to a task (default: your own), signed by your profile: findings " +
      "the next attempt or a person should know, a question, a hand-off note.",
    schema: commentArgs,
    run: (args) =>
      guarded(async () => {
        const text = needed(args.body, "a body", "kanban_comment");
        const { board } = await open();
        const id = args.task_id?.trim() || own;
        await requireTask(board, id);
        const made = await board.comment(id, scope.actor, text);
        return { task_id: id, comment_id: made.id, author: made.author };
      }),
  });

  const create = defineTypedTool({
    name: "kanban_create",
    description: "Create a new task on the board for a profile (follow-up work, a missing " +
      "piece). It is ready at once, or waits for its parents. Use kanban_link to make an " +
      "existing task wait for it.",
    schema: createArgs,
    run: (args) =>
      guarded(async () => {
        const title = needed(args.title, "a title", "kanban_create");
        if (created >= MAX_CREATES_PER_ATTEMPT) {
          throw new ToolError(
            "kanban_create_limit",
            `This attempt has created ${created} tasks, the most one attempt may; finish your ` +
              "task, or block it with kanban_block saying what is left so a person can split it",
          );
        }
        const ports = await open();
        const board = scope.board ?? (await ports.board.getTask(own))?.board ?? DEFAULT_BOARD;
        const made = await ports.createTask({
          title,
          board,
          ...(args.body === undefined ? {} : { body: args.body }),
          ...(args.assignee === undefined ? {} : { assignee: args.assignee }),
          ...(args.parents === undefined
            ? {}
            : { parents: args.parents.map((parent) => parent.trim()) }),
          ...(args.priority === undefined ? {} : { priority: args.priority }),
        });
        created++;
        return {
          task_id: made.task.id,
          status: made.task.status,
          assignee: made.task.assignee,
          ...(made.requested_assignee === null ? {} : {
            note: `No profile "${made.requested_assignee}": assigned to ${made.task.assignee}`,
          }),
        };
      }),
  });

  const link = defineTypedTool({
    name: "kanban_link",
    description: "Make one task wait for another: child_id starts only when parent_id is done. " +
      "child_id must be your own task or one your profile created; a link that would close a " +
      "cycle is refused.",
    schema: linkArgs,
    run: (args) =>
      guarded(async () => {
        const parent = needed(args.parent_id, "parent_id", "kanban_link");
        const child = needed(args.child_id, "child_id", "kanban_link");
        const { board } = await open();
        await requireTask(board, parent);
        const waiting = await requireTask(board, child);
        if (child !== own && waiting.created_by !== scope.actor) {
          throw new ToolError(
            "kanban_link_scope",
            `Task "${child}" is neither your own task nor one ${scope.actor} created; a worker ` +
              "can only make those wait. To hold it back, say so with kanban_comment",
          );
        }
        await board.link(parent, child);
        const task = await requireTask(board, child);
        return { parent_id: parent, child_id: child, child_status: task.status };
      }),
  });

  return [show, complete, block, heartbeat, comment, create, link] as Tool[];
}
