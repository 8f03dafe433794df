/**
 * The kanban board store on SQLite (node:sqlite), behind core's
 * {@link BoardStore}. One `kanban.db` at the Herald root is shared by every
 * profile (the caller passes its path). WAL mode and a busy timeout let
 * several processes use it at once; every write is one `BEGIN IMMEDIATE`
 * transaction; a claim is one conditional UPDATE whose row count decides
 * who won, so two dispatchers never claim one task.
 *
 * @module
 */

import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { HeraldError } from "../../core/errors.ts";
import {
  type BoardStore,
  checkLink,
  type Claim,
  initialStatus,
  isFinished,
  newTaskId,
  parseBoardSlug,
  type TaskComment,
  type TaskEvent,
  type TaskFilter,
  type TaskLink,
  type TaskRecord,
  type TaskRun,
  type TaskStatus,
  type TaskSubscription,
} from "../../core/kanban/mod.ts";
import { checkNewTask, refuseUnless, requireBoard, required } from "./_checks.ts";
import { markBoardRemoved, refuseDefaultBoard, selectBoards, upsertBoard } from "./_boards.ts";
import { writeDecomposition } from "./_decompose.ts";
import {
  requireClaim,
  writeAttemptEnd,
  writeBlock,
  writeClaimExtension,
  writeEdit,
  writeMove,
  writePromotions,
  writeSubscription,
  writeSubscriptionCursor,
  writeWorker,
} from "./_lifecycle.ts";
import { immediate, migrate, openDatabase, toStoreError } from "../sqlite/mod.ts";
import { type EventRow, KANBAN_MIGRATIONS, plain, plainAll, TASK_COLUMNS } from "./_schema.ts";
import {
  addEvent,
  childIds,
  clearClaim,
  closeOpenRun,
  findTask,
  parentsFinished,
  promoteChildren,
  requireTask,
  setStatus,
} from "./_queries.ts";

/** Options of {@link openSqliteBoard}. */
export interface SqliteBoardOptions {
  /** The clock stamping every row and event (ms since the epoch; default `Date.now`). */
  now?: () => number;
}

/**
 * Opens (creating the file, not its folder) the board database at `dbPath`,
 * normally `<herald root>/kanban.db`, and brings its schema up to date.
 *
 * @throws StoreError when the file cannot be used (not a database, newer schema, locked).
 *
 * @example
 * ```ts
 * const board = openSqliteBoard(`${root}/kanban.db`);
 * const { task } = await board.createTask({ title: "Write the docs", assignee: "default" });
 * board.close();
 * ```
 */
export function openSqliteBoard(dbPath: string, options: SqliteBoardOptions = {}): BoardStore {
  const now = options.now ?? Date.now;
  const opened = openDatabase(dbPath);
  try {
    migrate(opened, dbPath, KANBAN_MIGRATIONS, now);
  } catch (error) {
    opened.close();
    throw error;
  }
  let open: DatabaseSync | undefined = opened;
  const use = <T>(work: (db: DatabaseSync) => T): Promise<T> => {
    try {
      if (!open) throw new Error("database is not open");
      return Promise.resolve(work(open));
    } catch (error) {
      return Promise.reject(toStoreError(dbPath, error));
    }
  };
  const write = <T>(work: (db: DatabaseSync, at: number) => T): Promise<T> =>
    use((db) => immediate(db, () => work(db, now())));

  return {
    createTask: async (input) => {
      const task = checkNewTask(input);
      return await write((db, at) => {
        requireBoard(db, task.board);
        if (task.idempotencyKey !== null) {
          const existing = db.prepare(
            `SELECT ${TASK_COLUMNS} FROM tasks WHERE board = ? AND idempotency_key = ? ` +
              "AND status <> 'archived' ORDER BY created_at DESC, rowid DESC LIMIT 1",
          ).get(task.board, task.idempotencyKey);
          if (existing) return { task: plain<TaskRecord>(existing), created: false };
        }
        const statuses = task.parents.map((id) => requireTask(db, id).status);
        const status = initialStatus({ parentStatuses: statuses, triage: task.triage });
        let id = newTaskId();
        while (findTask(db, id)) id = newTaskId();
        db.prepare(
          "INSERT INTO tasks (id, board, title, body, assignee, status, priority, created_by, " +
            "created_at, updated_at, idempotency_key, max_retries) " +
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ).run(
          id,
          task.board,
          task.title,
          task.body,
          task.assignee,
          status,
          task.priority,
          task.createdBy,
          at,
          at,
          task.idempotencyKey,
          task.maxRetries,
        );
        const link = db.prepare("INSERT INTO task_links (parent_id, child_id) VALUES (?, ?)");
        for (const parent of task.parents) link.run(parent, id);
        addEvent(db, id, "created", {
          assignee: task.assignee,
          status,
          parents: task.parents,
        }, at);
        return { task: requireTask(db, id), created: true };
      });
    },

    getTask: (id) => use((db) => findTask(db, id)),

    listTasks: (filter: TaskFilter = {}) =>
      use((db) => {
        const where: string[] = [];
        const args: SQLInputValue[] = [];
        if (filter.board !== undefined) {
          where.push("board = ?");
          args.push(parseBoardSlug(filter.board));
        }
        if (filter.status !== undefined) {
          where.push("status = ?");
          args.push(filter.status);
        }
        if (filter.assignee !== undefined) {
          where.push("assignee = ?");
          args.push(filter.assignee);
        }
        const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
        let limit = "";
        if (filter.limit !== undefined) {
          limit = " LIMIT ?";
          args.push(Math.max(0, Math.floor(filter.limit)));
        }
        return plainAll<TaskRecord>(
          db.prepare(
            `SELECT ${TASK_COLUMNS} FROM tasks ${clause} ORDER BY priority DESC, created_at, id` +
              limit,
          ).all(...args),
        );
      }),

    links: (taskId) =>
      use((db) =>
        plainAll<TaskLink>(
          db.prepare(
            "SELECT parent_id, child_id FROM task_links WHERE parent_id = ? OR child_id = ? " +
              "ORDER BY parent_id, child_id",
          ).all(taskId, taskId),
        )
      ),

    linkCounts: async (board) => {
      const slug = parseBoardSlug(board);
      return await use((db) => {
        const counts = new Map<string, { parents: number; children: number }>();
        const rows = db.prepare(
          "SELECT l.child_id AS id, 'parents' AS side, count(*) AS n FROM task_links l " +
            "JOIN tasks t ON t.id = l.child_id WHERE t.board = ? GROUP BY l.child_id " +
            "UNION ALL SELECT l.parent_id, 'children', count(*) FROM task_links l " +
            "JOIN tasks t ON t.id = l.parent_id WHERE t.board = ? GROUP BY l.parent_id",
        ).all(slug, slug) as { id: string; side: "parents" | "children"; n: number }[];
        for (const row of rows) {
          const entry = counts.get(row.id) ?? { parents: 0, children: 0 };
          entry[row.side] = row.n;
          counts.set(row.id, entry);
        }
        return counts;
      });
    },

    link: (parentId, childId) =>
      write((db, at) => {
        checkLink(parentId, childId, (id) => childIds(db, id));
        const parent = requireTask(db, parentId);
        const child = requireTask(db, childId);
        if (parent.board !== child.board) {
          throw new HeraldError(
            "kanban_link_board",
            "usage",
            `Task "${parentId}" is on board ${parent.board} and "${childId}" on ${child.board}; ` +
              "only tasks of one board can wait for each other",
            { details: { parent: parentId, child: childId } },
          );
        }
        const added = db.prepare(
          "INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)",
        ).run(parentId, childId);
        if (added.changes === 0) return;
        if (child.status === "ready" && !isFinished(parent.status)) {
          setStatus(db, childId, "todo", at);
        }
        addEvent(db, childId, "linked", { parent: parentId, child: childId }, at);
      }),

    unlink: (parentId, childId) =>
      write((db, at) => {
        const removed = db.prepare(
          "DELETE FROM task_links WHERE parent_id = ? AND child_id = ?",
        ).run(parentId, childId);
        if (removed.changes === 0) return false;
        addEvent(db, childId, "unlinked", { parent: parentId, child: childId }, at);
        const child = findTask(db, childId);
        if (child?.status === "todo" && parentsFinished(db, childId)) {
          setStatus(db, childId, "ready", at);
          addEvent(db, childId, "promoted", { status: "ready" }, at);
        }
        return true;
      }),

    comment: async (taskId, author, body) => {
      const who = required(author, "A comment's author");
      const text = required(body, "A comment");
      return await write((db, at) => {
        requireTask(db, taskId);
        const inserted = db.prepare(
          "INSERT INTO task_comments (task_id, author, body, created_at) VALUES (?, ?, ?, ?)",
        ).run(taskId, who, text, at);
        addEvent(db, taskId, "commented", { author: who, len: text.length }, at);
        return {
          id: Number(inserted.lastInsertRowid),
          task_id: taskId,
          author: who,
          body: text,
          created_at: at,
        };
      });
    },

    comments: (taskId) =>
      use((db) =>
        plainAll<TaskComment>(
          db.prepare(
            "SELECT id, task_id, author, body, created_at FROM task_comments WHERE task_id = ? " +
              "ORDER BY id",
          ).all(taskId),
        )
      ),

    lastEventSeq: () =>
      use((db) =>
        Number(
          (db.prepare("SELECT max(seq) AS seq FROM task_events").get() as {
            seq: number | null;
          }).seq ?? 0,
        )
      ),

    events: (taskId, afterSeq = 0) =>
      use((db) => {
        const rows = (taskId === undefined
          ? db.prepare("SELECT * FROM task_events WHERE seq > ? ORDER BY seq").all(afterSeq)
          : db.prepare("SELECT * FROM task_events WHERE task_id = ? AND seq > ? ORDER BY seq")
            .all(taskId, afterSeq)) as unknown as EventRow[];
        return rows.map((row): TaskEvent => ({
          ...row,
          payload: row.payload === null ? null : JSON.parse(row.payload),
        }));
      }),

    runs: (taskId) =>
      use((db) =>
        plainAll<TaskRun>(
          db.prepare(
            "SELECT id, task_id, claim_lock, worker_pid, started_at, ended_at, outcome, error " +
              "FROM task_runs WHERE task_id = ? ORDER BY id",
          ).all(taskId),
        )
      ),

    assign: async (id, assignee) => {
      const name = required(assignee, "An assignee").toLowerCase();
      return await write((db, at) => {
        const task = requireTask(db, id);
        if (task.status === "running") {
          throw new HeraldError(
            "kanban_task_running",
            "conflict",
            `Task "${id}" is running under a claim and cannot be reassigned; ` +
              "block or archive it first",
            { details: { task: id } },
          );
        }
        if (task.assignee === name) return task;
        db.prepare(
          "UPDATE tasks SET assignee = ?, consecutive_failures = 0, updated_at = ? WHERE id = ?",
        ).run(name, at, id);
        addEvent(db, id, "assigned", { assignee: name }, at);
        return requireTask(db, id);
      });
    },

    complete: (id, result, options = {}) =>
      write((db, at) => {
        const task = requireTask(db, id);
        if (options.lock !== undefined) requireClaim(task, options.lock);
        refuseUnless(task, ["running", "ready", "blocked"], "completed");
        db.prepare(
          "UPDATE tasks SET status = 'done', result = ?, completed_at = ?, updated_at = ?, " +
            "consecutive_failures = 0, block_kind = NULL, block_recurrences = 0, " +
            "last_failure_error = NULL WHERE id = ?",
        ).run(result, at, at, id);
        clearClaim(db, id);
        closeOpenRun(db, id, "completed", at);
        addEvent(db, id, "completed", { result_len: result.length }, at);
        const promoted = promoteChildren(db, id, at);
        return { task: requireTask(db, id), promoted };
      }),

    block: (id, reason, options = {}) => write((db, at) => writeBlock(db, id, reason, options, at)),

    unblock: (id) =>
      write((db, at) => {
        const task = requireTask(db, id);
        refuseUnless(task, ["blocked"], "unblocked");
        const status: TaskStatus = parentsFinished(db, id) ? "ready" : "todo";
        db.prepare(
          "UPDATE tasks SET status = ?, consecutive_failures = 0, last_failure_error = NULL, " +
            "updated_at = ? WHERE id = ?",
        ).run(status, at, id);
        addEvent(db, id, "unblocked", { status }, at);
        return requireTask(db, id);
      }),

    archive: (id) =>
      write((db, at) => {
        const task = requireTask(db, id);
        if (task.status === "archived") return task;
        setStatus(db, id, "archived", at);
        clearClaim(db, id);
        closeOpenRun(db, id, "reclaimed", at, "task archived with run still active");
        addEvent(db, id, "archived", { source_status: task.status }, at);
        promoteChildren(db, id, at);
        return requireTask(db, id);
      }),

    claim: (id, claim: Claim) =>
      write((db, at) => {
        const won = db.prepare(
          "UPDATE tasks SET status = 'running', claim_lock = ?, claim_expires = ?, " +
            "worker_pid = ?, heartbeat_at = ?, started_at = coalesce(started_at, ?), " +
            "updated_at = ? " +
            "WHERE id = ? AND status = 'ready' " +
            "AND (claim_lock IS NULL OR coalesce(claim_expires, 0) <= ?) " +
            "AND NOT EXISTS (SELECT 1 FROM task_links l JOIN tasks p ON p.id = l.parent_id " +
            "WHERE l.child_id = tasks.id AND p.status NOT IN ('done', 'archived'))",
        ).run(claim.lock, claim.expiresAt, claim.pid ?? null, at, at, at, id, at);
        if (won.changes !== 1) return false;
        const run = db.prepare(
          "INSERT INTO task_runs (task_id, claim_lock, worker_pid, started_at) VALUES (?, ?, ?, ?)",
        ).run(id, claim.lock, claim.pid ?? null, at);
        addEvent(db, id, "claimed", {
          lock: claim.lock,
          expires: claim.expiresAt,
          run_id: Number(run.lastInsertRowid),
        }, at);
        return true;
      }),

    heartbeat: (id, lock, expiresAt, note) =>
      write((db, at) => {
        const held = db.prepare(
          "UPDATE tasks SET claim_expires = ?, heartbeat_at = ?, updated_at = ? " +
            "WHERE id = ? AND status = 'running' AND claim_lock = ?",
        ).run(expiresAt, at, at, id, lock);
        if (held.changes !== 1) return false;
        addEvent(db, id, "heartbeat", {
          expires: expiresAt,
          ...(note?.trim() ? { note: note.trim().slice(0, 500) } : {}),
        }, at);
        return true;
      }),

    recordWorker: (id, lock, pid) => write((db, at) => writeWorker(db, id, lock, pid, at)),

    extendClaim: (id, lock, expiresAt, reason) =>
      write((db, at) => writeClaimExtension(db, id, lock, expiresAt, reason, at)),

    endAttempt: (id, end) => write((db, at) => writeAttemptEnd(db, id, end, at)),

    promoteReady: async (board) => {
      const slug = board === undefined ? undefined : parseBoardSlug(board);
      return await write((db, at) => writePromotions(db, slug, at));
    },

    edit: (id, changes) => write((db, at) => writeEdit(db, id, changes, at)),

    move: (id, to, actor) => write((db, at) => writeMove(db, id, to, actor, at)),

    subscribe: (subscription) => write((db, at) => writeSubscription(db, subscription, at)),

    subscriptions: (profile) =>
      use((db) =>
        plainAll<TaskSubscription>(
          (profile === undefined
            ? db.prepare("SELECT * FROM task_subscriptions ORDER BY created_at, task_id")
            : db.prepare(
              "SELECT * FROM task_subscriptions WHERE profile = ? ORDER BY created_at, task_id",
            ))
            .all(...(profile === undefined ? [] : [profile])),
        )
      ),

    advanceSubscription: (key, seq, done) =>
      write((db) => writeSubscriptionCursor(db, key, seq, done)),

    recordEvent: (taskId, kind, payload) =>
      write((db, at) => {
        requireTask(db, taskId);
        const seq = addEvent(db, taskId, required(kind, "An event's kind"), payload, at);
        return { seq, task_id: taskId, kind, payload, at };
      }),

    commitDecomposition: (plan) => write((db, at) => writeDecomposition(db, plan, at)),

    listBoards: () => use(selectBoards),

    createBoard: async (input, name) => {
      const slug = parseBoardSlug(input);
      return await write((db, at) => upsertBoard(db, slug, name, at));
    },

    removeBoard: async (input) => {
      const slug = parseBoardSlug(input);
      refuseDefaultBoard(slug);
      return await write((db, at) => markBoardRemoved(db, slug, at));
    },

    close() {
      const closing = open;
      open = undefined;
      closing?.close();
    },
  };
}
