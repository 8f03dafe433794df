import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { eventKinds, heraldError, openTestBoard, T0 } from "../../_kanban_board.ts";
import { raceWorkers } from "../../_workers.ts";

const WORKER = new URL("./_claim_worker.ts", import.meta.url).pathname;
Deno.test("a new task is ready, todo under an unfinished parent, triage when asked", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const { task: parent, created } = await board.createTask({ title: "Plan", assignee: "Lead" });
  assert.equal(created, true);
  assert.match(parent.id, /^t_[0-9a-f]{8}$/);
  assert.equal(parent.status, "ready");
  assert.equal(parent.assignee, "lead");
  assert.equal(parent.board, "default");
  const { task: child } = await board.createTask({
    title: "Build",
    assignee: "coder",
    parents: [parent.id],
  });
  assert.equal(child.status, "todo");
  const { task: triage } = await board.createTask({
    title: "Big idea",
    assignee: "lead",
    triage: true,
  });
  assert.equal(triage.status, "triage");
  const created0 = (await board.events(child.id))[0];
  assert.equal(created0.kind, "created");
  assert.deepEqual(created0.payload, { assignee: "coder", status: "todo", parents: [parent.id] });
  assert.deepEqual(await board.links(child.id), [{ parent_id: parent.id, child_id: child.id }]);
});

Deno.test("completing the last unfinished parent promotes the child with a promoted event", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const { task: a } = await board.createTask({ title: "A", assignee: "x" });
  const { task: b } = await board.createTask({ title: "B", assignee: "x" });
  const { task: child } = await board.createTask({
    title: "C",
    assignee: "x",
    parents: [a.id, b.id],
  });
  const first = await board.complete(a.id, "A is done");
  assert.deepEqual(first.promoted, []);
  assert.equal((await board.getTask(child.id))!.status, "todo");
  const second = await board.complete(b.id, "B is done");
  assert.equal(second.task.status, "done");
  assert.equal(second.task.result, "B is done");
  assert.deepEqual(second.promoted.map((task) => [task.id, task.status]), [[child.id, "ready"]]);
  assert.deepEqual(await eventKinds(board, child.id), ["created", "promoted"]);
  const all = await board.events();
  assert.deepEqual(all.map((event) => event.seq), all.map((_, index) => index + 1));
  assert.equal(await board.lastEventSeq(), all.at(-1)!.seq);
});

Deno.test("a self-link and a cycle are refused and nothing is written", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const { task: a } = await board.createTask({ title: "A", assignee: "x" });
  const { task: b } = await board.createTask({ title: "B", assignee: "x", parents: [a.id] });
  const { task: c } = await board.createTask({ title: "C", assignee: "x", parents: [b.id] });
  const before = await board.events();
  await assert.rejects(() => board.link(a.id, a.id), heraldError("kanban_link_self", a.id));
  await assert.rejects(
    () => board.link(c.id, a.id),
    heraldError("kanban_link_cycle", `${c.id} -> ${a.id} -> ${b.id} -> ${c.id}`),
  );
  assert.deepEqual(await board.events(), before);
  assert.deepEqual(await board.links(a.id), [{ parent_id: a.id, child_id: b.id }]);
  assert.equal((await board.getTask(a.id))!.status, "ready");
});

Deno.test("a link across boards is refused and nothing is written", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  await board.createBoard("ops");
  const { task: here } = await board.createTask({ title: "Here", assignee: "x" });
  const { task: there } = await board.createTask({ title: "There", assignee: "x", board: "ops" });
  const before = await board.events();
  await assert.rejects(
    () => board.link(here.id, there.id),
    heraldError("kanban_link_board", "ops"),
  );
  await assert.rejects(() => board.link(there.id, here.id), heraldError("kanban_link_board"));
  assert.deepEqual(await board.events(), before);
  assert.deepEqual(await board.links(here.id), []);
  assert.equal((await board.getTask(there.id))!.status, "ready");
});

Deno.test("linking a ready task under an unfinished parent sends it back to todo", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const { task: a } = await board.createTask({ title: "A", assignee: "x" });
  const { task: b } = await board.createTask({ title: "B", assignee: "x" });
  await board.link(a.id, b.id);
  assert.equal((await board.getTask(b.id))!.status, "todo");
  assert.equal(await board.unlink(a.id, b.id), true);
  assert.equal((await board.getTask(b.id))!.status, "ready");
  assert.equal(await board.unlink(a.id, b.id), false);
  assert.deepEqual(await eventKinds(board, b.id), ["created", "linked", "unlinked", "promoted"]);
});

Deno.test("an idempotency key that exists returns the existing task", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const first = await board.createTask({ title: "Once", assignee: "x", idempotency_key: "k1" });
  const again = await board.createTask({ title: "Twice", assignee: "y", idempotency_key: "k1" });
  assert.equal(again.created, false);
  assert.deepEqual(again.task, first.task);
  assert.equal((await board.listTasks()).length, 1);
  await board.archive(first.task.id);
  const fresh = await board.createTask({ title: "After", assignee: "x", idempotency_key: "k1" });
  assert.equal(fresh.created, true);
  assert.notEqual(fresh.task.id, first.task.id);
});

Deno.test("bad input is refused with a clear error and writes nothing", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  await assert.rejects(
    () => board.createTask({ title: " ", assignee: "x" }),
    heraldError("kanban_required", "title"),
  );
  await assert.rejects(
    () => board.createTask({ title: "T", assignee: "" }),
    heraldError("kanban_required", "assignee"),
  );
  await assert.rejects(
    () => board.createTask({ title: "T", assignee: "x", parents: ["t_00000000"] }),
    heraldError("not_found", '"t_00000000"'),
  );
  await assert.rejects(
    () => board.createTask({ title: "T", assignee: "x", board: "nowhere" }),
    heraldError("not_found", '"nowhere"'),
  );
  assert.deepEqual(await board.listTasks(), []);
  assert.deepEqual(await board.events(), []);
});

Deno.test("claim, heartbeat, block, unblock, assign and complete keep runs and events", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const { task } = await board.createTask({ title: "Work", assignee: "coder" });
  const claim = { lock: "host:1", expiresAt: T0 + 900_000, pid: 4242 };
  assert.equal(await board.claim(task.id, claim), true);
  assert.equal(await board.claim(task.id, { ...claim, lock: "host:2" }), false);
  const running = (await board.getTask(task.id))!;
  assert.equal(running.status, "running");
  assert.equal(running.claim_lock, "host:1");
  assert.equal(running.worker_pid, 4242);
  await assert.rejects(() => board.assign(task.id, "writer"), heraldError("kanban_task_running"));
  assert.equal(await board.heartbeat(task.id, "host:1", T0 + 1_800_000), true);
  assert.equal(await board.heartbeat(task.id, "host:2", T0 + 1_800_000), false);
  assert.equal((await board.getTask(task.id))!.claim_expires, T0 + 1_800_000);
  const blocked = await board.block(task.id, "needs the API key");
  assert.equal(blocked.status, "blocked");
  assert.equal(blocked.claim_lock, null);
  assert.equal((await board.complete(task.id, "done by hand")).task.status, "done");
  await assert.rejects(
    () => board.complete(task.id, "again"),
    heraldError("kanban_task_status", '"' + task.id + '" is done'),
  );
  const runs = await board.runs(task.id);
  assert.deepEqual(runs.map((run) => [run.outcome, run.error]), [["blocked", "needs the API key"]]);
  assert.deepEqual(await eventKinds(board, task.id), [
    "created",
    "claimed",
    "heartbeat",
    "blocked",
    "completed",
  ]);
});

Deno.test("unblock goes back to ready and assign records the new profile", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const { task } = await board.createTask({ title: "Work", assignee: "coder" });
  await assert.rejects(() => board.unblock(task.id), heraldError("kanban_task_status", "is ready"));
  await board.block(task.id, "waiting");
  assert.equal((await board.unblock(task.id)).status, "ready");
  assert.equal((await board.assign(task.id, "Writer")).assignee, "writer");
  const comment = await board.comment(task.id, "lead", "Looks good");
  assert.deepEqual(await board.comments(task.id), [comment]);
  assert.deepEqual(await eventKinds(board, task.id), [
    "created",
    "blocked",
    "unblocked",
    "assigned",
    "commented",
  ]);
});

Deno.test("an expired claim on a ready task can be taken, a live one cannot", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board, path } = env;
  const { task } = await board.createTask({ title: "Work", assignee: "coder" });
  const db = new DatabaseSync(path);
  try {
    db.prepare("UPDATE tasks SET claim_lock = 'old:1', claim_expires = ? WHERE id = ?")
      .run(T0 + 3_600_000, task.id);
    assert.equal(await board.claim(task.id, { lock: "new:2", expiresAt: T0 + 7_200_000 }), false);
    db.prepare("UPDATE tasks SET claim_expires = ? WHERE id = ?").run(T0, task.id);
  } finally {
    db.close();
  }
  assert.equal(await board.claim(task.id, { lock: "new:2", expiresAt: T0 + 7_200_000 }), true);
  assert.equal((await board.getTask(task.id))!.claim_lock, "new:2");
});

Deno.test("two processes claiming the same ready tasks claim each exactly once", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board, path, dir } = env;
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    ids.push((await board.createTask({ title: `Task ${i}`, assignee: "coder" })).task.id);
  }
  const results = await raceWorkers({
    script: WORKER,
    target: path,
    labels: ["a", "b", "c"],
    count: 2,
    barrier: join(dir, "barrier"),
  });
  const won: string[] = [];
  for (const result of results) {
    assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
    won.push(...JSON.parse(new TextDecoder().decode(result.stdout)).won);
  }
  assert.deepEqual([...won].sort(), [...ids].sort());
  for (const id of ids) {
    const claims = (await board.events(id)).filter((event) => event.kind === "claimed");
    assert.equal(claims.length, 1, id);
    assert.equal((await board.runs(id)).length, 1, id);
  }
});

Deno.test("the default board always exists and cannot be removed", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  assert.deepEqual((await board.listBoards()).map((b) => b.slug), ["default"]);
  await assert.rejects(() => board.removeBoard("default"), heraldError("kanban_default_board"));
  await assert.rejects(() => board.removeBoard(" DEFAULT "), heraldError("kanban_default_board"));
  const made = await board.createBoard("atm10-server");
  assert.equal(made.name, "Atm10 Server");
  await board.createBoard("alpha");
  assert.deepEqual((await board.listBoards()).map((b) => b.slug), [
    "default",
    "alpha",
    "atm10-server",
  ]);
  const { task } = await board.createTask({ title: "On alpha", assignee: "x", board: "alpha" });
  await board.removeBoard("alpha");
  assert.deepEqual((await board.listBoards()).map((b) => b.slug), ["default", "atm10-server"]);
  assert.equal((await board.getTask(task.id))!.board, "alpha");
  await assert.rejects(() => board.removeBoard("ghost"), heraldError("not_found", '"ghost"'));
});

Deno.test("the event log is append-only and the file is in WAL mode", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board, path } = env;
  await board.createTask({ title: "A", assignee: "x" });
  const db = new DatabaseSync(path);
  try {
    assert.throws(() => db.exec("DELETE FROM task_events"), /append-only/);
    assert.throws(() => db.exec("UPDATE task_events SET kind = 'x'"), /append-only/);
    const mode = db.prepare("PRAGMA journal_mode").get() as { journal_mode: string };
    assert.equal(mode.journal_mode, "wal");
    const version = db.prepare("SELECT max(version) AS v FROM schema_version").get() as {
      v: number;
    };
    assert.equal(version.v, 2);
  } finally {
    db.close();
  }
});
