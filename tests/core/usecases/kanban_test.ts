import assert from "node:assert/strict";
import { join } from "node:path";
import { HeraldError, NotFoundError } from "../../../core/errors.ts";
import { runKanbanCommand } from "../../../core/kanban/kanban_command.ts";
import { kanbanCommand } from "../../../core/commands/kanban.ts";
import {
  assignTask,
  boardStats,
  commentTask,
  completeTask,
  createTask,
  type KanbanContext,
  linkTasks,
  listTasks,
  showTask,
  tailEvents,
} from "../../../core/usecases/kanban.ts";
import { profilePaths } from "../../../adapters/home/mod.ts";
import { kanbanOpener, openKanban } from "../../../adapters/runtime/kanban.ts";
import { tempDir } from "../../_helpers.ts";

/** A Herald root with profiles `coder` and `writer` (described) and an optional root config. */
async function makeRoot(root: string, config = ""): Promise<void> {
  for (const [name, description] of [["coder", "Writes code."], ["writer", "Writes prose."]]) {
    const home = join(root, "profiles", name);
    await Deno.mkdir(home, { recursive: true });
    await Deno.writeTextFile(join(home, "profile.yaml"), `description: ${description}\n`);
  }
  await Deno.writeTextFile(join(root, "config.yaml"), config);
}

/** Opens the board as profile `name` of `root`, closing it on dispose. */
async function board(
  root: string,
  name = "default",
  now = () => 1_000_000,
): Promise<KanbanContext & AsyncDisposable> {
  const context = await openKanban(root, profilePaths(root, name), { HERALD_HOME: root }, { now });
  return { ...context, [Symbol.asyncDispose]: () => Promise.resolve(context.board.close()) };
}

Deno.test("the profiles on disk and their descriptions reach the kanban context", async () => {
  await using home = await tempDir();
  await makeRoot(home.path);
  await using kanban = await board(home.path);
  assert.deepEqual(await kanban.profiles(), [
    { name: "default", description: "" },
    { name: "coder", description: "Writes code." },
    { name: "writer", description: "Writes prose." },
  ]);
  assert.deepEqual(await kanban.settings(), { defaultProfile: "default" });
  assert.equal(kanban.actor, "default");
});

Deno.test("an unknown assignee goes to kanban.default_assignee, else the default profile", async () => {
  await using home = await tempDir();
  await makeRoot(home.path);
  // The settings are the profile in use's: coder's config names writer.
  await Deno.writeTextFile(
    join(home.path, "profiles", "coder", "config.yaml"),
    "kanban:\n  default_assignee: writer\n",
  );
  await using kanban = await board(home.path, "coder");
  const asked = await createTask(kanban, { title: "Fix the build", assignee: "Coder" });
  assert.equal(asked.task.assignee, "coder");
  assert.equal(asked.assignee_source, "requested");
  assert.equal(asked.requested_assignee, null);
  assert.equal(asked.task.created_by, "coder");

  const ghost = await createTask(kanban, { title: "Haunt", assignee: "ghost" });
  assert.equal(ghost.task.assignee, "writer");
  assert.equal(ghost.assignee_source, "kanban.default_assignee");
  assert.equal(ghost.requested_assignee, "ghost");

  await using fresh = await board(home.path);
  const none = await createTask(fresh, { title: "Anything" });
  assert.equal(none.task.assignee, "default");
  assert.equal(none.assignee_source, "default_profile");
  assert.equal(none.requested_assignee, null);
});

Deno.test("linking, completing and the event log: a finished parent promotes its child", async () => {
  await using home = await tempDir();
  await makeRoot(home.path);
  await using kanban = await board(home.path);
  const parent = (await createTask(kanban, { title: "Draft", assignee: "writer" })).task;
  const child = (await createTask(kanban, { title: "Review", assignee: "coder" })).task;
  assert.equal(child.status, "ready");

  const linked = await linkTasks(kanban, parent.id, child.id);
  assert.equal(linked.task.status, "todo");
  assert.deepEqual(linked.parents, [parent.id]);
  await assert.rejects(
    linkTasks(kanban, child.id, parent.id),
    (error: unknown) => error instanceof HeraldError && error.code === "kanban_link_cycle",
  );
  assert.equal((await showTask(kanban, child.id)).task.status, "todo", "nothing written");

  await commentTask(kanban, parent.id, "first pass done");
  const done = await completeTask(kanban, parent.id, "drafted");
  assert.deepEqual(done.promoted.map((task) => task.id), [child.id]);
  assert.equal((await showTask(kanban, child.id)).task.status, "ready");

  const detail = await showTask(kanban, parent.id);
  assert.deepEqual(detail.children, [child.id]);
  assert.equal(detail.comments[0].author, "default");
  assert.deepEqual(detail.events.map((event) => event.kind), ["created", "commented", "completed"]);

  const log = await tailEvents(kanban, {});
  assert.deepEqual(log.map((event) => event.kind), [
    "created",
    "created",
    "linked",
    "commented",
    "completed",
    "promoted",
  ]);
  const since = log[3].seq;
  assert.deepEqual((await tailEvents(kanban, { since })).map((event) => event.kind), [
    "completed",
    "promoted",
  ]);
  assert.deepEqual((await tailEvents(kanban, { taskId: child.id })).map((e) => e.kind), [
    "created",
    "linked",
    "promoted",
  ]);
});

Deno.test("an idempotency key returns the first task and writes nothing more", async () => {
  await using home = await tempDir();
  await makeRoot(home.path);
  await using kanban = await board(home.path);
  const first = await createTask(kanban, { title: "Once", idempotencyKey: "k-1" });
  const again = await createTask(kanban, { title: "Twice", idempotencyKey: "k-1" });
  assert.equal(first.created, true);
  assert.equal(again.created, false);
  assert.equal(again.task.id, first.task.id);
  assert.equal((await listTasks(kanban, {})).length, 1);
});

Deno.test("assigning to a profile that does not exist is refused and nothing changes", async () => {
  await using home = await tempDir();
  await makeRoot(home.path);
  await using kanban = await board(home.path);
  const { task } = await createTask(kanban, { title: "Code it", assignee: "coder" });
  await assert.rejects(
    assignTask(kanban, task.id, "codr"),
    (error: unknown) =>
      error instanceof HeraldError && error.kind === "usage" &&
      /No profile "codr"; did you mean coder\?/.test(error.message),
  );
  assert.equal((await showTask(kanban, task.id)).task.assignee, "coder");
  assert.equal((await assignTask(kanban, task.id, "Writer")).assignee, "writer");
  await assert.rejects(showTask(kanban, "t_00000000"), NotFoundError);
});

Deno.test("the list hides archived tasks unless asked, and stats count per status and assignee", async () => {
  await using home = await tempDir();
  await makeRoot(home.path);
  let clock = 1_000_000;
  await using kanban = await board(home.path, "default", () => clock);
  const a = (await createTask(kanban, { title: "A", assignee: "coder", priority: 1 })).task;
  clock += 60_000;
  const b = (await createTask(kanban, { title: "B", assignee: "coder", triage: true })).task;
  const c = (await createTask(kanban, { title: "C", assignee: "writer" })).task;
  await kanban.board.archive(c.id);
  clock += 120_000;
  assert.deepEqual((await listTasks(kanban, {})).map((task) => task.id), [a.id, b.id]);
  assert.deepEqual((await listTasks(kanban, { all: true })).length, 3);
  assert.deepEqual((await listTasks(kanban, { status: "archived" })).map((t) => t.id), [c.id]);
  assert.deepEqual((await listTasks(kanban, { assignee: "CODER" })).length, 2);
  const stats = await boardStats(kanban);
  assert.equal(stats.total, 3);
  assert.deepEqual(
    {
      ready: stats.by_status.ready,
      triage: stats.by_status.triage,
      archived: stats.by_status.archived,
    },
    { ready: 1, triage: 1, archived: 1 },
  );
  assert.deepEqual(stats.by_assignee, { coder: { ready: 1, triage: 1 }, writer: { archived: 1 } });
  assert.equal(stats.oldest_ready_age_ms, 180_000);
});

Deno.test("/kanban in a chat uses the same parser and board as the CLI", async () => {
  await using home = await tempDir();
  await makeRoot(home.path);
  const open = kanbanOpener(home.path, profilePaths(home.path, "coder"), {
    HERALD_HOME: home.path,
  });
  const made = await kanbanCommand.run('create "Ship it" --assignee nobody', {
    model: "m",
    provider: "p",
    kanban: open,
  });
  assert.equal(made.kind, "reply");
  const text = made.kind === "reply" ? made.text : "";
  assert.match(text, /^Created t_[0-9a-f]{8} "Ship it" \(ready, assignee=default\)/);
  assert.match(text, /No profile "nobody"; assigned to the default profile \(default\)\./);
  const id = /t_[0-9a-f]{8}/.exec(text)![0];
  assert.match(await runKanbanCommand(`comment ${id} on it`, { kanban: open }), /as coder/);
  assert.match(
    await runKanbanCommand(`link ${id} ${id}`, { kanban: open }),
    /cannot depend on itself/,
  );
  assert.match(await runKanbanCommand("list", { kanban: open }), new RegExp(`${id}\\s+ready`));
  assert.match(
    await runKanbanCommand("decompose --all", { kanban: open }),
    /No triage task to decompose/,
  );
  assert.match(
    await runKanbanCommand(`decompose ${id}`, { kanban: open }),
    new RegExp(`${id}" is ready, not in triage`),
  );
  const triage = /t_[0-9a-f]{8}/.exec(
    await runKanbanCommand('create "Plan the launch" --triage', { kanban: open }),
  )![0];
  // No model is configured in this home: the decomposer says so and writes nothing.
  assert.match(
    await runKanbanCommand(`decompose ${triage}`, { kanban: open }),
    /no auxiliary client is configured/i,
  );
  assert.match(
    await runKanbanCommand("decompose --all", { kanban: open }),
    new RegExp(`${triage}: not decomposed: .*no auxiliary client`, "i"),
  );
  assert.match(await runKanbanCommand(`show ${triage}`, { kanban: open }), /status\s+triage/);
});
