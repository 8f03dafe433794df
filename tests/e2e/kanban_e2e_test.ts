/**
 * The real `herald kanban` as a subprocess in a temporary home: a task
 * created, listed and shown; a child linked to it, promoted when the parent
 * completes; the event log tailed; an unknown assignee rewritten (and
 * said); a cycle and bad input refused with exit 2 and nothing written; an
 * idempotency key returning the first task; a dry-run dispatch that writes nothing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../_helpers.ts";
import { configureModel, runHerald } from "./_herald.ts";
import { startModelServer } from "../fakes/model_server.ts";

interface Task {
  id: string;
  status: string;
  assignee: string;
  board: string;
}

async function herald(home: string, ...args: string[]) {
  return await runHerald({ args, home });
}

/** Runs a `--json` command that must succeed and returns its parsed output. */
async function json<T>(home: string, ...args: string[]): Promise<T> {
  const run = await herald(home, "kanban", ...args, "--json");
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as T;
}

Deno.test("herald kanban walks a task from create to completion, with its child promoted", async () => {
  await using home = await tempDir();
  await Deno.mkdir(join(home.path, "profiles", "coder"), { recursive: true });
  await Deno.writeTextFile(
    join(home.path, "profiles", "coder", "profile.yaml"),
    "description: Writes code.\n",
  );

  const made = await herald(
    home.path,
    "kanban",
    "create",
    "Write the parser",
    "--assignee",
    "coder",
  );
  assert.equal(made.code, 0, made.stderr);
  assert.match(
    made.stdout,
    /^Created t_[0-9a-f]{8} "Write the parser" \(ready, assignee=coder\)\n$/,
  );
  const parent = /t_[0-9a-f]{8}/.exec(made.stdout)![0];

  const child = await json<{ task: Task; assignee_source: string }>(
    home.path,
    "create",
    "Test the parser",
    "--parent",
    parent,
    "--assignee",
    "coder",
  );
  assert.equal(child.task.status, "todo");

  const listed = await json<{ tasks: Task[] }>(home.path, "list");
  assert.deepEqual(listed.tasks.map((task) => [task.id, task.status]), [
    [parent, "ready"],
    [child.task.id, "todo"],
  ]);
  const table = await herald(home.path, "kanban", "list");
  assert.match(
    table.stdout,
    new RegExp(`^${parent}\\s+ready\\s+0\\s+coder\\s+Write the parser$`, "m"),
  );

  const shown = await json<{ task: Task; children: string[] }>(home.path, "show", parent);
  assert.deepEqual(shown.children, [child.task.id]);

  const other = await json<{ task: Task }>(home.path, "create", "Docs");
  const linked = await herald(home.path, "kanban", "link", other.task.id, child.task.id);
  assert.equal(linked.code, 0, linked.stderr);
  const unlinked = await herald(home.path, "kanban", "unlink", other.task.id, child.task.id);
  assert.match(unlinked.stdout, /no longer waits for/);

  const done = await json<{ task: Task; promoted: Task[] }>(
    home.path,
    "complete",
    parent,
    "--result",
    "parser written",
  );
  assert.equal(done.task.status, "done");
  assert.deepEqual(done.promoted.map((task) => [task.id, task.status]), [[child.task.id, "ready"]]);

  const tail = await json<{ events: { seq: number; task_id: string; kind: string }[] }>(
    home.path,
    "tail",
  );
  assert.deepEqual(tail.events.map((event) => event.kind), [
    "created",
    "created",
    "created",
    "linked",
    "unlinked",
    "completed",
    "promoted",
  ]);
  const since = tail.events[4].seq;
  const later = await herald(home.path, "kanban", "tail", "--since", String(since));
  assert.equal(later.code, 0, later.stderr);
  assert.deepEqual(later.stdout.trim().split("\n").map((line) => line.split(/\s+/)[4]), [
    "completed",
    "promoted",
  ]);
  const stats = await json<{ by_status: Record<string, number> }>(home.path, "stats");
  assert.deepEqual([stats.by_status.done, stats.by_status.ready], [1, 2]);
});

Deno.test("herald kanban rewrites an unknown assignee, refuses a cycle and honours idempotency", async () => {
  await using home = await tempDir();
  const ghost = await herald(home.path, "kanban", "create", "Haunt", "--assignee", "ghost");
  assert.equal(ghost.code, 0, ghost.stderr);
  assert.match(
    ghost.stdout,
    /\(ready, assignee=default\)\nNo profile "ghost"; assigned to the default profile \(default\)\.\n$/,
  );
  const a = /t_[0-9a-f]{8}/.exec(ghost.stdout)![0];

  const quiet = await herald(home.path, "kanban", "create", "B", "--assignee", "ghost", "--json");
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(JSON.parse(quiet.stdout).requested_assignee, "ghost");
  assert.match(quiet.stderr, /No profile "ghost"/);
  const b = JSON.parse(quiet.stdout).task.id;

  assert.equal((await herald(home.path, "kanban", "link", a, b)).code, 0);
  const before = await json<{ events: unknown[] }>(home.path, "tail");
  const cycle = await herald(home.path, "kanban", "link", b, a);
  assert.equal(cycle.code, 2);
  assert.equal(cycle.stdout, "");
  assert.match(cycle.stderr, new RegExp(`would close the cycle ${b} -> ${a} -> ${b}`));
  assert.equal(cycle.stderr.trim().split("\n").length, 1);
  const self = await herald(home.path, "kanban", "link", a, a);
  assert.equal(self.code, 2);
  assert.match(self.stderr, /cannot depend on itself/);
  const bad = await herald(home.path, "kanban", "create", "x", "--priority", "high");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--priority "high" is not a whole number/);
  const missing = await herald(home.path, "kanban", "show", "t_00000000");
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Task "t_00000000" not found/);
  const after = await json<{ events: unknown[] }>(home.path, "tail");
  assert.equal(after.events.length, before.events.length, "nothing written");

  const first = await json<{ task: Task; created: boolean }>(
    home.path,
    "create",
    "Once",
    "--idempotency-key",
    "release-7",
  );
  const again = await herald(
    home.path,
    "kanban",
    "create",
    "Twice",
    "--idempotency-key",
    "release-7",
  );
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`^Exists already: ${first.task.id} "Once"`));
  const tasks = await json<{ tasks: Task[] }>(home.path, "list");
  assert.equal(tasks.tasks.filter((task) => task.id === first.task.id).length, 1);
  assert.equal(tasks.tasks.length, 3);

  const notTriage = await herald(home.path, "kanban", "decompose", a);
  assert.equal(notTriage.code, 2);
  assert.match(notTriage.stderr, /is ready, not in triage/);

  const dispatch = await herald(home.path, "kanban", "dispatch", "--dry-run");
  assert.equal(dispatch.code, 0, dispatch.stderr);
  assert.match(dispatch.stdout, /^Dry run, nothing written:\n/);
  assert.match(dispatch.stdout, new RegExp(`would start ${a} as default`));
  const still = await json<{ tasks: Task[] }>(home.path, "list", "--status", "running");
  assert.deepEqual(still.tasks, []);
});

Deno.test("herald kanban boards are created, listed and removed; default stays", async () => {
  await using home = await tempDir();
  const made = await herald(home.path, "kanban", "boards", "create", "Ops");
  assert.equal(made.code, 0, made.stderr);
  const task = await json<{ task: Task }>(home.path, "create", "Rotate keys", "--board", "ops");
  assert.equal(task.task.board, "ops");
  assert.deepEqual((await json<{ tasks: Task[] }>(home.path, "list")).tasks, []);
  assert.equal(
    (await json<{ tasks: Task[] }>(home.path, "list", "--board", "ops")).tasks.length,
    1,
  );
  const boards = await json<{ boards: { slug: string }[] }>(home.path, "boards", "list");
  assert.deepEqual(boards.boards.map((board) => board.slug), ["default", "ops"]);
  const bad = await herald(home.path, "kanban", "boards", "create", "ops!");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Board slug "ops!" is not valid/);
  const keep = await herald(home.path, "kanban", "boards", "rm", "default");
  assert.equal(keep.code, 2);
  assert.match(keep.stderr, /"default" board cannot be removed/);
  assert.equal((await herald(home.path, "kanban", "boards", "rm", "ops")).code, 0);
  const left = await json<{ boards: { slug: string }[] }>(home.path, "boards", "list");
  assert.deepEqual(left.boards.map((board) => board.slug), ["default"]);
});

Deno.test("herald kanban decompose splits a triage task with the model's graph, the root waiting on the leaves", async () => {
  await using home = await tempDir();
  const graph = {
    fanout: true,
    rationale: "two independent parts, then a check",
    tasks: [
      { title: "Write the lexer", body: "Tokens.", assignee: null, parents: [] },
      { title: "Write the grammar", body: "Rules.", assignee: null, parents: [] },
      { title: "Check both", body: "Tests.", assignee: null, parents: [0, 1] },
    ],
  };
  await using model = await startModelServer({
    replies: [{ text: "Here it is:\n```json\n" + JSON.stringify(graph) + "\n```" }],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  const root = await json<{ task: Task }>(home.path, "create", "Build a parser", "--triage");
  assert.equal(root.task.status, "triage");

  const run = await herald(home.path, "kanban", "decompose", root.task.id);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(model.requests.length, 1, "the decomposer asked the model once");

  const listed = await json<{ tasks: (Task & { title: string })[] }>(home.path, "list");
  const byTitle = new Map(listed.tasks.map((task) => [task.title, task]));
  assert.equal(byTitle.get("Write the lexer")?.status, "ready");
  assert.equal(byTitle.get("Write the grammar")?.status, "ready");
  assert.equal(byTitle.get("Check both")?.status, "todo", "waits for its two parents");
  assert.equal(byTitle.get("Build a parser")?.status, "todo", "the root waits for the leaf");
});
