import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { HeraldError, NotFoundError } from "../../../core/errors.ts";
import type { AttemptEnd, BoardStore, TaskRecord } from "../../../core/kanban/mod.ts";
import { eventKinds, heraldError, openTestBoard, T0 } from "../../_kanban_board.ts";

const TTL = 60_000;

async function task(board: BoardStore, id: string): Promise<TaskRecord> {
  const found = await board.getTask(id);
  assert.ok(found, `task ${id} exists`);
  return found;
}

/** Claims `id` under `lock` (it must win). */
async function claimed(board: BoardStore, id: string, lock: string): Promise<void> {
  assert.equal(await board.claim(id, { lock, expiresAt: T0 + TTL }), true, `claim ${id}`);
}

/** A counted crash of the attempt under `lock`. */
function crash(lock: string, failureLimit: number, error = "boom"): AttemptEnd {
  return { lock, outcome: "crashed", error, failed: true, failureLimit, details: { pid: 7 } };
}

/** Everything a write could change, to show that nothing was written. */
async function snapshot(board: BoardStore, id: string) {
  return {
    task: await board.getTask(id),
    events: await board.events(),
    runs: await board.runs(id),
  };
}

/** Marks `id` done behind the store's back (another writer that promotes nothing). */
function finishBehindTheBack(path: string, id: string): void {
  const db = new DatabaseSync(path);
  try {
    db.prepare("UPDATE tasks SET status = 'done' WHERE id = ?").run(id);
  } finally {
    db.close();
  }
}

Deno.test("endAttempt counts a failure, closes the run and returns the task to ready", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await claimed(board, work.id, "L1");
  await board.recordWorker(work.id, "L1", 7);
  clock.now += 5_000;
  const ended = await board.endAttempt(work.id, crash("L1", 3, "segfault"));
  assert.ok(ended);
  assert.equal(ended.gaveUp, false);
  assert.equal(ended.task.status, "ready");
  assert.equal(ended.task.consecutive_failures, 1);
  assert.equal(ended.task.last_failure_error, "segfault");
  assert.equal(ended.task.claim_lock, null);
  assert.equal(ended.task.claim_expires, null);
  assert.equal(ended.task.worker_pid, null);
  assert.deepEqual(await task(board, work.id), ended.task);
  const runs = await board.runs(work.id);
  assert.equal(runs.length, 1);
  assert.deepEqual(
    [runs[0].outcome, runs[0].error, runs[0].ended_at, runs[0].worker_pid],
    ["crashed", "segfault", clock.now, 7],
  );
  const last = (await board.events(work.id)).at(-1)!;
  assert.equal(last.kind, "crashed");
  assert.deepEqual(last.payload, { pid: 7, error: "segfault", failures: 1, status: "ready" });
  assert.deepEqual(await eventKinds(board, work.id), ["created", "claimed", "spawned", "crashed"]);
});

Deno.test("endAttempt returns the task to todo while a parent is unfinished", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: parent } = await board.createTask({ title: "Parent", assignee: "coder" });
  const { task: child } = await board.createTask({
    title: "Child",
    assignee: "coder",
    parents: [parent.id],
  });
  await board.complete(parent.id, "done");
  await claimed(board, child.id, "L1");
  // The parent is reopened while the child runs.
  assert.equal((await board.move(parent.id, "ready", "lead")).status, "ready");
  const ended = await board.endAttempt(child.id, crash("L1", 3));
  assert.equal(ended?.task.status, "todo");
  assert.equal((await board.events(child.id)).at(-1)!.payload?.status, "todo");
});

Deno.test("endAttempt at the failure limit blocks the task with a gave_up event", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await claimed(board, work.id, "L1");
  assert.equal((await board.endAttempt(work.id, crash("L1", 2, "first")))?.gaveUp, false);
  await claimed(board, work.id, "L2");
  const ended = await board.endAttempt(work.id, crash("L2", 2, "second"));
  assert.ok(ended);
  assert.equal(ended.gaveUp, true);
  assert.equal(ended.task.status, "blocked");
  assert.equal(ended.task.consecutive_failures, 2);
  assert.equal(ended.task.claim_lock, null);
  const events = await board.events(work.id);
  assert.deepEqual(events.slice(-2).map((event) => event.kind), ["crashed", "gave_up"]);
  assert.deepEqual(events.at(-1)!.payload, { failures: 2, limit: 2, error: "second" });
  assert.deepEqual((await board.runs(work.id)).map((run) => run.outcome), ["crashed", "crashed"]);
  // A blocked task is not claimed again.
  assert.equal(await board.claim(work.id, { lock: "L3", expiresAt: T0 + TTL }), false);
  // Unblocking resets the count.
  const unblocked = await board.unblock(work.id);
  assert.equal(unblocked.status, "ready");
  assert.equal(unblocked.consecutive_failures, 0);
  await claimed(board, work.id, "L3");
  assert.equal((await board.endAttempt(work.id, crash("L3", 2)))?.gaveUp, false);
});

Deno.test("a task's max_retries overrides the dispatcher's failure limit", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: strict } = await board.createTask({
    title: "Strict",
    assignee: "coder",
    max_retries: 1,
  });
  await claimed(board, strict.id, "L1");
  const once = await board.endAttempt(strict.id, crash("L1", 5));
  assert.equal(once?.gaveUp, true);
  assert.equal(once?.task.status, "blocked");
  assert.equal((await board.events(strict.id)).at(-1)!.payload?.limit, 1);

  const { task: patient } = await board.createTask({
    title: "Patient",
    assignee: "coder",
    max_retries: 3,
  });
  for (const [lock, gaveUp] of [["P1", false], ["P2", false], ["P3", true]] as const) {
    await claimed(board, patient.id, lock);
    assert.equal((await board.endAttempt(patient.id, crash(lock, 1)))?.gaveUp, gaveUp, lock);
  }
});

Deno.test("a reclaim (failed false) does not count toward the limit", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await claimed(board, work.id, "L1");
  await board.endAttempt(work.id, crash("L1", 2));
  await claimed(board, work.id, "L2");
  const ended = await board.endAttempt(work.id, {
    lock: "L2",
    outcome: "reclaimed",
    error: "its claim expired and its worker is gone",
    failed: false,
    failureLimit: 2,
  });
  assert.ok(ended);
  assert.equal(ended.gaveUp, false);
  assert.equal(ended.task.status, "ready");
  assert.equal(ended.task.consecutive_failures, 1);
  assert.deepEqual((await board.runs(work.id)).map((run) => run.outcome), [
    "crashed",
    "reclaimed",
  ]);
  assert.equal((await board.events(work.id)).at(-1)!.kind, "reclaimed");
});

Deno.test("endAttempt under a lock the task does not run under writes nothing", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  // Not running at all.
  assert.equal(await board.endAttempt(work.id, crash("L1", 2)), undefined);
  await claimed(board, work.id, "L1");
  const before = await snapshot(board, work.id);
  assert.equal(await board.endAttempt(work.id, crash("other", 2)), undefined);
  assert.equal(await board.endAttempt(work.id, crash("", 2)), undefined);
  assert.deepEqual(await snapshot(board, work.id), before);
  assert.equal(await board.endAttempt("t_00000000", crash("L1", 2)), undefined);
});

Deno.test("completing resets the failure count and the block kind", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await claimed(board, work.id, "L1");
  await board.endAttempt(work.id, crash("L1", 5, "flaky"));
  await claimed(board, work.id, "L2");
  const blocked = await board.block(work.id, "the network is down", {
    kind: "transient",
    lock: "L2",
  });
  assert.equal(blocked.status, "blocked");
  assert.equal(blocked.block_kind, "transient");
  assert.equal(blocked.block_recurrences, 1);
  assert.equal(blocked.consecutive_failures, 1);
  const done = (await board.complete(work.id, "fixed by hand")).task;
  assert.equal(done.status, "done");
  assert.equal(done.consecutive_failures, 0);
  assert.equal(done.block_kind, null);
  assert.equal(done.block_recurrences, 0);
  assert.equal(done.last_failure_error, null);
});

Deno.test("needing input twice in a row sends the task back to triage", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await claimed(board, work.id, "L1");
  const first = await board.block(work.id, "which database?", { kind: "needs_input", lock: "L1" });
  assert.equal(first.status, "blocked");
  assert.equal(first.block_kind, "needs_input");
  assert.equal(first.block_recurrences, 1);
  assert.equal(first.claim_lock, null);
  await board.unblock(work.id);
  await claimed(board, work.id, "L2");
  const second = await board.block(work.id, "still: which database?", {
    kind: "needs_input",
    lock: "L2",
  });
  assert.equal(second.status, "triage");
  assert.equal(second.block_recurrences, 2);
  assert.equal(second.claim_lock, null);
  const events = await board.events(work.id);
  assert.equal(events.at(-1)!.kind, "block_loop_detected");
  assert.deepEqual(events.at(-1)!.payload, {
    reason: "still: which database?",
    kind: "needs_input",
    recurrences: 2,
    source_status: "running",
  });
  assert.deepEqual(
    events.filter((event) => event.kind === "blocked").map((event) => event.payload),
    [{ reason: "which database?", kind: "needs_input", recurrences: 1, source_status: "running" }],
  );
  assert.deepEqual((await board.runs(work.id)).map((run) => run.outcome), ["blocked", "blocked"]);
});

Deno.test("a block of another kind in between resets the needs_input streak", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  assert.equal((await board.block(work.id, "ask", { kind: "needs_input" })).status, "blocked");
  await board.unblock(work.id);
  const other = await board.block(work.id, "no GPU here", { kind: "capability" });
  assert.deepEqual([other.block_kind, other.block_recurrences], ["capability", 1]);
  await board.unblock(work.id);
  const again = await board.block(work.id, "ask again", { kind: "needs_input" });
  assert.equal(again.status, "blocked");
  assert.equal(again.block_recurrences, 1);
  await board.unblock(work.id);
  // A block without a kind resets it too.
  const plain = await board.block(work.id, "parked");
  assert.deepEqual([plain.block_kind, plain.block_recurrences], [null, 0]);
  await board.unblock(work.id);
  assert.equal((await board.block(work.id, "ask", { kind: "needs_input" })).status, "blocked");
});

Deno.test("a dependency block waits in todo until the tasks it waits for finish", async () => {
  await using env = await openTestBoard();
  const { board, path } = env;
  const { task: schema } = await board.createTask({ title: "Schema", assignee: "coder" });
  const { task: api } = await board.createTask({ title: "API", assignee: "coder" });
  await claimed(board, api.id, "L1");
  await board.link(schema.id, api.id);
  const waiting = await board.block(api.id, "needs the schema first", {
    kind: "dependency",
    lock: "L1",
  });
  assert.equal(waiting.status, "todo");
  assert.equal(waiting.claim_lock, null);
  const last = (await board.events(api.id)).at(-1)!;
  assert.equal(last.kind, "dependency_wait");
  assert.equal(last.payload?.kind, "dependency");
  assert.deepEqual((await board.runs(api.id)).map((run) => run.outcome), ["blocked"]);
  assert.deepEqual(await board.promoteReady(), []);
  assert.equal((await task(board, api.id)).status, "todo");
  finishBehindTheBack(path, schema.id);
  const promoted = await board.promoteReady();
  assert.deepEqual(promoted.map((t) => [t.id, t.status]), [[api.id, "ready"]]);
  assert.equal((await board.events(api.id)).at(-1)!.kind, "promoted");
  assert.deepEqual(await board.promoteReady(), [], "promoted once");
});

Deno.test("complete and block under a lock that is not held fail and write nothing", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  // A ready task runs under no lock.
  await assert.rejects(
    () => board.complete(work.id, "done", { lock: "L1" }),
    heraldError("kanban_claim_lost", "is ready"),
  );
  await claimed(board, work.id, "L1");
  const before = await snapshot(board, work.id);
  await assert.rejects(
    () => board.complete(work.id, "done", { lock: "stale" }),
    (error: unknown) =>
      heraldError("kanban_claim_lost", work.id)(error) && (error as HeraldError).kind ===
        "conflict",
  );
  await assert.rejects(
    () => board.block(work.id, "stuck", { kind: "needs_input", lock: "stale" }),
    heraldError("kanban_claim_lost"),
  );
  assert.deepEqual(await snapshot(board, work.id), before);
  // The holder can.
  assert.equal((await board.complete(work.id, "done", { lock: "L1" })).task.status, "done");
});

Deno.test("recordWorker, extendClaim and heartbeat write only under the held lock", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await claimed(board, work.id, "L1");
  const before = await snapshot(board, work.id);
  assert.equal(await board.recordWorker(work.id, "L2", 99), false);
  assert.equal(await board.extendClaim(work.id, "L2", T0 + 10 * TTL, "alive"), false);
  assert.equal(await board.heartbeat(work.id, "L2", T0 + 10 * TTL), false);
  assert.deepEqual(await snapshot(board, work.id), before);

  assert.equal(await board.recordWorker(work.id, "L1", 4242), true);
  assert.equal((await task(board, work.id)).worker_pid, 4242);
  assert.equal((await board.runs(work.id))[0].worker_pid, 4242);
  assert.deepEqual((await board.events(work.id)).at(-1)!.payload, { pid: 4242 });

  clock.now += 1_000;
  assert.equal(await board.extendClaim(work.id, "L1", T0 + 2 * TTL, "worker alive"), true);
  const extended = await task(board, work.id);
  assert.equal(extended.claim_expires, T0 + 2 * TTL);
  assert.equal(extended.heartbeat_at, T0, "extending is not a heartbeat");
  assert.deepEqual((await board.events(work.id)).at(-1)!.payload, {
    reason: "worker alive",
    expires: T0 + 2 * TTL,
  });

  clock.now += 1_000;
  assert.equal(await board.heartbeat(work.id, "L1", T0 + 3 * TTL, " halfway "), true);
  const beat = await task(board, work.id);
  assert.equal(beat.claim_expires, T0 + 3 * TTL);
  assert.equal(beat.heartbeat_at, clock.now);
  assert.deepEqual((await board.events(work.id)).at(-1)!.payload, {
    expires: T0 + 3 * TTL,
    note: "halfway",
  });
  assert.deepEqual(await eventKinds(board, work.id), [
    "created",
    "claimed",
    "spawned",
    "claim_extended",
    "heartbeat",
  ]);

  await board.complete(work.id, "done", { lock: "L1" });
  assert.equal(await board.recordWorker(work.id, "L1", 1), false);
  assert.equal(await board.extendClaim(work.id, "L1", T0 + 4 * TTL, "late"), false);
  assert.equal(await board.heartbeat(work.id, "L1", T0 + 4 * TTL), false);
});

Deno.test("promoteReady promotes only todo tasks whose parents are all done or archived", async () => {
  await using env = await openTestBoard();
  const { board, path } = env;
  await board.createBoard("alpha");
  const make = async (title: string, parents: string[] = [], slug = "default") =>
    (await board.createTask({ title, assignee: "coder", parents, board: slug })).task;
  const open = await make("Open parent");
  const finished = await make("Finished parent");
  const shelved = await make("Archived parent");
  const waits = await make("Waits for the open one", [open.id, finished.id]);
  const free = await make("Both parents finished", [finished.id, shelved.id]);
  const alphaParent = await make("Alpha parent", [], "alpha");
  const alphaChild = await make("Alpha child", [alphaParent.id], "alpha");
  const { task: triaged } = await board.createTask({
    title: "In triage",
    assignee: "coder",
    parents: [finished.id],
    triage: true,
  });
  finishBehindTheBack(path, finished.id);
  finishBehindTheBack(path, alphaParent.id);
  const db = new DatabaseSync(path);
  try {
    db.prepare("UPDATE tasks SET status = 'archived' WHERE id = ?").run(shelved.id);
  } finally {
    db.close();
  }
  const promoted = await board.promoteReady("default");
  assert.deepEqual(promoted.map((t) => [t.id, t.status]), [[free.id, "ready"]]);
  assert.deepEqual((await board.events(free.id)).at(-1)!.payload, { status: "ready" });
  assert.equal((await task(board, waits.id)).status, "todo");
  assert.equal((await task(board, triaged.id)).status, "triage");
  assert.equal((await task(board, alphaChild.id)).status, "todo", "another board");
  assert.deepEqual((await board.promoteReady()).map((t) => t.id), [alphaChild.id]);
  assert.deepEqual(await board.promoteReady(), []);
});

Deno.test("edit changes the fields given and names them in one edited event", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", body: "b", assignee: "coder" });
  const edited = await board.edit(work.id, { title: " Better work ", priority: 3, body: "b" });
  assert.equal(edited.title, "Better work");
  assert.equal(edited.priority, 3);
  assert.equal(edited.body, "b");
  assert.deepEqual((await board.events(work.id)).at(-1)!.payload, {
    fields: ["title", "priority"],
  });
  const before = await snapshot(board, work.id);
  await assert.rejects(() => board.edit(work.id, { title: "  " }), heraldError("kanban_required"));
  await assert.rejects(
    () => board.edit(work.id, { priority: 1.5 }),
    heraldError("kanban_priority"),
  );
  assert.deepEqual(await board.edit(work.id, { title: "Better work", priority: 3 }), edited);
  assert.deepEqual(await board.edit(work.id, {}), edited);
  assert.deepEqual(await snapshot(board, work.id), before, "no change writes nothing");
  await assert.rejects(() => board.edit("t_00000000", { title: "x" }), NotFoundError);
});

Deno.test("move: triage goes to the queue as its parents decide", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: parent } = await board.createTask({ title: "Parent", assignee: "coder" });
  const { task: free } = await board.createTask({ title: "Free", assignee: "x", triage: true });
  const { task: held } = await board.createTask({
    title: "Held",
    assignee: "x",
    triage: true,
    parents: [parent.id],
  });
  assert.equal((await board.move(free.id, "todo", "lead")).status, "ready");
  assert.equal((await board.move(held.id, "ready", "lead")).status, "todo");
  assert.deepEqual((await board.events(held.id)).at(-1)!.payload, {
    from: "triage",
    to: "todo",
    by: "lead",
  });
  // And back to triage.
  assert.equal((await board.move(held.id, "triage", "lead")).status, "triage");
});

Deno.test("move: a running task back to the queue closes its run reclaimed and drops the claim", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await claimed(board, work.id, "L1");
  await board.recordWorker(work.id, "L1", 4242);
  const moved = await board.move(work.id, "ready", "alice");
  assert.equal(moved.status, "ready");
  assert.deepEqual([moved.claim_lock, moved.claim_expires, moved.worker_pid], [null, null, null]);
  assert.equal(moved.consecutive_failures, 0, "a manual move is no failure");
  const runs = await board.runs(work.id);
  assert.deepEqual([runs[0].outcome, runs[0].error], ["reclaimed", "moved to ready by alice"]);
  assert.notEqual(runs[0].ended_at, null);
  const events = await board.events(work.id);
  assert.deepEqual(events.slice(-2).map((event) => [event.kind, event.payload]), [
    ["reclaimed", { manual: true, by: "alice" }],
    ["moved", { from: "running", to: "ready", by: "alice" }],
  ]);
  // The old worker can no longer finish it.
  await assert.rejects(
    () => board.complete(work.id, "late", { lock: "L1" }),
    heraldError("kanban_claim_lost"),
  );
  await claimed(board, work.id, "L2");
});

Deno.test("move: a done task is reopened and a blocked one loses its failures", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await board.complete(work.id, "done");
  const reopened = await board.move(work.id, "todo", "alice");
  assert.equal(reopened.status, "ready");
  assert.equal(reopened.completed_at, null);
  assert.deepEqual((await board.events(work.id)).at(-1)!.payload, {
    from: "done",
    to: "ready",
    by: "alice",
  });

  await claimed(board, work.id, "L1");
  await board.endAttempt(work.id, crash("L1", 1));
  assert.equal((await task(board, work.id)).status, "blocked");
  const moved = await board.move(work.id, "ready", "alice");
  assert.equal(moved.status, "ready");
  assert.equal(moved.consecutive_failures, 0);
});

Deno.test("move: reopening a done parent sends its ready children back to waiting", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: parent } = await board.createTask({ title: "Parent", assignee: "coder" });
  const { task: child } = await board.createTask({
    title: "Child",
    assignee: "coder",
    parents: [parent.id],
  });
  await board.complete(parent.id, "done");
  assert.equal((await task(board, child.id)).status, "ready");
  await board.move(parent.id, "ready", "alice");
  assert.equal((await task(board, child.id)).status, "todo");
  assert.deepEqual((await board.events(child.id)).at(-1)!.kind, "demoted");
  assert.equal(await board.claim(child.id, { lock: "L1", expiresAt: T0 + TTL }), false);
});

Deno.test("move refuses ready->todo with finished parents and todo->ready with an open one", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: parent } = await board.createTask({ title: "Parent", assignee: "coder" });
  const { task: child } = await board.createTask({
    title: "Child",
    assignee: "coder",
    parents: [parent.id],
  });
  const before = {
    parent: await snapshot(board, parent.id),
    child: await snapshot(board, child.id),
  };
  await assert.rejects(
    () => board.move(parent.id, "todo", "alice"),
    (error: unknown) =>
      heraldError("kanban_task_status", "it is ready")(error) &&
      (error as HeraldError).kind === "conflict",
  );
  await assert.rejects(
    () => board.move(child.id, "ready", "alice"),
    heraldError("kanban_task_status", "waits for a parent"),
  );
  assert.deepEqual(
    { parent: await snapshot(board, parent.id), child: await snapshot(board, child.id) },
    before,
  );
  // Moving where it already is writes nothing either.
  assert.equal((await board.move(parent.id, "ready", "alice")).status, "ready");
  assert.deepEqual(await board.events(), before.child.events);
});

Deno.test("subscriptions: one per chat, cursor at the task's last event, advance and remove", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  const { task: other } = await board.createTask({ title: "Other", assignee: "coder" });
  await board.comment(work.id, "lead", "note");
  const lastSeq = (await board.events(work.id)).at(-1)!.seq;
  const chat = { task_id: work.id, platform: "telegram", chat_id: "42", thread_id: "" };
  await board.subscribe({ ...chat, profile: "default" });
  await board.subscribe({ ...chat, profile: "coder" });
  await board.subscribe({ ...chat, thread_id: "7", profile: "coder" });
  await board.subscribe({
    task_id: other.id,
    platform: "slack",
    chat_id: "C1",
    thread_id: "",
    profile: "coder",
  });
  const all = await board.subscriptions();
  assert.equal(all.length, 3);
  const first = all.find((s) => s.task_id === work.id && s.thread_id === "")!;
  assert.equal(first.profile, "default", "the second subscribe keeps the first");
  assert.equal(first.last_seq, lastSeq);
  assert.equal(all.find((s) => s.task_id === other.id)!.last_seq, 2);
  assert.deepEqual((await board.subscriptions("default")).map((s) => s.chat_id), ["42"]);
  assert.equal((await board.subscriptions("coder")).length, 2);
  assert.deepEqual(await board.subscriptions("nobody"), []);

  await board.advanceSubscription(chat, lastSeq + 5, false);
  assert.equal((await board.subscriptions("default"))[0].last_seq, lastSeq + 5);
  await board.advanceSubscription(chat, lastSeq + 6, true);
  assert.deepEqual(await board.subscriptions("default"), []);
  assert.equal((await board.subscriptions()).length, 2, "the other subscriptions stay");

  await assert.rejects(
    () => board.subscribe({ ...chat, task_id: "t_00000000", profile: "default" }),
    NotFoundError,
  );
  await assert.rejects(
    () => board.subscribe({ ...chat, chat_id: " ", profile: "default" }),
    heraldError("kanban_required"),
  );
});

Deno.test("listTasks returns at most limit tasks, highest priority first", async () => {
  await using env = await openTestBoard();
  const { board, clock } = env;
  const ids: string[] = [];
  for (const priority of [0, 5, 1, 5]) {
    clock.now += 1_000;
    ids.push(
      (await board.createTask({ title: `P${priority}`, assignee: "coder", priority })).task.id,
    );
  }
  assert.deepEqual((await board.listTasks({ limit: 2 })).map((t) => t.id), [ids[1], ids[3]]);
  assert.deepEqual((await board.listTasks({ limit: 3 })).map((t) => t.id), [
    ids[1],
    ids[3],
    ids[2],
  ]);
  assert.deepEqual(await board.listTasks({ limit: 0 }), []);
  assert.equal((await board.listTasks({ limit: 99 })).length, 4);
  await board.block(ids[1], "later");
  assert.deepEqual((await board.listTasks({ status: "ready", limit: 1 })).map((t) => t.id), [
    ids[3],
  ]);
});

Deno.test("a dependency block with nothing unfinished to wait for is an ordinary block", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: alone } = await board.createTask({ title: "Alone", assignee: "coder" });
  await claimed(board, alone.id, "L1");
  const blocked = await board.block(alone.id, "waits for the vendor", {
    kind: "dependency",
    lock: "L1",
  });
  assert.equal(blocked.status, "blocked");
  assert.deepEqual([blocked.block_kind, blocked.block_recurrences], ["dependency", 1]);
  assert.equal((await board.events(alone.id)).at(-1)!.kind, "blocked");
  assert.deepEqual(await board.promoteReady(), [], "not promoted behind a person's back");
  assert.equal((await task(board, alone.id)).status, "blocked");
});

Deno.test("a person's move starts the needs_input streak over", async () => {
  await using env = await openTestBoard();
  const { board } = env;
  const { task: work } = await board.createTask({ title: "Work", assignee: "coder" });
  await board.block(work.id, "which database?", { kind: "needs_input" });
  const moved = await board.move(work.id, "ready", "alice");
  assert.deepEqual([moved.status, moved.block_kind, moved.block_recurrences], ["ready", null, 0]);
  const again = await board.block(work.id, "which database, again?", { kind: "needs_input" });
  assert.equal(again.status, "blocked", "a first block after the person decided, not a loop");
  assert.equal(again.block_recurrences, 1);
});
