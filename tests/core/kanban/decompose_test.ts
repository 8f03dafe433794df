import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { HeraldError, ModelError } from "../../../core/errors.ts";
import type { BoardStore, TaskRecord } from "../../../core/kanban/mod.ts";
import {
  type DecomposeOutcome,
  type DecomposePorts,
  decomposerPrompt,
  decomposeTask,
  MAX_GRAPH_TASKS,
  parseGraph,
  type ProfileCard,
} from "../../../core/kanban/decompose.ts";
import { openTestBoard } from "../../_kanban_board.ts";

const PROFILES: ProfileCard[] = [
  { name: "researcher", description: "Reads sources and writes findings with citations." },
  { name: "coder", description: "Writes and tests TypeScript on Deno." },
  { name: "writer", description: "Writes user documentation." },
  { name: "lead", description: "Plans work and judges whether it is done." },
  { name: "default", description: "" },
];

/** Every row of every table of the board, to compare before and after. */
function snapshot(path: string): Record<string, unknown[]> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = ["tasks", "task_links", "task_comments", "task_events", "task_runs", "boards"];
    return Object.fromEntries(
      tables.map((table) => [
        table,
        db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all().map((row) => ({ ...row })),
      ]),
    );
  } finally {
    db.close();
  }
}

/** Ports whose model answers with `reply` (text, or a function of the request) and records the requests. */
function scripted(
  reply: string | ((request: { system: string; user: string }) => string | Promise<string>),
  overrides: Partial<DecomposePorts> = {},
) {
  const requests: { system: string; user: string }[] = [];
  const ports: DecomposePorts = {
    complete: async (request) => {
      requests.push(request);
      return typeof reply === "string" ? reply : await reply(request);
    },
    profiles: PROFILES,
    orchestrator: "lead",
    defaultAssignee: "writer",
    defaultProfile: "default",
    ...overrides,
  };
  return { ports, requests };
}

async function triageTask(
  board: BoardStore,
  title = "Ship the kanban docs site",
): Promise<TaskRecord> {
  const { task } = await board.createTask({
    title,
    body: "Research, build and document it.",
    assignee: "default",
    triage: true,
    priority: 3,
  });
  return task;
}

const FOUR_CHILDREN = {
  fanout: true,
  rationale: "Research first, then build and document in parallel; the logo is independent.",
  tasks: [
    { title: "Survey existing docs generators", body: "Compare three.", assignee: "Researcher" },
    { title: "Build the site", body: "Use the chosen generator.", assignee: "coder", parents: [0] },
    {
      title: "Write the guide",
      body: "Cover create and decompose.",
      assignee: "writer",
      parents: [0],
    },
    { title: "Draw a logo", body: "A small one.", assignee: "illustrator", parents: [] },
  ],
};

function expectFanout(outcome: DecomposeOutcome) {
  if (!outcome.ok || !outcome.fanout) {
    throw new Error(`expected a fanout, got ${JSON.stringify(outcome)}`);
  }
  return outcome;
}

Deno.test("a reply with 4 children and edges creates them in one write, the root waiting under every leaf for the orchestrator", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const root = await triageTask(board);
  const before = await board.events();
  const reply = "Here is the plan:\n```json\n" + JSON.stringify(FOUR_CHILDREN, null, 2) +
    "\n```\nGood luck!";
  const { ports, requests } = scripted(reply);
  const outcome = expectFanout(await decomposeTask(board, root.id, ports));

  assert.equal(requests.length, 1);
  assert.match(requests[0].user, /Title: Ship the kanban docs site/);
  assert.match(requests[0].user, /- coder: Writes and tests TypeScript on Deno\./);
  assert.match(requests[0].system, /"fanout": true/);

  const [survey, build, guide, logo] = outcome.children;
  assert.deepEqual(
    outcome.children.map((child) => [child.title, child.assignee, child.status, child.priority]),
    [
      ["Survey existing docs generators", "researcher", "ready", 3],
      ["Build the site", "coder", "todo", 3],
      ["Write the guide", "writer", "todo", 3],
      // "illustrator" is no profile: kanban.default_assignee.
      ["Draw a logo", "writer", "ready", 3],
    ],
  );
  assert.equal(outcome.root.status, "todo");
  assert.equal(outcome.root.assignee, "lead");
  assert.deepEqual(await board.getTask(root.id), outcome.root);

  // Sibling edges, and the root under every leaf (build, guide, logo), not under the survey.
  assert.deepEqual(
    await board.links(survey.id),
    [
      { parent_id: survey.id, child_id: build.id },
      { parent_id: survey.id, child_id: guide.id },
    ].sort((a, b) => a.child_id.localeCompare(b.child_id)),
  );
  const rootParents = (await board.links(root.id)).filter((link) => link.child_id === root.id);
  assert.deepEqual(
    rootParents.map((link) => link.parent_id).sort(),
    [build.id, guide.id, logo.id].sort(),
  );

  const [comment] = await board.comments(root.id);
  assert.equal(comment.author, "decomposer");
  for (const child of outcome.children) assert.ok(comment.body.includes(child.id), comment.body);
  assert.match(
    comment.body,
    new RegExp(`${build.id} "Build the site" \\(coder, after ${survey.id}\\)`),
  );

  // One write: the new events follow on, all at one instant.
  const added = (await board.events()).slice(before.length);
  assert.deepEqual(added.map((event) => [event.task_id, event.kind]), [
    [survey.id, "created"],
    [build.id, "created"],
    [guide.id, "created"],
    [logo.id, "created"],
    [root.id, "commented"],
    [root.id, "decomposed"],
  ]);
  assert.equal(new Set(added.map((event) => event.at)).size, 1);
  assert.deepEqual(added[1].payload, {
    assignee: "coder",
    status: "todo",
    parents: [survey.id],
    decomposed_from: root.id,
  });
  const decomposed = added[5].payload!;
  assert.equal(decomposed.fanout, true);
  assert.deepEqual(decomposed.children, outcome.children.map((child) => child.id));
  assert.deepEqual(decomposed.leaves, [build.id, guide.id, logo.id]);
  assert.equal(decomposed.assignee, "lead");
  assert.equal(decomposed.rationale, FOUR_CHILDREN.rationale);

  // The graph runs: the survey lets build and guide go; the last leaf wakes the root.
  const afterSurvey = await board.complete(survey.id, "Use generator B");
  assert.deepEqual(afterSurvey.promoted.map((task) => task.id).sort(), [build.id, guide.id].sort());
  await board.complete(build.id, "built");
  await board.complete(logo.id, "drawn");
  assert.equal((await board.getTask(root.id))!.status, "todo");
  const last = await board.complete(guide.id, "written");
  assert.deepEqual(last.promoted.map((task) => [task.id, task.status, task.assignee]), [
    [root.id, "ready", "lead"],
  ]);
});

Deno.test("fanout false tightens the task and makes it ready without children", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board, path } = env;
  const root = await triageTask(board, "docs??");
  const tasksBefore = snapshot(path).tasks.length;
  const { ports } = scripted(JSON.stringify({
    fanout: false,
    rationale: "Small enough for one writer.",
    title: "Write the kanban user guide",
    body: "Goal: a guide. Done when it covers every verb.",
    assignee: "writer",
  }));
  const outcome = await decomposeTask(board, root.id, ports);
  assert.ok(outcome.ok && !outcome.fanout);
  assert.equal(outcome.root.status, "ready");
  assert.equal(outcome.root.title, "Write the kanban user guide");
  assert.equal(outcome.root.body, "Goal: a guide. Done when it covers every verb.");
  assert.equal(outcome.root.assignee, "writer");
  assert.equal(snapshot(path).tasks.length, tasksBefore);
  assert.deepEqual(await board.links(root.id), []);
  const [comment] = await board.comments(root.id);
  assert.match(comment.body, /the title was: docs\?\?/);
  assert.match(comment.body, /Research, build and document it\./);
  const last = (await board.events(root.id)).at(-1)!;
  assert.equal(last.kind, "decomposed");
  assert.equal(last.payload!.fanout, false);
  assert.equal(last.payload!.status, "ready");
});

Deno.test("fanout false keeps the task's assignee when the model names no profile", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const root = await triageTask(board);
  const { ports } = scripted('{"fanout": false, "body": "Sharper body.", "assignee": "nobody"}');
  const outcome = await decomposeTask(board, root.id, ports);
  assert.ok(outcome.ok && !outcome.fanout);
  assert.equal(outcome.root.assignee, "default");
  assert.equal(outcome.root.title, root.title);
  assert.equal(outcome.root.body, "Sharper body.");
});

Deno.test("a child without a usable assignee goes to the default profile when no default assignee is set", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const root = await triageTask(board);
  const { ports } = scripted(
    '{"fanout": true, "tasks": [{"title": "A", "assignee": null}, {"title": "B", "assignee": "ghost"}]}',
    { defaultAssignee: undefined },
  );
  const outcome = expectFanout(await decomposeTask(board, root.id, ports));
  assert.deepEqual(outcome.children.map((child) => child.assignee), ["default", "default"]);
  assert.deepEqual(outcome.children.map((child) => child.status), ["ready", "ready"]);
});

/** Runs a decomposition that must fail with `code` and checks the board is unchanged. */
async function expectRefusal(
  env: { board: BoardStore; path: string },
  taskId: string,
  ports: DecomposePorts,
  code: string,
  ...texts: (string | RegExp)[]
): Promise<void> {
  const before = snapshot(env.path);
  const outcome = await decomposeTask(env.board, taskId, ports);
  assert.equal(outcome.ok, false, JSON.stringify(outcome));
  if (outcome.ok) return;
  assert.equal(outcome.code, code, outcome.message);
  for (const text of texts) {
    if (typeof text === "string") assert.ok(outcome.message.includes(text), outcome.message);
    else assert.match(outcome.message, text);
  }
  assert.deepEqual(snapshot(env.path), before);
}

Deno.test("every failed decomposition is an outcome naming the problem and writes nothing", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const root = await triageTask(env.board);
  const graph = (tasks: unknown[]) => JSON.stringify({ fanout: true, tasks });

  await expectRefusal(
    env,
    root.id,
    { ...scripted("{}").ports, complete: null },
    "no_auxiliary_client",
    "No auxiliary client is configured",
    "auxiliary.kanban_decomposer",
  );
  await expectRefusal(
    env,
    root.id,
    scripted(() => {
      throw new ModelError("model_not_configured", "No model is configured");
    }).ports,
    "no_auxiliary_client",
    "No auxiliary client is configured",
  );
  await expectRefusal(
    env,
    root.id,
    scripted(() => {
      throw new Error("HTTP 503 from http://127.0.0.1:9/v1: overloaded");
    }).ports,
    "model_error",
    "HTTP 503 from http://127.0.0.1:9/v1: overloaded",
  );
  await expectRefusal(
    env,
    root.id,
    scripted("Sure! I would split it into research, build and docs.").ports,
    "malformed_json",
    '"Sure! I would split it',
  );
  await expectRefusal(
    env,
    root.id,
    scripted('```json\n{"fanout": true, "tasks": [{"title": "A"},\n```').ports,
    "malformed_json",
  );
  await expectRefusal(env, root.id, scripted("[1, 2, 3]").ports, "malformed_json");
  await expectRefusal(
    env,
    root.id,
    scripted(graph([{ title: "A" }, { title: "B", parents: [0, 7] }])).ports,
    "invalid_graph",
    "task 1 waits for task 7, but the tasks are 0-1",
  );
  await expectRefusal(
    env,
    root.id,
    scripted(graph([{ title: "A", parents: [2] }, { title: "B", parents: [0] }, {
      title: "C",
      parents: [1],
    }])).ports,
    "invalid_graph",
    /tasks (0 -> 2 -> 1 -> 0|1 -> 0 -> 2 -> 1|2 -> 1 -> 0 -> 2) wait for each other in a cycle/,
  );
  await expectRefusal(
    env,
    root.id,
    scripted(graph([{ title: "A", parents: [0] }])).ports,
    "invalid_graph",
    "task 0 waits for itself",
  );
  await expectRefusal(
    env,
    root.id,
    scripted(graph([{ title: "A" }, { body: "no title" }])).ports,
    "invalid_graph",
    'tasks[1] has no "title"',
  );
  await expectRefusal(env, root.id, scripted(graph([])).ports, "invalid_graph", '"tasks"');
  await expectRefusal(
    env,
    root.id,
    scripted('{"tasks": [{"title": "A"}]}').ports,
    "invalid_graph",
    '"fanout" must be true or false',
  );

  const { task: ready } = await env.board.createTask({
    title: "Already planned",
    assignee: "coder",
  });
  const notAsked = scripted(JSON.stringify(FOUR_CHILDREN));
  await expectRefusal(env, ready.id, notAsked.ports, "not_in_triage", `"${ready.id}" is ready`);
  await expectRefusal(env, "t_00000000", notAsked.ports, "unknown_task", '"t_00000000"');
  assert.equal(notAsked.requests.length, 0);
});

Deno.test("a task that leaves triage while the model thinks is not decomposed", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board, path } = env;
  const root = await triageTask(board);
  let before: Record<string, unknown[]> = {};
  const { ports } = scripted(async () => {
    await board.block(root.id, "Waiting for the budget");
    before = snapshot(path);
    return JSON.stringify(FOUR_CHILDREN);
  });
  const outcome = await decomposeTask(board, root.id, ports);
  assert.deepEqual(outcome, {
    ok: false,
    code: "not_in_triage",
    message: `Task "${root.id}" is blocked; only a triage task can be decomposed`,
  });
  assert.deepEqual(snapshot(path), before);
});

Deno.test("the store refuses a graph with a cycle or no children and writes nothing", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board, path } = env;
  const root = await triageTask(board);
  const before = snapshot(path);
  const plan = {
    fanout: true as const,
    rootId: root.id,
    children: [
      { title: "A", body: "", assignee: "coder" },
      { title: "B", body: "", assignee: "coder" },
    ],
    edges: [[0, 1], [1, 0]] as [number, number][],
    rootAssignee: "lead",
    comment: { author: "decomposer", body: () => "split" },
  };
  const graphError = (text: string) => (error: unknown) =>
    error instanceof HeraldError && error.code === "kanban_graph" && error.message.includes(text);
  await assert.rejects(() => board.commitDecomposition(plan), graphError("cycle"));
  await assert.rejects(
    () => board.commitDecomposition({ ...plan, edges: [[0, 2]] }),
    graphError("task 2"),
  );
  await assert.rejects(
    () => board.commitDecomposition({ ...plan, children: [], edges: [] }),
    graphError("at least one child"),
  );
  assert.deepEqual(snapshot(path), before);
});

Deno.test("parseGraph reads bare JSON, a fence or prose around it, and caps the graph", () => {
  const bare = parseGraph(
    '{"fanout": true, "tasks": [{"title": "  A  ", "parents": [], "body": 3}]}',
  );
  assert.deepEqual(bare, {
    ok: true,
    graph: {
      fanout: true,
      rationale: null,
      tasks: [{ title: "A", body: "", assignee: null, parents: [] }],
    },
  });
  const prose = parseGraph('I think {"fanout": false, "title": "T"} is right.');
  assert.ok(prose.ok && !prose.graph.fanout && prose.graph.title === "T");
  const fenced = parseGraph('```\n{"fanout": false, "body": "B"}\n```');
  assert.ok(fenced.ok && !fenced.graph.fanout && fenced.graph.body === "B");
  const many = parseGraph(JSON.stringify({
    fanout: true,
    tasks: Array.from({ length: MAX_GRAPH_TASKS + 1 }, (_, i) => ({ title: `T${i}` })),
  }));
  assert.ok(!many.ok && many.code === "invalid_graph" && many.message.includes("at most 50"));
  const empty = parseGraph("");
  assert.ok(!empty.ok && empty.code === "malformed_json");
  const nonIndex = parseGraph(
    '{"fanout": true, "tasks": [{"title": "A"}, {"title": "B", "parents": ["A"]}]}',
  );
  assert.ok(
    !nonIndex.ok && nonIndex.message.includes('tasks[1].parents holds "A", not a task index'),
  );
});

Deno.test("the prompt lists the task and every profile, marking one without a description", () => {
  const task = {
    id: "t_0badc0de",
    title: "Plan the launch",
    body: "x".repeat(5000),
  } as TaskRecord;
  const { system, user } = decomposerPrompt(task, PROFILES);
  assert.match(user, /^Task t_0badc0de\nTitle: Plan the launch\nBody:\n/);
  assert.match(user, /\[1000 characters cut\]/);
  assert.match(user, /- default: \(no description; the profile is named "default"\)/);
  assert.match(user, /- lead: Plans work and judges whether it is done\./);
  assert.match(system, /"parents": \[<indices>\]/);
});

Deno.test("children that start the graph wait for what the root waited for", async () => {
  await using env = await openTestBoard({ tickMs: 1000 });
  const { board } = env;
  const { task: spec } = await board.createTask({ title: "Agree the spec", assignee: "lead" });
  const { task: root } = await board.createTask({
    title: "Build to the spec",
    assignee: "default",
    triage: true,
    parents: [spec.id],
  });
  const outcome = expectFanout(
    await decomposeTask(board, root.id, scripted(JSON.stringify(FOUR_CHILDREN)).ports),
  );
  const [survey, build, guide, logo] = outcome.children;
  const parentsOf = async (id: string) =>
    (await board.links(id)).filter((link) => link.child_id === id).map((link) => link.parent_id)
      .sort();
  // The survey and the logo start the graph: they wait for the spec, as the root did.
  assert.deepEqual(await parentsOf(survey.id), [spec.id]);
  assert.deepEqual(await parentsOf(logo.id), [spec.id]);
  assert.deepEqual(await parentsOf(build.id), [survey.id]);
  assert.deepEqual(await parentsOf(guide.id), [survey.id]);
  assert.deepEqual(outcome.children.map((child) => child.status), ["todo", "todo", "todo", "todo"]);
  const finished = await board.complete(spec.id, "agreed");
  assert.deepEqual(finished.promoted.map((task) => task.id).sort(), [survey.id, logo.id].sort());

  // With the root's parent already done, the first children are ready at once.
  const { task: again } = await board.createTask({
    title: "Second build",
    assignee: "default",
    triage: true,
    parents: [spec.id],
  });
  const second = expectFanout(
    await decomposeTask(board, again.id, scripted(JSON.stringify(FOUR_CHILDREN)).ports),
  );
  assert.deepEqual(second.children.map((child) => child.status), [
    "ready",
    "todo",
    "todo",
    "ready",
  ]);
});
