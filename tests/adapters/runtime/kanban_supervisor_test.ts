/**
 * The kanban worker supervisor with real process groups: a `/bin/sh`
 * script stands in for `herald kanban work` (the supervisor appends
 * `-p <assignee> kanban work <id>` to the command it is given). A worker
 * gets the claim and the task in its environment but never the
 * dashboard's session token, and its log is the owner's alone; another
 * supervisor on the same host recognises it by its environment, stops its
 * whole group and is never fooled by a process that merely has its pid; a
 * watched worker's exit is judged on the board.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { kanbanDbPath } from "../../../adapters/home/mod.ts";
import { openSqliteBoard } from "../../../adapters/kanban/mod.ts";
import { createWorkerSupervisor } from "../../../adapters/runtime/kanban_supervisor.ts";
import { spawnProcessGroup } from "../../../adapters/process/spawn_group.ts";
import type { TaskRecord } from "../../../core/kanban/mod.ts";
import { tempDir } from "../../_helpers.ts";

const linux = Deno.build.os === "linux";

/** A command whose script runs with `$0` = "worker" and `$@` = `-p <assignee> kanban work <id>`. */
function script(body: string): string[] {
  return ["/bin/sh", "-c", body, "worker"];
}

/** Whether `pid` is a live, non-zombie process. */
function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A root with a board holding one task claimed under `lock`. */
async function claimedTask(root: string, lock: string): Promise<TaskRecord> {
  const board = openSqliteBoard(kanbanDbPath(root));
  try {
    const { task } = await board.createTask({ title: "Work", assignee: "coder" });
    assert.ok(await board.claim(task.id, { lock, expiresAt: Date.now() + 60_000 }));
    return (await board.getTask(task.id))!;
  } finally {
    board.close();
  }
}

Deno.test({
  name: "a worker gets its claim but not the session token, and its log is the owner's alone",
  ignore: !linux,
  fn: async () => {
    await using dir = await tempDir();
    const root = dir.path;
    const out = join(root, "env.txt");
    const supervisor = createWorkerSupervisor({
      root,
      env: { PATH: Deno.env.get("PATH"), HERALD_DASHBOARD_SESSION_TOKEN: "s3cret", KEEP: "yes" },
      command: script(`env > "${out}"; echo "args: $*"; echo oops >&2`),
    });
    const lock = supervisor.newLock();
    const task = await claimedTask(root, lock);
    const pid = await supervisor.spawn(task, lock);
    assert.ok(pid > 0);
    await supervisor.idle();
    supervisor.close();

    const env = Object.fromEntries(
      (await Deno.readTextFile(out)).trim().split("\n").map((line) => {
        const at = line.indexOf("=");
        return [line.slice(0, at), line.slice(at + 1)];
      }),
    );
    assert.equal(env.HERALD_KANBAN_TASK, task.id);
    assert.equal(env.HERALD_KANBAN_CLAIM, lock);
    assert.equal(env.HERALD_KANBAN_BOARD, "default");
    assert.equal(env.HERALD_HOME, root);
    assert.equal(env.KEEP, "yes");
    assert.equal(env.HERALD_DASHBOARD_SESSION_TOKEN, undefined);

    const logPath = join(root, "kanban", "logs", `${task.id}.log`);
    assert.equal(
      await Deno.readTextFile(logPath),
      `args: -p coder kanban work ${task.id}\noops\n`,
    );
    assert.equal((await Deno.stat(logPath)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(join(root, "kanban", "logs"))).mode! & 0o077, 0);
  },
});

Deno.test({
  name: "another supervisor recognises a worker by its claim and stops its whole group",
  ignore: !linux,
  fn: async () => {
    await using dir = await tempDir();
    const root = dir.path;
    const starter = createWorkerSupervisor({
      root,
      env: { PATH: Deno.env.get("PATH") },
      command: script(`sleep 60 & echo $! > "${join(root, "child.pid")}"; wait`),
      detach: true,
    });
    const lock = starter.newLock();
    const task = await claimedTask(root, lock);
    const pid = await starter.spawn(task, lock);
    assert.deepEqual(starter.watched(), [], "a detached worker is not watched");
    const childPidFile = join(root, "child.pid");
    await until("the worker started its child", async () => {
      try {
        return (await Deno.readTextFile(childPidFile)).trim() !== "";
      } catch {
        return false;
      }
    });
    const grandchild = Number((await Deno.readTextFile(childPidFile)).trim());

    const other = createWorkerSupervisor({ root, env: {} });
    assert.equal(await other.workerAlive(lock, pid), true);
    assert.equal(await other.workerAlive(`${lock}x`, pid), false, "another claim");
    assert.equal(await other.workerAlive("elsewhere:1:abc", pid), undefined, "another host");
    assert.equal(await other.workerAlive(lock, null), undefined, "no pid recorded");

    await other.stopWorker(lock, pid);
    await until("the worker and its child are gone", () => !alive(pid) && !alive(grandchild));
    assert.equal(await other.workerAlive(lock, pid), false);
    other.close();
    starter.close();
  },
});

Deno.test({
  name: "a process that merely has the worker's pid is neither taken for it nor signalled",
  ignore: !linux,
  fn: async () => {
    await using dir = await tempDir();
    const supervisor = createWorkerSupervisor({ root: dir.path, env: {} });
    const lock = supervisor.newLock();
    // A group leader without the claim (a reused pid), and a process that leads no group.
    const leader = spawnProcessGroup("sleep", {
      args: ["60"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    });
    const plain = new Deno.Command("sleep", {
      args: ["60"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      for (const pid of [leader.pid, plain.pid]) {
        assert.equal(await supervisor.workerAlive(lock, pid), false, `pid ${pid}`);
        await supervisor.stopWorker(lock, pid);
        assert.ok(alive(pid), `pid ${pid} was left alone`);
      }
      // A claim in the environment, but not this one.
      const stranger = spawnProcessGroup("sleep", {
        args: ["60"],
        env: { HERALD_KANBAN_CLAIM: "someone:else" },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      });
      try {
        assert.equal(await supervisor.workerAlive(lock, stranger.pid), false);
        await supervisor.stopWorker(lock, stranger.pid);
        assert.ok(alive(stranger.pid));
      } finally {
        await stranger.terminate({ graceMs: 1_000 });
      }
    } finally {
      await leader.terminate({ graceMs: 1_000 });
      plain.kill("SIGKILL");
      await plain.status;
      supervisor.close();
    }
    // A process that is gone is a dead worker.
    assert.equal(await supervisor.workerAlive(lock, leader.pid), false);
  },
});

Deno.test({
  name: "a watched worker that exits with its task still running is judged a protocol violation",
  ignore: !linux,
  fn: async () => {
    await using dir = await tempDir();
    const root = dir.path;
    const lines: string[] = [];
    const supervisor = createWorkerSupervisor({
      root,
      env: { PATH: Deno.env.get("PATH") },
      command: script("exit 0"),
      log: (line) => lines.push(line),
      failureLimit: () => Promise.resolve(3),
    });
    const lock = supervisor.newLock();
    const task = await claimedTask(root, lock);
    const pid = await supervisor.spawn(task, lock);
    assert.equal(await supervisor.workerAlive(lock, pid), true, "watched: alive until judged");
    assert.deepEqual(supervisor.watched().map((worker) => worker.taskId), [task.id]);
    await supervisor.idle();
    assert.deepEqual(supervisor.watched(), []);
    supervisor.close();

    const board = openSqliteBoard(kanbanDbPath(root));
    try {
      const after = (await board.getTask(task.id))!;
      assert.deepEqual([after.status, after.consecutive_failures], ["ready", 1]);
      assert.deepEqual((await board.runs(task.id)).map((run) => run.outcome), [
        "protocol_violation",
      ]);
    } finally {
      board.close();
    }
    assert.deepEqual(lines, [
      `kanban: the worker of ${task.id} exited (code 0); the attempt ended protocol_violation`,
    ]);
  },
});
