/**
 * The kanban dispatcher's hands: starting a worker for a claimed task,
 * watching it, telling whether a worker started elsewhere still runs, and
 * stopping one. A worker is Herald itself, `herald -p <assignee> kanban
 * work <task>`, at the head of its own process group
 * (adapters/process/spawn_group.ts), its output appended to
 * `<root>/kanban/logs/<task>.log`, with the task, its claim lock and its
 * board in its environment. A worker this process started is watched: its
 * exit is judged at once (core/kanban/dispatch.ts settleWorkerExit). One
 * started by another process is recognised by its process (its command
 * line names the task), never by a bare pid, so a reused pid is never
 * taken for it or signalled.
 *
 * @module
 */

import { join } from "node:path";
import type { ProcessEnv } from "../../core/config/mod.ts";
import { errorText } from "../../core/errors.ts";
import { settleWorkerExit, type WatchedWorker } from "../../core/kanban/dispatch.ts";
import type { TaskRecord } from "../../core/kanban/mod.ts";
import type { KanbanDispatcher } from "../../core/usecases/kanban.ts";
import { kanbanDbPath } from "../home/mod.ts";
import { openSqliteBoard } from "../kanban/mod.ts";
import { heraldCommand } from "../process/herald_command.ts";
import { type ProcessGroup, spawnProcessGroup } from "../process/spawn_group.ts";
import { processGroupOf } from "../channels/gateway_files.ts";

/** The variables that tell a worker its task, its claim and its board. */
export const WORKER_ENV = {
  task: "HERALD_KANBAN_TASK",
  claim: "HERALD_KANBAN_CLAIM",
  board: "HERALD_KANBAN_BOARD",
} as const;

/** Variables a worker never inherits. */
const WITHHELD_ENV = ["HERALD_DASHBOARD_SESSION_TOKEN"];

/** A worker's log is moved aside (one backup) when it grows past this. */
const LOG_ROTATE_BYTES = 2 * 1024 * 1024;

/** How long a stopped worker gets between SIGTERM and SIGKILL (ms). */
const STOP_GRACE_MS = 5_000;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Options of {@link createWorkerSupervisor}. */
export interface WorkerSupervisorOptions {
  /** The Herald root (`HERALD_HOME` of every worker; `kanban.db` lives here). */
  root: string;
  /** The environment workers start from (the dashboard's session token is withheld). */
  env: ProcessEnv;
  /** The command that runs Herald (default: this process's own). */
  command?: readonly string[];
  /** Takes one log line. */
  log?: (line: string) => void;
  /**
   * True for a dispatcher that exits after its tick (`herald kanban
   * dispatch`): workers are left running and judged by whoever looks next.
   */
  detach?: boolean;
  /** Failures in a row before a task is blocked, for judging a watched worker's exit. */
  failureLimit?: () => Promise<number>;
}

/** The dispatcher's hands (everything of {@link KanbanDispatcher} but its settings). */
export interface WorkerSupervisor extends Omit<KanbanDispatcher, "settings"> {
  /** Resolves when every watched worker's exit has been judged (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops watching; workers keep running. */
  close(): void;
}

interface Watched extends WatchedWorker {
  group: ProcessGroup;
  settled: Promise<void>;
}

/**
 * A supervisor for workers under `options.root`.
 *
 * @example
 * ```ts
 * const supervisor = createWorkerSupervisor({ root, env: Deno.env.toObject(), log: console.log });
 * const pid = await supervisor.spawn(task, supervisor.newLock());
 * ```
 */
export function createWorkerSupervisor(options: WorkerSupervisorOptions): WorkerSupervisor {
  const host = Deno.hostname();
  const log = options.log ?? (() => {});
  const watched = new Map<string, Watched>();
  let closed = false;

  const settle = async (worker: Watched, code: number) => {
    if (closed) return;
    const board = openSqliteBoard(kanbanDbPath(options.root));
    try {
      const limit = await (options.failureLimit?.() ?? Promise.resolve(2));
      const outcome = await settleWorkerExit(
        board,
        { taskId: worker.taskId, lock: worker.lock, pid: worker.group.pid },
        code,
        limit,
      );
      log(
        `kanban: the worker of ${worker.taskId} exited (code ${code})` +
          (outcome ? `; the attempt ended ${outcome}` : ""),
      );
    } catch (error) {
      log(`kanban: judging the exit of ${worker.taskId}'s worker failed: ${errorText(error)}`);
    } finally {
      board.close();
    }
  };

  return {
    newLock: () => `${host}:${Deno.pid}:${crypto.randomUUID().slice(0, 8)}`,

    async workerAlive(lock, pid) {
      if (watched.has(lock)) return true;
      if (lock.split(":")[0] !== host || pid === null) return undefined;
      return await isWorker(pid, lock);
    },

    async stopWorker(lock, pid) {
      const mine = watched.get(lock);
      if (mine) return await mine.stop();
      if (pid === null || lock.split(":")[0] !== host || (await isWorker(pid, lock)) !== true) {
        return;
      }
      // Not our child: signal its group while it is still that worker, SIGKILL after the grace.
      const signal = (name: Deno.Signal) => {
        try {
          Deno.kill(-pid, name);
        } catch {
          // Gone already.
        }
      };
      signal("SIGTERM");
      const until = Date.now() + STOP_GRACE_MS;
      while (Date.now() < until && (await isWorker(pid, lock)) === true) await delay(100);
      if ((await isWorker(pid, lock)) === true) signal("SIGKILL");
      log(`kanban: stopped the worker ${pid} of claim ${lock}`);
    },

    async spawn(task: TaskRecord, lock: string) {
      const logs = join(options.root, "kanban", "logs");
      await Deno.mkdir(logs, { recursive: true, mode: 0o700 });
      const logPath = join(logs, `${task.id}.log`);
      await rotate(logPath);
      // The worker's output may quote what it read: only the owner reads it.
      (await Deno.open(logPath, { create: true, append: true, mode: 0o600 })).close();
      await Deno.chmod(logPath, 0o600);
      const [program, ...prefix] = options.command ?? heraldCommand();
      const env: Record<string, string> = {};
      for (const [name, value] of Object.entries(options.env)) {
        if (value !== undefined && !WITHHELD_ENV.includes(name)) env[name] = value;
      }
      env.HERALD_HOME = options.root;
      env[WORKER_ENV.task] = task.id;
      env[WORKER_ENV.claim] = lock;
      env[WORKER_ENV.board] = task.board;
      const group = spawnProcessGroup("/bin/sh", {
        args: [
          "-c",
          'log=$1; shift; exec "$@" >>"$log" 2>&1 </dev/null',
          "herald-kanban-worker",
          logPath,
          program,
          ...prefix,
          "-p",
          task.assignee,
          "kanban",
          "work",
          task.id,
        ],
        env,
        clearEnv: true,
        cwd: options.root,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      });
      if (options.detach) {
        group.child.unref();
        return group.pid;
      }
      const worker: Watched = {
        taskId: task.id,
        lock,
        group,
        stop: () => group.terminate({ graceMs: STOP_GRACE_MS }),
        settled: Promise.resolve(),
      };
      worker.settled = group.status.then(async (status) => {
        await settle(worker, status.code);
        watched.delete(lock);
      });
      watched.set(lock, worker);
      return group.pid;
    },

    watched: () => [...watched.values()],

    async idle() {
      while (watched.size > 0) {
        await Promise.all([...watched.values()].map((worker) => worker.settled));
      }
    },

    close() {
      closed = true;
      for (const worker of watched.values()) worker.group.child.unref();
      watched.clear();
    },
  };
}

/**
 * Whether `pid` is the head of a live worker for the claim `lock`: it
 * leads its own process group and its environment carries that claim (a
 * reused pid does not). False when the process is gone, a zombie, or not
 * that worker; undefined when this cannot be told (off Linux, or its
 * environment is not ours to read).
 */
async function isWorker(pid: number, lock: string): Promise<boolean | undefined> {
  if (Deno.build.os !== "linux") return undefined;
  const group = await processGroupOf(pid);
  if (group === undefined) return false;
  if (group !== pid) return false;
  let stat: string;
  try {
    stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  if (state === "Z" || state === "X") return false;
  let environ: string;
  try {
    environ = await Deno.readTextFile(`/proc/${pid}/environ`);
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? false : undefined;
  }
  return environ.split("\0").includes(`${WORKER_ENV.claim}=${lock}`);
}

/** Moves `path` to `path.1` when it has grown past {@link LOG_ROTATE_BYTES}. */
async function rotate(path: string): Promise<void> {
  try {
    if ((await Deno.stat(path)).size > LOG_ROTATE_BYTES) await Deno.rename(path, `${path}.1`);
  } catch {
    // No log yet.
  }
}
