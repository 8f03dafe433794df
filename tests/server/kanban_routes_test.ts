/**
 * `/api/plugins/kanban` over a real temp Herald root and its real
 * `kanban.db`: the board grouped by columns (archived on request), a task's
 * detail, create, edit, move (a refused move a 409), comments, the event
 * log since a sequence number; the profile roster, a person's description
 * and a generated one (none without a model: a 400 saying what to set);
 * the orchestration settings with their resolved fallbacks (an unknown
 * profile a 422 naming it, config.yaml written); decomposition with the
 * scripted model (each failure an `{ok: false, code}` with its status);
 * and the relay that puts the board's events, written by another
 * connection, on the event bus only while someone listens.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { EventBus, type HeraldEvent } from "../../core/events/mod.ts";
import { kanbanDbPath } from "../../adapters/home/mod.ts";
import { openSqliteBoard } from "../../adapters/kanban/mod.ts";
import { KanbanRelay } from "../../server/kanban_live.ts";
import { tempDir } from "../_helpers.ts";
import { configureModel } from "../e2e/_herald.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { readOr, routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;
type Card = {
  id: string;
  title: string;
  status: string;
  priority: number;
  assignee: string;
  updated_at: number;
};
type Column = { status: string; tasks: (Card & { parents: number; children: number })[] };

const K = "/api/plugins/kanban";

function errorOf(body: Json): { code: string; message: string; details?: Json } {
  return body.error as { code: string; message: string; details?: Json };
}

/** A test app with a `work` profile and a bus whose kanban events are recorded. */
async function kanbanApp(root: string, env: Record<string, string> = {}) {
  const events = new EventBus();
  const routes = await routesApp(root, { events, env: { CUSTOM_API_KEY: "k", ...env } });
  const create = async (body: Json) => {
    const made = await routes.json("POST", `${K}/tasks`, body);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    return (made.body.task as Card);
  };
  const board = async (query = "") => {
    const got = await routes.json("GET", `${K}/board${query}`);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    return got.body.columns as Column[];
  };
  const column = (columns: Column[], status: string) =>
    columns.find((entry) => entry.status === status)!.tasks.map((card) => card.title);
  return { ...routes, events, create, board, column };
}

Deno.test("the board groups tasks by column with their link counts; archived only on request", async () => {
  await using home = await tempDir();
  const { json, create, board, column } = await kanbanApp(home.path);
  assert.deepEqual((await board()).map((entry) => entry.status), [
    "triage",
    "todo",
    "ready",
    "running",
    "blocked",
    "done",
  ]);
  const parent = await create({ title: "Write the parser", assignee: "work", priority: 2 });
  const child = await create({ title: "Test the parser", parents: [parent.id] });
  const idea = await create({ title: "Think about a REPL", triage: true });
  assert.equal(parent.assignee, "work");
  assert.equal(child.status, "todo");
  assert.equal(idea.status, "triage");

  let columns = await board();
  assert.deepEqual(column(columns, "ready"), ["Write the parser"]);
  assert.deepEqual(column(columns, "todo"), ["Test the parser"]);
  assert.deepEqual(column(columns, "triage"), ["Think about a REPL"]);
  const card = columns.find((entry) => entry.status === "ready")!.tasks[0];
  assert.deepEqual(
    [card.id, card.priority, card.assignee, card.parents, card.children],
    [parent.id, 2, "work", 0, 1],
  );
  assert.equal(columns.find((entry) => entry.status === "todo")!.tasks[0].parents, 1);
  assert.equal(typeof card.updated_at, "number");

  const archived = await json("PATCH", `${K}/tasks/${idea.id}`, { status: "archived" });
  assert.equal(archived.status, 200, JSON.stringify(archived.body));
  columns = await board();
  assert.equal(columns.some((entry) => entry.status === "archived"), false);
  assert.deepEqual(column(columns, "triage"), []);
  const all = await board("?archived=1");
  assert.deepEqual(column(all, "archived"), ["Think about a REPL"]);

  const detail = await json("GET", `${K}/tasks/${parent.id}`);
  assert.equal(detail.status, 200);
  assert.deepEqual(detail.body.children, [child.id]);
  assert.deepEqual(detail.body.parents, []);
  assert.deepEqual((detail.body.events as Json[]).map((event) => event.kind), ["created"]);
  assert.deepEqual(detail.body.runs, []);

  const missing = await json("GET", `${K}/tasks/t_00000000`);
  assert.equal(missing.status, 404);
  assert.match(errorOf(missing.body).message, /Task "t_00000000" not found/);
  const otherBoard = await json("GET", `${K}/board?board=ops`);
  assert.equal(otherBoard.status, 404);
  assert.match(errorOf(otherBoard.body).message, /Board "ops" not found/);
  const badBoard = await json("GET", `${K}/board?board=Ops!`);
  assert.equal(badBoard.status, 400);
  assert.match(errorOf(badBoard.body).message, /not a board slug/);
  const unknownProfile = await json("GET", `${K}/board?profile=ghost`);
  assert.equal(unknownProfile.status, 404);
  const boards = await json("GET", `${K}/boards`);
  assert.deepEqual((boards.body.boards as Json[]).map((entry) => entry.slug), ["default"]);
});

Deno.test("create refuses bad input and writes nothing; an unknown assignee is rewritten and said", async () => {
  await using home = await tempDir();
  const { json, create } = await kanbanApp(home.path);
  for (
    const [body, pattern] of [
      [{}, /"title"/],
      [{ title: "   " }, /"title"/],
      [{ title: "x".repeat(501) }, /longer than 500/],
      [{ title: "A", priority: "high" }, /"priority" must be a whole number/],
      [{ title: "A", priority: 1.5 }, /"priority" must be a whole number/],
      [{ title: "A", parents: "t_00000000" }, /"parents" must be a list/],
      [{ title: "A", triage: "yes" }, /"triage" must be true or false/],
    ] as const
  ) {
    const made = await json("POST", `${K}/tasks`, body);
    assert.equal(made.status, 400, JSON.stringify(body));
    assert.match(errorOf(made.body).message, pattern);
  }
  const notJson = await json("POST", `${K}/tasks`, "{nope");
  assert.equal(notJson.status, 400);
  const unknownParent = await json("POST", `${K}/tasks`, { title: "A", parents: ["t_00000000"] });
  assert.equal(unknownParent.status, 404, JSON.stringify(unknownParent.body));
  assert.deepEqual((await json("GET", `${K}/events`)).body.events, [], "nothing written");

  const ghost = await json("POST", `${K}/tasks`, { title: "Haunt", assignee: "ghost" });
  assert.equal(ghost.status, 201);
  assert.equal((ghost.body.task as Card).assignee, "default");
  assert.equal(ghost.body.requested_assignee, "ghost");
  assert.equal(ghost.body.assignee_source, "default_profile");
  // The profile a request names is the task's creator.
  const mine = await json("POST", `${K}/tasks`, { title: "Mine", profile: "work" });
  assert.equal((mine.body.task as Json).created_by, "work");
  const again = await json("POST", `${K}/tasks`, { title: "Once", idempotency_key: "k1" });
  const twice = await json("POST", `${K}/tasks`, { title: "Twice", idempotency_key: "k1" });
  assert.equal(twice.status, 200);
  assert.equal(twice.body.created, false);
  assert.equal((twice.body.task as Card).id, (again.body.task as Card).id);
  await create({ title: "Another" });
});

Deno.test("PATCH edits a task's fields and moves it between columns; a refused move is a 409", async () => {
  await using home = await tempDir();
  const { json, create } = await kanbanApp(home.path);
  const task = await create({ title: "Draft", body: "old" });
  const parent = await create({ title: "First" });
  const waiting = await create({ title: "Second", parents: [parent.id] });

  const edited = await json("PATCH", `${K}/tasks/${task.id}`, {
    title: "Final",
    body: "new",
    priority: 5,
    assignee: "work",
  });
  assert.equal(edited.status, 200, JSON.stringify(edited.body));
  const after = edited.body.task as Card & { body: string };
  assert.deepEqual(
    [after.title, after.body, after.priority, after.assignee],
    ["Final", "new", 5, "work"],
  );

  const blocked = await json("PATCH", `${K}/tasks/${task.id}`, {
    status: "blocked",
    reason: "needs a key",
  });
  assert.equal(blocked.status, 200, JSON.stringify(blocked.body));
  assert.equal((blocked.body.task as Card).status, "blocked");
  const back = await json("PATCH", `${K}/tasks/${task.id}`, { status: "ready" });
  assert.equal((back.body.task as Card).status, "ready");
  const triage = await json("PATCH", `${K}/tasks/${task.id}`, { status: "triage" });
  assert.equal((triage.body.task as Card).status, "triage");
  const done = await json("PATCH", `${K}/tasks/${parent.id}`, { status: "done" });
  assert.equal((done.body.task as Card).status, "done");
  assert.equal(
    ((await json("GET", `${K}/tasks/${waiting.id}`)).body.task as Card).status,
    "ready",
    "completing the parent promoted its child",
  );

  const running = await json("PATCH", `${K}/tasks/${waiting.id}`, { status: "running" });
  assert.equal(running.status, 409, JSON.stringify(running.body));
  assert.match(errorOf(running.body).message, /Only the dispatcher starts a task/);
  const events = (await json("GET", `${K}/tasks/${task.id}`)).body.events as Json[];
  assert.ok(events.some((event) => event.kind === "edited"), JSON.stringify(events));

  for (
    const [body, status, pattern] of [
      [{}, 400, /Nothing to change/],
      [{ color: "red" }, 400, /unknown field "color"/],
      [{ status: "lost" }, 400, /"status" must be one of/],
      [{ title: "" }, 400, /"title"/],
      [{ reason: "why" }, 400, /"reason" goes with a "status"/],
      [{ assignee: "ghost" }, 400, /No profile "ghost"/],
    ] as const
  ) {
    const patched = await json("PATCH", `${K}/tasks/${task.id}`, body);
    assert.equal(patched.status, status, JSON.stringify([body, patched.body]));
    assert.match(errorOf(patched.body).message, pattern);
  }
  const unknown = await json("PATCH", `${K}/tasks/t_00000000`, { title: "x" });
  assert.equal(unknown.status, 404);
});

Deno.test("PATCH with a move and edits changes nothing when either is refused", async () => {
  await using home = await tempDir();
  const { json, create } = await kanbanApp(home.path);
  const task = await create({ title: "Draft" });
  const read = async () => (await json("GET", `${K}/tasks/${task.id}`)).body.task as Card;
  const before = await read();

  const refusedMove = await json("PATCH", `${K}/tasks/${task.id}`, {
    title: "Renamed",
    status: "running",
  });
  assert.equal(refusedMove.status, 409, JSON.stringify(refusedMove.body));
  const unknownProfile = await json("PATCH", `${K}/tasks/${task.id}`, {
    status: "done",
    assignee: "ghost",
  });
  assert.equal(unknownProfile.status, 400, JSON.stringify(unknownProfile.body));
  assert.match(errorOf(unknownProfile.body).message, /No profile "ghost"/);
  assert.deepEqual(await read(), before, "neither the title nor the status changed");

  const both = await json("PATCH", `${K}/tasks/${task.id}`, {
    status: "blocked",
    reason: "needs a key",
    title: "Draft v2",
    assignee: "work",
  });
  assert.equal(both.status, 200, JSON.stringify(both.body));
  const after = both.body.task as Card;
  assert.deepEqual([after.status, after.title, after.assignee], ["blocked", "Draft v2", "work"]);

  // A running task cannot be reassigned, but moved back and reassigned in one request it can.
  const busy = await create({ title: "Busy" });
  const board = openSqliteBoard(kanbanDbPath(home.path));
  try {
    assert.ok(await board.claim(busy.id, { lock: "h:1:x", expiresAt: Date.now() + 60_000 }));
  } finally {
    board.close();
  }
  const reassignOnly = await json("PATCH", `${K}/tasks/${busy.id}`, { assignee: "work" });
  assert.equal(reassignOnly.status, 409, JSON.stringify(reassignOnly.body));
  const movedBack = await json("PATCH", `${K}/tasks/${busy.id}`, {
    status: "ready",
    assignee: "work",
  });
  assert.equal(movedBack.status, 200, JSON.stringify(movedBack.body));
  const card = movedBack.body.task as Card;
  assert.deepEqual([card.status, card.assignee], ["ready", "work"]);
});

Deno.test("comments are added by the profile acting and read back; the event log reads after a sequence number", async () => {
  await using home = await tempDir();
  const { json, create } = await kanbanApp(home.path);
  const task = await create({ title: "Discuss" });
  const added = await json("POST", `${K}/tasks/${task.id}/comments`, {
    body: "Looks good",
    profile: "work",
  });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.deepEqual(
    [(added.body.comment as Json).author, (added.body.comment as Json).body],
    ["work", "Looks good"],
  );
  const empty = await json("POST", `${K}/tasks/${task.id}/comments`, { body: " " });
  assert.equal(empty.status, 400);
  assert.match(errorOf(empty.body).message, /"body" \(the comment's text\) is required/);
  const unknown = await json("POST", `${K}/tasks/t_00000000/comments`, { body: "hi" });
  assert.equal(unknown.status, 404);
  const detail = await json("GET", `${K}/tasks/${task.id}`);
  assert.deepEqual((detail.body.comments as Json[]).map((comment) => comment.body), [
    "Looks good",
  ]);

  const all = await json("GET", `${K}/events`);
  const kinds = (all.body.events as Json[]).map((event) => event.kind);
  assert.deepEqual(kinds, ["created", "commented"]);
  const first = (all.body.events as Json[])[0].seq as number;
  assert.equal(all.body.last_seq, (all.body.events as Json[])[1].seq);
  const later = await json("GET", `${K}/events?since=${first}`);
  assert.deepEqual((later.body.events as Json[]).map((event) => event.kind), ["commented"]);
  const none = await json("GET", `${K}/events?since=${all.body.last_seq}`);
  assert.deepEqual([none.body.events, none.body.last_seq], [[], all.body.last_seq]);
  const bad = await json("GET", `${K}/events?since=soon`);
  assert.equal(bad.status, 400);
  assert.match(errorOf(bad.body).message, /\?since must be a whole number/);
});

Deno.test("profiles: the roster with descriptions, a person's description, a generated one", async () => {
  await using home = await tempDir();
  const { json, work } = await kanbanApp(home.path);
  const roster = await json("GET", `${K}/profiles`);
  assert.equal(roster.status, 200);
  assert.deepEqual((roster.body.profiles as Json[]).map((row) => row.name), ["default", "work"]);

  const set = await json("PATCH", `${K}/profiles/work`, { description: "Work email." });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  assert.deepEqual(set.body, {
    ok: true,
    profile: "work",
    status: "set",
    description: "Work email.",
    description_auto: false,
  });
  const listed = (await json("GET", `${K}/profiles`)).body.profiles as Json[];
  assert.equal(listed.find((row) => row.name === "work")?.description, "Work email.");
  assert.equal((await json("PATCH", `${K}/profiles/ghost`, { description: "x" })).status, 404);
  const badText = await json("PATCH", `${K}/profiles/work`, { description: 3 });
  assert.equal(badText.status, 400);
  assert.match(errorOf(badText.body).message, /"description"/);

  // No model at all: the answer says what to configure.
  const noModel = await json("POST", `${K}/profiles/work/describe-auto`, { overwrite: true });
  assert.equal(noModel.status, 400, JSON.stringify(noModel.body));
  assert.equal(errorOf(noModel.body).code, "model_not_configured");
  assert.match(errorOf(noModel.body).message, /auxiliary\.profile_describer\.model/);

  await using model = await startModelServer({ replies: [{ text: "Answers work email." }] });
  await configureModel(work.home, model.openaiBaseUrl);
  const kept = await json("POST", `${K}/profiles/work/describe-auto`);
  assert.equal(kept.body.status, "kept", "a person's words stay unless overwrite");
  const generated = await json("POST", `${K}/profiles/work/describe-auto`, { overwrite: true });
  assert.equal(generated.status, 200, JSON.stringify(generated.body));
  assert.deepEqual(generated.body, {
    ok: true,
    profile: "work",
    status: "generated",
    description: "Answers work email.",
    description_auto: true,
  });
  assert.equal(model.requests.length, 1);
});

Deno.test("orchestration echoes the resolved fallbacks, writes config.yaml and refuses unknown profiles with 422", async () => {
  await using home = await tempDir();
  const { json, main } = await kanbanApp(home.path);
  const first = await json("GET", `${K}/orchestration`);
  assert.equal(first.status, 200);
  assert.deepEqual(first.body, {
    orchestrator_profile: null,
    default_assignee: null,
    auto_decompose: true,
    resolved: { orchestrator_profile: "default", default_assignee: "default" },
  });

  const put = await json("PUT", `${K}/orchestration`, {
    orchestrator_profile: "Work",
    auto_decompose: false,
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body, {
    orchestrator_profile: "work",
    default_assignee: null,
    auto_decompose: false,
    resolved: { orchestrator_profile: "work", default_assignee: "default" },
  });
  const config = await readOr(main.config);
  assert.match(config, /kanban:\n\s+orchestrator_profile: work\n\s+auto_decompose: false/);

  const refused = await json("PUT", `${K}/orchestration`, {
    orchestrator_profile: "ghost",
    default_assignee: "phantom",
    auto_decompose: true,
  });
  assert.equal(refused.status, 422, JSON.stringify(refused.body));
  assert.equal(errorOf(refused.body).code, "kanban_unknown_profile");
  assert.match(errorOf(refused.body).message, /No profile "ghost" and "phantom"/);
  assert.equal(await readOr(main.config), config, "nothing written");

  // A configured profile that is later deleted falls back to the default profile.
  await Deno.writeTextFile(
    main.config,
    "kanban:\n  orchestrator_profile: gone\n  default_assignee: work\n",
  );
  assert.deepEqual((await json("GET", `${K}/orchestration`)).body, {
    orchestrator_profile: "gone",
    default_assignee: "work",
    auto_decompose: true,
    resolved: { orchestrator_profile: "default", default_assignee: "work" },
  });
  const cleared = await json("PUT", `${K}/orchestration`, {
    orchestrator_profile: null,
    default_assignee: "",
  });
  assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
  assert.equal(cleared.body.orchestrator_profile, null);
  assert.equal(cleared.body.default_assignee, null);
  assert.doesNotMatch(await readOr(main.config), /gone|default_assignee/);

  for (
    const [body, pattern] of [
      [{ auto_decompose: "yes" }, /"auto_decompose" must be true or false/],
      [{ orchestrator_profile: 7 }, /"orchestrator_profile" must be a profile name/],
      [{ tenant: "x" }, /unknown field "tenant"/],
    ] as const
  ) {
    const bad = await json("PUT", `${K}/orchestration`, body);
    assert.equal(bad.status, 400, JSON.stringify(body));
    assert.match(errorOf(bad.body).message, pattern);
  }
  // Scoped to another profile: its own config.yaml.
  const scoped = await json("PUT", `${K}/orchestration?profile=work`, { auto_decompose: false });
  assert.equal(scoped.status, 200);
  assert.match(await readOr(join(home.path, "profiles", "work", "config.yaml")), /auto_decompose/);
});

Deno.test("decompose splits a triage task with the model's graph; every failure is {ok:false, code} with its status", async () => {
  await using home = await tempDir();
  const graph = {
    fanout: true,
    rationale: "two parts",
    tasks: [
      { title: "Lexer", body: "Tokens.", assignee: null, parents: [] },
      { title: "Grammar", body: "Rules.", assignee: null, parents: [0] },
    ],
  };
  const { json, create, main, board, column } = await kanbanApp(home.path);
  const root = await create({ title: "Build a parser", triage: true });

  const unconfigured = await json("POST", `${K}/tasks/${root.id}/decompose`);
  assert.equal(unconfigured.status, 400, JSON.stringify(unconfigured.body));
  assert.deepEqual(
    [
      unconfigured.body.ok,
      unconfigured.body.code,
      unconfigured.body.task_id,
      errorOf(unconfigured.body).code,
    ],
    [false, "no_auxiliary_client", root.id, "no_auxiliary_client"],
  );
  assert.match(String(unconfigured.body.message), /auxiliary/);

  await using model = await startModelServer({
    replies: [{ text: "not json at all" }, { text: JSON.stringify(graph) }],
  });
  await configureModel(main.home, model.openaiBaseUrl);
  const malformed = await json("POST", `${K}/tasks/${root.id}/decompose`);
  assert.equal(malformed.status, 502, JSON.stringify(malformed.body));
  assert.deepEqual([malformed.body.ok, malformed.body.code], [false, "malformed_json"]);
  assert.equal(column(await board(), "triage").length, 1, "nothing written");

  const split = await json("POST", `${K}/tasks/${root.id}/decompose`, {});
  assert.equal(split.status, 200, JSON.stringify(split.body));
  assert.equal(split.body.ok, true);
  assert.equal(split.body.fanout, true);
  assert.equal((split.body.child_ids as string[]).length, 2);
  const columns = await board();
  assert.deepEqual(column(columns, "ready"), ["Lexer"]);
  assert.deepEqual(column(columns, "todo").sort(), ["Build a parser", "Grammar"]);

  const again = await json("POST", `${K}/tasks/${root.id}/decompose`);
  assert.equal(again.status, 409);
  assert.deepEqual([again.body.ok, again.body.code], [false, "not_in_triage"]);
  assert.match(String(again.body.message), /todo/);
  const unknown = await json("POST", `${K}/tasks/t_00000000/decompose`);
  assert.equal(unknown.status, 404);
  assert.deepEqual([unknown.body.ok, unknown.body.code], [false, "unknown_task"]);
  const badBody = await json("POST", `${K}/tasks/${root.id}/decompose`, "[1]");
  assert.equal(badBody.status, 400);
});

/** Waits (a few seconds at most) until `check` holds. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

Deno.test("the board's events, written by another connection, reach the bus while someone listens", async () => {
  await using home = await tempDir();
  const { events, create } = await kanbanApp(home.path);
  const before = await create({ title: "Before anyone listened" });
  const seen: HeraldEvent[] = [];
  const stop = events.subscribe({ types: ["kanban.event"] }, (event) => void seen.push(event));
  // Another process's view of the same file (a worker, the CLI).
  const other = openSqliteBoard(kanbanDbPath(home.path));
  try {
    const { task } = await other.createTask({ title: "From a worker", assignee: "default" });
    await other.comment(task.id, "worker", "on it");
    await eventually(() => seen.length >= 2, "the relayed events");
    const relayed = seen.map((event) => event as Extract<HeraldEvent, { type: "kanban.event" }>);
    assert.deepEqual(relayed.map((event) => [event.task_id, event.kind, event.board]), [
      [task.id, "created", "default"],
      [task.id, "commented", "default"],
    ]);
    assert.ok(relayed.every((event) => event.task_id !== before.id), "the backlog is skipped");
    assert.deepEqual(
      [relayed[0].profile, relayed[0].source, relayed[0].session_id],
      ["default", "kanban", null],
    );
    assert.ok(relayed[1].event_seq > relayed[0].event_seq);
  } finally {
    stop();
    other.close();
  }
});

Deno.test("the relay opens the board only while a subscription takes kanban events, and closes it after", async () => {
  await using home = await tempDir();
  const bus = new EventBus();
  let opened = 0;
  let closed = 0;
  const relay = new KanbanRelay({
    root: home.path,
    events: bus,
    profile: "default",
    intervalMs: 20,
    openBoard: () => {
      opened++;
      const board = openSqliteBoard(kanbanDbPath(home.path));
      return {
        ...board,
        close: () => {
          closed++;
          board.close();
        },
      };
    },
  });
  try {
    const cron = bus.subscribe({ types: ["cron.job.changed"] }, () => {});
    assert.equal(relay.running, false, "nobody takes kanban events");
    const first = bus.subscribe({ types: ["kanban.event"] }, () => {});
    const everything = bus.subscribe({}, () => {});
    assert.equal(relay.running, true);
    assert.equal(opened, 1);
    first();
    assert.equal(relay.running, true, "the catch-all subscription still takes them");
    everything();
    await eventually(() => closed === 1, "the board closed");
    assert.equal(relay.running, false);
    cron();
    const again = bus.subscribe({ types: ["kanban.event"] }, () => {});
    assert.equal(opened, 2);
    await relay.stop();
    assert.equal(closed, 2, "stopping closes the board");
    again();
    assert.equal(opened, 2, "a stopped relay stays stopped");
  } finally {
    await relay.stop();
  }
});
