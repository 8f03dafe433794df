import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  DECOMPOSE_BACKOFF_MS,
  type DispatchPorts,
  type DispatchSettings,
  dispatchTick,
  RUNTIME_GRACE_MS,
  settleWorkerExit,
  type WatchedWorker,
} from "../../../core/kanban/dispatch.ts";
import type { BoardStore, NewTask, TaskRecord } from "../../../core/kanban/mod.ts";
import { openTestBoard, T0 } from "../../_kanban_board.ts";

const TTL = 60_000;
const STALE = 300_000;

const SETTINGS: DispatchSettings = {
  failureLimit: 2,
  claimTtlMs: TTL,
  heartbeatStaleMs: STALE,
  autoDecompose: false,
  autoDecomposePerTick: 3,
  maxInProgress: 10,
  maxRuntimeMs: 3_600_000,
};

/** Ports whose every effect is recorded: fake pids, liveness from a map, scripted decomposer. */
function scripted(
  board: BoardStore,
  clock: { now: number },
  options: {
    spawn?: (task: TaskRecord, lock: string) => Promise<number>;
    decompose?: ((taskId: string) => Promise<{ ok: boolean; message: string }>) | null;
    name?: string;
  } = {},
) {
  const name = options.name ?? "d";
  const spawns: { taskId: string; lock: string; pid: number }[] = [];
  const stops: { lock: string; pid: number | null }[] = [];
  const decomposed: string[] = [];
  const alive = new Map<string, boolean>();
  const watched: (WatchedWorker & { stopped: number })[] = [];
  let nonce = 0;
  let pid = 1000;
  const ports: DispatchPorts = {
    board,
    now: () => clock.now,
    newLock: () => `${name}:${++nonce}`,
    workerAlive: (lock) => Promise.resolve(alive.get(lock)),
    stopWorker: (lock, pid) => {
      stops.push({ lock, pid });
      return Promise.resolve();
    },
    spawn: options.spawn ?? (async (task, lock) => {
      await Promise.resolve();
      const worker = { taskId: task.id, lock, pid: ++pid };
      spawns.push(worker);
      alive.set(lock, true);
      return worker.pid;
    }),
    watched: () => watched,
    decompose: options.decompose === undefined
      ? (taskId) => {
        decomposed.push(taskId);
        return Promise.resolve({ ok: true, message: "split" });
      }
      : options.decompose,
    profiles: () => Promise.resolve(["coder", "writer"]),
  };
  /** Watches a worker of `taskId` under `lock`, counting its stops. */
  const watch = (taskId: string, lock: string) => {
    const worker = {
      taskId,
      lock,
      stopped: 0,
      stop() {
        worker.stopped++;
        return Promise.resolve();
      },
    };
    watched.push(worker);
    return worker;
  };
  return { ports, spawns, stops, decomposed, alive, watch };
}

async function make(board: BoardStore, title: string, extra: Partial<NewTask> = {}) {
  return (await board.createTask({ title, assignee: "coder", ...extra })).task;
}

async function get(board: BoardStore, id: string): Promise<TaskRecord> {
  const task = await board.getTask(id);
  assert.ok(task, `task ${id} exists`);
  return task;
}

/** A running task claimed under `lock` (expiring TTL from now) with worker `pid`. */
async function running(board: BoardStore, clock: { now: number }, title: string, lock: string) {
  const task = await make(board, title);
  assert.equal(await board.claim(task.id, { lock, expiresAt: clock.now + TTL }), true);
  assert.equal(await board.recordWorker(task.id, lock, 77), true);
  return task;
}

async function lastEvent(board: BoardStore, id: string) {
  return (await board.events(id)).at(-1)!;
}

Deno.test("a tick claims ready tasks in priority order and records each worker's pid", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const low = await make(board, "Low", { priority: 0 });
  const high = await make(board, "High", { priority: 5 });
  const mid = await make(board, "Mid", { priority: 2, assignee: "writer" });
  const { ports, spawns } = scripted(board, clock);
  const report = await dispatchTick(ports, SETTINGS, { max: 2 });
  assert.deepEqual(spawns.map((spawn) => spawn.taskId), [high.id, mid.id]);
  assert.deepEqual(report.spawned, [
    { task_id: high.id, assignee: "coder", pid: spawns[0].pid },
    { task_id: mid.id, assignee: "writer", pid: spawns[1].pid },
  ]);
  for (const spawn of spawns) {
    const task = await get(board, spawn.taskId);
    assert.equal(task.status, "running");
    assert.equal(task.claim_lock, spawn.lock);
    assert.equal(task.claim_expires, clock.now + TTL);
    assert.equal(task.worker_pid, spawn.pid);
    assert.deepEqual(
      (await board.events(spawn.taskId)).map((event) => event.kind),
      ["created", "claimed", "spawned"],
    );
    assert.deepEqual((await lastEvent(board, spawn.taskId)).payload, { pid: spawn.pid });
    assert.equal((await board.runs(spawn.taskId))[0].worker_pid, spawn.pid);
  }
  assert.equal((await get(board, low.id)).status, "ready");
  assert.equal(report.dry_run, false);
});

Deno.test("max and maxInProgress bound the workers started; running tasks count", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const busy = await running(board, clock, "Busy", "other:1");
  for (let i = 0; i < 4; i++) await make(board, `Ready ${i}`);
  const { ports, spawns, alive } = scripted(board, clock);
  alive.set("other:1", true);
  const capped = await dispatchTick(ports, { ...SETTINGS, maxInProgress: 2 });
  assert.equal(capped.spawned.length, 1, "one running + one started = 2");
  assert.equal(spawns.length, 1);
  assert.equal((await get(board, busy.id)).status, "running");
  const full = await dispatchTick(ports, { ...SETTINGS, maxInProgress: 2 });
  assert.equal(full.spawned.length, 0, "two run already");
  const limited = await dispatchTick(ports, SETTINGS, { max: 1 });
  assert.equal(limited.spawned.length, 1);
  const none = await dispatchTick(ports, SETTINGS, { max: 0 });
  assert.equal(none.spawned.length, 0);
  assert.equal(spawns.length, 2);
  assert.equal((await board.listTasks({ status: "ready" })).length, 2);
});

Deno.test("a dry run reports what a tick would do and writes nothing", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const ready = await make(board, "Ready");
  const crashed = await running(board, clock, "Crashed", "gone:1");
  const stale = await running(board, clock, "Stale", "silent:1");
  const triage = await make(board, "Idea", { triage: true });
  const { ports, spawns, stops, decomposed, alive, watch } = scripted(board, clock);
  alive.set("gone:1", false);
  alive.set("silent:1", true);
  const shelved = await board.archive((await make(board, "Shelved")).id);
  const worker = watch(shelved.id, "old:1");
  clock.now += STALE + TTL;
  // The stale one expired long ago; the crashed one's claim is renewed to still hold.
  await board.extendClaim(crashed.id, "gone:1", clock.now + TTL, "test");
  const before = await board.events();
  const report = await dispatchTick(ports, { ...SETTINGS, autoDecompose: true }, {
    dryRun: true,
  });
  assert.equal(report.dry_run, true);
  assert.deepEqual(report.decomposed, [
    { task_id: triage.id, ok: true, message: "would be decomposed" },
  ]);
  assert.deepEqual(report.crashed.sort(), [crashed.id, stale.id].sort());
  assert.deepEqual(report.spawned.map((spawn) => [spawn.task_id, spawn.pid]), [[ready.id, null]]);
  assert.deepEqual(await board.events(), before, "no event written");
  assert.deepEqual([spawns, stops, decomposed], [[], [], []]);
  assert.equal(worker.stopped, 0);
  assert.equal((await get(board, crashed.id)).status, "running");
  assert.equal((await get(board, ready.id)).status, "ready");
});

Deno.test("a task whose assignee is not a profile is skipped with a reason", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const ghost = await make(board, "Haunt", { assignee: "ghost", priority: 9 });
  const real = await make(board, "Real");
  const { ports, spawns } = scripted(board, clock);
  const report = await dispatchTick(ports, SETTINGS, { max: 1 });
  assert.equal(report.skipped.length, 1);
  assert.equal(report.skipped[0].task_id, ghost.id);
  assert.match(report.skipped[0].reason, /no profile "ghost"/);
  assert.match(report.skipped[0].reason, new RegExp(`herald kanban assign ${ghost.id}`));
  assert.deepEqual(spawns.map((spawn) => spawn.taskId), [real.id]);
  assert.equal((await get(board, ghost.id)).status, "ready");
  assert.deepEqual((await board.events(ghost.id)).map((event) => event.kind), ["created"]);
});

Deno.test("a dead worker under a live claim crashed: its failure counts", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const task = await running(board, clock, "Work", "gone:1");
  const { ports, alive } = scripted(board, clock);
  alive.set("gone:1", false);
  const report = await dispatchTick(ports, SETTINGS, { max: 0 });
  assert.deepEqual(report.crashed, [task.id]);
  assert.deepEqual(report.reclaimed, []);
  const after = await get(board, task.id);
  assert.equal(after.status, "ready");
  assert.equal(after.consecutive_failures, 1);
  assert.equal(after.claim_lock, null);
  const event = await lastEvent(board, task.id);
  assert.equal(event.kind, "crashed");
  assert.equal(event.payload?.pid, 77);
  assert.deepEqual((await board.runs(task.id)).map((run) => run.outcome), ["crashed"]);
});

Deno.test("a dead worker whose claim expired is reclaimed without counting a failure", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const task = await running(board, clock, "Work", "gone:1");
  const { ports, alive } = scripted(board, clock);
  alive.set("gone:1", false);
  clock.now += TTL;
  const report = await dispatchTick(ports, SETTINGS, { max: 0 });
  assert.deepEqual(report.reclaimed, [task.id]);
  assert.deepEqual(report.crashed, []);
  const after = await get(board, task.id);
  assert.equal(after.status, "ready");
  assert.equal(after.consecutive_failures, 0);
  assert.equal((await lastEvent(board, task.id)).kind, "reclaimed");
  assert.deepEqual((await board.runs(task.id)).map((run) => run.outcome), ["reclaimed"]);
});

Deno.test("a live worker past its claim keeps it while it heartbeats", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const task = await running(board, clock, "Work", "live:1");
  const { ports, alive, stops } = scripted(board, clock);
  alive.set("live:1", true);
  clock.now += TTL + 1_000;
  await board.heartbeat(task.id, "live:1", T0 + 1_000);
  const report = await dispatchTick(ports, { ...SETTINGS, maxInProgress: 1 });
  assert.deepEqual(report.extended, [task.id]);
  assert.deepEqual(stops, []);
  const after = await get(board, task.id);
  assert.equal(after.status, "running");
  assert.equal(after.claim_lock, "live:1");
  assert.equal(after.claim_expires, clock.now + TTL);
  const event = await lastEvent(board, task.id);
  assert.equal(event.kind, "claim_extended");
  assert.equal(event.payload?.expires, clock.now + TTL);
  // A live unexpired worker is left alone, and it still counts toward maxInProgress.
  await make(board, "Waiting");
  const next = await dispatchTick(ports, { ...SETTINGS, maxInProgress: 1 });
  assert.deepEqual([next.extended, next.spawned], [[], []]);
});

Deno.test("a live worker past its claim that went silent is stopped and timed out", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const task = await running(board, clock, "Work", "silent:1");
  const { ports, alive, stops } = scripted(board, clock);
  alive.set("silent:1", true);
  clock.now += STALE;
  const report = await dispatchTick(ports, SETTINGS, { max: 0 });
  assert.deepEqual(stops, [{ lock: "silent:1", pid: 77 }]);
  assert.deepEqual(report.crashed, [task.id]);
  const after = await get(board, task.id);
  assert.equal(after.status, "ready");
  assert.equal(after.consecutive_failures, 1);
  assert.equal((await lastEvent(board, task.id)).kind, "timed_out");
  assert.deepEqual((await board.runs(task.id)).map((run) => run.outcome), ["timed_out"]);
});

Deno.test("a worker that cannot start is spawn_failed and counts toward the limit", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const task = await make(board, "Work");
  const { ports } = scripted(board, clock, {
    spawn: () => Promise.reject(new Error("no such binary")),
  });
  const first = await dispatchTick(ports, SETTINGS);
  assert.deepEqual([first.spawned, first.crashed, first.gave_up], [[], [task.id], []]);
  const after = await get(board, task.id);
  assert.equal(after.status, "ready");
  assert.equal(after.consecutive_failures, 1);
  assert.match(after.last_failure_error ?? "", /could not start: no such binary/);
  assert.deepEqual((await board.runs(task.id)).map((run) => run.outcome), ["spawn_failed"]);
  // The settings' limit (2) is reached on the second failure.
  const second = await dispatchTick(ports, SETTINGS);
  assert.deepEqual(second.gave_up, [task.id]);
  const blocked = await get(board, task.id);
  assert.equal(blocked.status, "blocked");
  assert.equal(blocked.consecutive_failures, 2);
  assert.equal((await lastEvent(board, task.id)).kind, "gave_up");
  const third = await dispatchTick(ports, SETTINGS);
  assert.deepEqual([third.spawned, third.crashed], [[], []], "a blocked task is left alone");
});

Deno.test("the request's failure limit wins over the settings'", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const once = await make(board, "Once");
  const { ports } = scripted(board, clock, { spawn: () => Promise.reject(new Error("nope")) });
  const strict = await dispatchTick(ports, { ...SETTINGS, failureLimit: 5 }, { failureLimit: 1 });
  assert.deepEqual(strict.gave_up, [once.id]);
  assert.equal((await get(board, once.id)).status, "blocked");

  const lenient = await make(board, "Lenient");
  const report = await dispatchTick(ports, { ...SETTINGS, failureLimit: 1 }, { failureLimit: 3 });
  assert.deepEqual([report.crashed, report.gave_up], [[lenient.id], []]);
  assert.equal((await get(board, lenient.id)).status, "ready");
});

Deno.test("a watched worker whose task was archived or moved back is stopped", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const archived = await running(board, clock, "Archived", "me:1");
  const movedBack = await running(board, clock, "Moved back", "me:2");
  const finished = await running(board, clock, "Finished", "me:3");
  const kept = await running(board, clock, "Kept", "me:4");
  const { ports, alive, watch, stops } = scripted(board, clock);
  for (const lock of ["me:1", "me:2", "me:3", "me:4"]) alive.set(lock, true);
  const workers = [
    watch(archived.id, "me:1"),
    watch(movedBack.id, "me:2"),
    watch(finished.id, "me:3"),
    watch(kept.id, "me:4"),
  ];
  await board.archive(archived.id);
  await board.move(movedBack.id, "ready", "alice");
  await board.complete(finished.id, "done", { lock: "me:3" });
  const report = await dispatchTick(ports, SETTINGS, { max: 0 });
  assert.deepEqual(report.stopped, [archived.id, movedBack.id]);
  assert.deepEqual(workers.map((worker) => worker.stopped), [1, 1, 0, 0]);
  assert.deepEqual(stops, [], "watched workers are stopped through their handle");
  assert.equal((await get(board, kept.id)).status, "running");
});

Deno.test("auto-decompose handles at most autoDecomposePerTick triage tasks", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const triage: TaskRecord[] = [];
  for (let i = 0; i < 5; i++) {
    clock.now += 1_000;
    triage.push(await make(board, `Idea ${i}`, { triage: true }));
  }
  const auto = { ...SETTINGS, autoDecompose: true };
  const off = scripted(board, clock);
  await dispatchTick(off.ports, SETTINGS);
  assert.deepEqual(off.decomposed, [], "autoDecompose false");
  const none = scripted(board, clock, { decompose: null });
  assert.deepEqual((await dispatchTick(none.ports, auto)).decomposed, [], "no decomposer");

  const on = scripted(board, clock);
  const report = await dispatchTick(on.ports, auto);
  assert.deepEqual(on.decomposed, triage.slice(0, 3).map((task) => task.id));
  assert.deepEqual(report.decomposed.map((outcome) => outcome.ok), [true, true, true]);
  const zero = scripted(board, clock);
  await dispatchTick(zero.ports, { ...auto, autoDecomposePerTick: 0 });
  assert.deepEqual(zero.decomposed, []);

  const failing = scripted(board, clock, {
    decompose: () => Promise.reject(new Error("model down")),
  });
  const failed = await dispatchTick(failing.ports, { ...auto, autoDecomposePerTick: 1 });
  assert.deepEqual(failed.decomposed, [{
    task_id: triage[0].id,
    ok: false,
    message: "model down",
  }]);
});

Deno.test("auto-decompose leaves a task that needed input twice to a person", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const looped = await make(board, "Which database?");
  await board.block(looped.id, "which database?", { kind: "needs_input" });
  await board.unblock(looped.id);
  const back = await board.block(looped.id, "still: which database?", { kind: "needs_input" });
  assert.equal(back.status, "triage");
  const fresh = await make(board, "Idea", { triage: true });
  const { ports, decomposed } = scripted(board, clock);
  const report = await dispatchTick(ports, { ...SETTINGS, autoDecompose: true });
  assert.deepEqual(decomposed, [fresh.id]);
  assert.deepEqual(report.decomposed.map((outcome) => outcome.task_id), [fresh.id]);
  // Once a person sent it back to triage (after an answer, say), it is decomposed again.
  await board.move(looped.id, "ready", "alice");
  await board.move(looped.id, "triage", "alice");
  decomposed.length = 0;
  await dispatchTick(ports, { ...SETTINGS, autoDecompose: true }, { max: 0 });
  assert.ok(decomposed.includes(looped.id), JSON.stringify(decomposed));
});

Deno.test("a failed automatic decomposition is retried only after a doubling backoff", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const stuck = await make(board, "Stuck", { triage: true, priority: 5 });
  const other = await make(board, "Other", { triage: true });
  const tried: string[] = [];
  const { ports } = scripted(board, clock, {
    decompose: (taskId) => {
      tried.push(taskId);
      return Promise.resolve(
        taskId === stuck.id
          ? { ok: false, message: "the model's reply is not JSON" }
          : { ok: true, message: "split" },
      );
    },
  });
  const settings = { ...SETTINGS, autoDecompose: true, autoDecomposePerTick: 1 };
  const tick = async () => {
    tried.length = 0;
    await dispatchTick(ports, settings, { max: 0 });
    return [...tried];
  };
  assert.deepEqual(await tick(), [stuck.id]);
  const failure = await lastEvent(board, stuck.id);
  assert.equal(failure.kind, "decompose_failed");
  assert.deepEqual(failure.payload, {
    message: "the model's reply is not JSON",
    failures: 1,
    retry_after_ms: DECOMPOSE_BACKOFF_MS,
  });
  // Backing off, the next triage task gets the turn (it stays in triage: the port is scripted).
  assert.deepEqual(await tick(), [other.id]);
  clock.now += DECOMPOSE_BACKOFF_MS - 1;
  assert.deepEqual(await tick(), [other.id]);
  clock.now += 1;
  assert.deepEqual(await tick(), [stuck.id], "tried again after the backoff");
  assert.equal((await lastEvent(board, stuck.id)).payload?.failures, 2);
  clock.now += DECOMPOSE_BACKOFF_MS;
  assert.deepEqual(await tick(), [other.id], "the second wait is twice as long");
  clock.now += DECOMPOSE_BACKOFF_MS;
  assert.deepEqual(await tick(), [stuck.id]);
  // A dry run neither tries nor records.
  const before = await board.events(stuck.id);
  clock.now += 10 * DECOMPOSE_BACKOFF_MS;
  const dry = await dispatchTick(ports, settings, { dryRun: true });
  assert.deepEqual(dry.decomposed.map((outcome) => outcome.task_id), [stuck.id]);
  assert.deepEqual(await board.events(stuck.id), before);
});

Deno.test("a live worker past kanban.max_runtime_seconds and the grace is stopped and timed out", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const task = await running(board, clock, "Long", "long:1");
  const { ports, alive, stops } = scripted(board, clock);
  alive.set("long:1", true);
  const settings = { ...SETTINGS, maxRuntimeMs: 10 * 60_000 };
  // Heartbeating and within the cap plus grace: left alone, its claim extended.
  clock.now += settings.maxRuntimeMs + RUNTIME_GRACE_MS;
  await board.heartbeat(task.id, "long:1", clock.now);
  const within = await dispatchTick(ports, settings, { max: 0 });
  assert.deepEqual([within.extended, within.crashed, stops], [[task.id], [], []]);
  clock.now += 1;
  await board.heartbeat(task.id, "long:1", clock.now);
  const past = await dispatchTick(ports, settings, { max: 0 });
  assert.deepEqual(stops, [{ lock: "long:1", pid: 77 }]);
  assert.deepEqual(past.crashed, [task.id]);
  const after = await get(board, task.id);
  assert.deepEqual([after.status, after.consecutive_failures], ["ready", 1]);
  assert.match(after.last_failure_error ?? "", /past kanban\.max_runtime_seconds/);
  assert.equal((await lastEvent(board, task.id)).kind, "timed_out");
  assert.deepEqual((await board.runs(task.id)).map((run) => run.outcome), ["timed_out"]);
});

Deno.test("todo children are promoted and started once another writer finished their parent", async () => {
  await using env = await openTestBoard();
  const { board, clock, path } = env;
  const parent = await make(board, "Parent");
  const child = await make(board, "Child", { parents: [parent.id] });
  const db = new DatabaseSync(path);
  try {
    // Claimed and finished elsewhere, without the store's promotion.
    db.prepare("UPDATE tasks SET status = 'done' WHERE id = ?").run(parent.id);
  } finally {
    db.close();
  }
  const { ports, spawns } = scripted(board, clock);
  const report = await dispatchTick(ports, SETTINGS);
  assert.deepEqual(report.promoted, [child.id]);
  assert.deepEqual(spawns.map((spawn) => spawn.taskId), [child.id]);
  assert.deepEqual((await board.events(child.id)).map((event) => event.kind), [
    "created",
    "promoted",
    "claimed",
    "spawned",
  ]);
});

Deno.test("settleWorkerExit: a clean exit with the task still running is a protocol violation", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const task = await running(board, clock, "Work", "me:1");
  const outcome = await settleWorkerExit(board, { taskId: task.id, lock: "me:1", pid: 77 }, 0, 2);
  assert.equal(outcome, "protocol_violation");
  const after = await get(board, task.id);
  assert.equal(after.status, "ready");
  assert.equal(after.consecutive_failures, 1);
  assert.match(after.last_failure_error ?? "", /without kanban_complete or kanban_block/);
  const event = await lastEvent(board, task.id);
  assert.equal(event.kind, "protocol_violation");
  assert.equal(event.payload?.exit_code, 0);
  assert.deepEqual((await board.runs(task.id)).map((run) => run.outcome), ["protocol_violation"]);
});

Deno.test("settleWorkerExit: a failed exit crashed; a finished task is left alone", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const task = await running(board, clock, "Work", "me:1");
  const worker = { taskId: task.id, lock: "me:1", pid: 77 };
  assert.equal(await settleWorkerExit(board, worker, 137, 1), "crashed");
  const after = await get(board, task.id);
  assert.equal(after.status, "blocked", "the limit of 1 is reached");
  assert.deepEqual(
    (await board.events(task.id)).slice(-2).map((event) => event.kind),
    ["crashed", "gave_up"],
  );
  assert.equal((await board.events(task.id)).at(-2)!.payload?.exit_code, 137);

  const done = await running(board, clock, "Done", "me:2");
  await board.complete(done.id, "all good", { lock: "me:2" });
  const before = await board.events();
  const settled = await settleWorkerExit(board, { taskId: done.id, lock: "me:2", pid: 77 }, 0, 2);
  assert.equal(settled, undefined);
  assert.equal(await settleWorkerExit(board, worker, 1, 2), undefined, "already settled");
  assert.deepEqual(await board.events(), before);
  assert.equal((await get(board, done.id)).status, "done");
});

Deno.test("two dispatchers ticking one board at once never start one task twice", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const settings = { ...SETTINGS, maxInProgress: 1_000 };
  let contested = 0;
  // Each round starts one dispatcher a few steps after the other, so their claims interleave differently.
  const rounds = [[0, 0], [0, 1], [1, 0], [0, 3], [3, 0], [0, 8], [8, 0], [0, 20], [20, 0]];
  for (const [round, [delayA, delayB]] of rounds.entries()) {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await make(board, `Task ${round}.${i}`)).id);
    const a = scripted(env.open(), clock, { name: `a${round}` });
    const b = scripted(env.open(), clock, { name: `b${round}` });
    const tick = async (ports: DispatchPorts, delay: number) => {
      for (let step = 0; step < delay; step++) await Promise.resolve();
      return await dispatchTick(ports, settings);
    };
    const reports = await Promise.all([tick(a.ports, delayA), tick(b.ports, delayB)]);
    const started = new Map<string, number>();
    for (const spawn of [...a.spawns, ...b.spawns]) {
      started.set(spawn.taskId, (started.get(spawn.taskId) ?? 0) + 1);
    }
    for (const id of ids) assert.equal(started.get(id), 1, `${id} in round ${round}`);
    assert.equal(started.size, ids.length, "nothing else was started");
    contested += reports.flatMap((report) => report.skipped)
      .filter((skip) => skip.reason === "claimed by another dispatcher").length;
    for (const id of ids) {
      const claims = (await board.events(id)).filter((event) => event.kind === "claimed");
      assert.equal(claims.length, 1, id);
      assert.equal((await board.runs(id)).length, 1, id);
    }
  }
  assert.ok(contested > 0, "the two dispatchers went for the same tasks");
});
