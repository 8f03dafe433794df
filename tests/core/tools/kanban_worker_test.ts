/**
 * The kanban worker tools over a real SQLite board in a temporary folder,
 * called through the tool registry as the model calls them: kanban_show's
 * worker context (body, prior attempts, parent results, the newest 30
 * comments); kanban_complete, kanban_block and kanban_heartbeat only on the
 * worker's own task and only while its claim holds; comments signed by the
 * profile whatever the model sends; kanban_create through the create use
 * case (the assignee resolved, created by the profile, on the worker's
 * board); kanban_link refusing a cycle. Every refusal reaches the model
 * with the store's code and message, and writes nothing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteBoard } from "../../../adapters/kanban/mod.ts";
import type { BoardStore } from "../../../core/kanban/mod.ts";
import {
  createKanbanWorkerTools,
  MAX_CREATES_PER_ATTEMPT,
} from "../../../core/tools/kanban_worker.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { createTask, type KanbanContext } from "../../../core/usecases/kanban.ts";
import { toolContext } from "../../adapters/tools/_context.ts";
import { tempDir } from "../../_helpers.ts";

const T0 = Date.UTC(2026, 10, 24, 9, 0);
const TTL = 900_000;
const LOCK = "host:1:abcd1234";

type Call = { ok: true; value: Record<string, unknown> } | {
  ok: false;
  code: string;
  message: string;
};

/** A board with the worker's task claimed under {@link LOCK}, and the tools of that worker. */
async function setup(options: { lock?: string | null; board?: string } = {}) {
  const dir = await tempDir();
  let clock = T0;
  const now = () => clock;
  const board = openSqliteBoard(join(dir.path, "kanban.db"), { now });
  const context: KanbanContext = {
    board,
    actor: "coder",
    profiles: () =>
      Promise.resolve([
        { name: "default", description: "" },
        { name: "coder", description: "Writes code." },
        { name: "writer", description: "Writes prose." },
      ]),
    settings: () => Promise.resolve({ defaultProfile: "default", defaultAssignee: "writer" }),
    now,
  };
  const { task } = await board.createTask({ title: "Write the parser", assignee: "coder" });
  const lock = options.lock === undefined ? LOCK : options.lock;
  if (lock !== null) assert.ok(await board.claim(task.id, { lock, expiresAt: now() + TTL }));
  let opened = 0;
  const tools = createKanbanWorkerTools({
    taskId: task.id,
    ...(lock === null ? {} : { lock }),
    ...(options.board === undefined ? {} : { board: options.board }),
    actor: "coder",
    claimTtlMs: TTL,
    now,
  }, () => {
    opened++;
    return Promise.resolve({ board, createTask: (input) => createTask(context, input) });
  });
  const registry = new ToolRegistry(tools);
  const ctx = toolContext({ cwd: dir.path });
  let calls = 0;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Call> => {
    const result = await registry.execute(
      { id: `call_${++calls}`, name, arguments: JSON.stringify(args) },
      ctx,
    );
    return result.ok
      ? { ok: true, value: JSON.parse(result.content) }
      : { ok: false, code: result.code, message: result.message };
  };
  return {
    board,
    task,
    call,
    tools,
    opened: () => opened,
    tick: (ms: number) => (clock += ms),
    async [Symbol.asyncDispose]() {
      board.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

function failed(result: Call, code: string, text?: RegExp): void {
  assert.equal(result.ok, false, JSON.stringify(result));
  if (result.ok) return;
  assert.equal(result.code, code, result.message);
  if (text) assert.match(result.message, text);
}

async function kinds(board: BoardStore, id: string): Promise<string[]> {
  return (await board.events(id)).map((event) => event.kind);
}

Deno.test("the seven worker tools are offered, and the board is opened only when one is used", async () => {
  await using env = await setup();
  assert.deepEqual(env.tools.map((tool) => tool.name), [
    "kanban_show",
    "kanban_complete",
    "kanban_block",
    "kanban_heartbeat",
    "kanban_comment",
    "kanban_create",
    "kanban_link",
  ]);
  assert.equal(env.opened(), 0);
  await env.call("kanban_show");
  assert.equal(env.opened(), 1);
});

Deno.test("kanban_show gives the worker context: body, prior attempts, parent results, newest comments", async () => {
  await using env = await setup({ lock: null });
  const { board } = env;
  const { task: parent } = await board.createTask({
    title: "Design the grammar",
    assignee: "coder",
  });
  await board.complete(parent.id, "Grammar in docs/grammar.md");
  const { task } = await board.createTask({
    title: "Implement the grammar",
    body: "Goal: a parser for docs/grammar.md.\n" + "x".repeat(9000),
    assignee: "coder",
    parents: [parent.id],
  });
  assert.equal(task.status, "ready");
  assert.ok(await board.claim(task.id, { lock: "old", expiresAt: T0 + TTL }));
  await board.endAttempt(task.id, {
    lock: "old",
    outcome: "crashed",
    error: "the worker exited with code 3",
    failed: true,
    failureLimit: 5,
  });
  for (let i = 1; i <= 35; i++) {
    env.tick(1000);
    await board.comment(task.id, i % 2 === 0 ? "writer" : "coder", `note number ${i}`);
  }
  env.tick(2 * 3_600_000);

  const shown = await env.call("kanban_show", { task_id: task.id });
  assert.ok(shown.ok, JSON.stringify(shown));
  const value = shown.value as {
    task: { id: string; status: string; assignee: string };
    yours: boolean;
    parents: string[];
    worker_context: string;
  };
  assert.equal(value.task.id, task.id);
  assert.equal(value.yours, false);
  assert.deepEqual(value.parents, [parent.id]);
  const markdown = value.worker_context;
  assert.match(markdown, new RegExp(`^# Kanban task ${task.id}: Implement the grammar$`, "m"));
  assert.match(markdown, /^Assignee: coder$/m);
  assert.match(markdown, /^Status: ready$/m);
  assert.match(markdown, /^Goal: a parser for docs\/grammar\.md\.$/m);
  assert.match(markdown, /… \[truncated, \d+ chars omitted\]/, "the body is capped");
  assert.ok(markdown.length < 9000 + 4000, `${markdown.length}`);
  assert.match(markdown, /^### Attempt 1: crashed \(.*, 2h ago\)$/m);
  assert.match(markdown, /^Error: the worker exited with code 3$/m);
  assert.match(markdown, new RegExp(`^### ${parent.id}: Design the grammar \\(done, @coder`, "m"));
  assert.match(markdown, /^Grammar in docs\/grammar\.md$/m);
  assert.match(markdown, /the newest 30 of 35 comments/);
  assert.match(markdown, /^note number 35$/m);
  assert.match(markdown, /^note number 6$/m);
  assert.doesNotMatch(markdown, /^note number 5$/m);
  assert.match(markdown, /^\*\*writer\*\* at 2026-11-24 /m);

  const own = await env.call("kanban_show");
  assert.ok(own.ok);
  assert.equal((own.value as { yours: boolean }).yours, true);
  assert.match(
    (own.value as { worker_context: string }).worker_context,
    /\(none: this is the first attempt\)/,
  );

  failed(await env.call("kanban_show", { task_id: "t_00000000" }), "not_found", /t_00000000/);
});

Deno.test("kanban_complete finishes only the worker's own task, and only while its claim holds", async () => {
  await using env = await setup();
  const { board, task } = env;
  const { task: child } = await board.createTask({
    title: "Test the parser",
    assignee: "coder",
    parents: [task.id],
  });

  failed(await env.call("kanban_complete", {}), "kanban_args", /summary or a result/);
  failed(await env.call("kanban_complete", { summary: "  " }), "kanban_args");
  assert.equal((await board.getTask(task.id))?.status, "running");

  const done = await env.call("kanban_complete", {
    summary: "Parser in src/parser.ts; 12 tests pass",
    result: "The grammar has 14 rules.",
    task_id: child.id,
  });
  assert.ok(done.ok, JSON.stringify(done));
  assert.deepEqual({ ...done.value, note: "-" }, {
    task_id: task.id,
    status: "done",
    promoted: [child.id],
    note: "-",
  });
  const after = await board.getTask(task.id);
  assert.equal(
    after?.result,
    "Parser in src/parser.ts; 12 tests pass\n\nThe grammar has 14 rules.",
  );
  assert.equal((await board.getTask(child.id))?.status, "ready", "the child is not completed");
});

Deno.test("a worker whose claim was taken cannot complete, block or heartbeat", async () => {
  await using env = await setup();
  const { board, task } = env;
  // The dispatcher reclaims the task and another worker claims it.
  await board.endAttempt(task.id, {
    lock: LOCK,
    outcome: "reclaimed",
    error: "claim expired",
    failed: false,
    failureLimit: 2,
  });
  assert.ok(await board.claim(task.id, { lock: "host:2:other", expiresAt: T0 + TTL }));
  const before = await kinds(board, task.id);

  failed(
    await env.call("kanban_complete", { summary: "done" }),
    "kanban_claim_lost",
    /no longer held/,
  );
  failed(await env.call("kanban_block", { reason: "stuck" }), "kanban_claim_lost");
  failed(await env.call("kanban_heartbeat", { note: "still here" }), "kanban_claim_lost");
  const after = await board.getTask(task.id);
  assert.equal(after?.status, "running");
  assert.equal(after?.claim_lock, "host:2:other");
  assert.deepEqual(await kinds(board, task.id), before, "nothing was written");
});

Deno.test("kanban_block parks the own task with its kind; kanban_heartbeat extends the claim", async () => {
  await using env = await setup();
  const { board, task } = env;
  env.tick(60_000);
  const beat = await env.call("kanban_heartbeat", { note: "halfway" });
  assert.ok(beat.ok, JSON.stringify(beat));
  assert.equal(beat.value.claim_expires, new Date(T0 + 60_000 + TTL).toISOString());
  assert.equal((await board.getTask(task.id))?.claim_expires, T0 + 60_000 + TTL);
  const heartbeat = (await board.events(task.id)).find((event) => event.kind === "heartbeat");
  assert.equal(heartbeat?.payload?.note, "halfway");

  failed(await env.call("kanban_block", { reason: " " }), "kanban_args", /reason/);
  failed(await env.call("kanban_block", { reason: "x", kind: "bored" }), "invalid_arguments");
  const blocked = await env.call("kanban_block", {
    reason: "needs the staging key",
    kind: "needs_input",
  });
  assert.ok(blocked.ok, JSON.stringify(blocked));
  assert.equal(blocked.value.status, "blocked");
  const after = await board.getTask(task.id);
  assert.equal(after?.status, "blocked");
  assert.equal(after?.block_kind, "needs_input");
  assert.equal(after?.claim_lock, null);
});

Deno.test("without a claim, kanban_heartbeat says there is none and completing needs no lock", async () => {
  await using env = await setup({ lock: null });
  failed(await env.call("kanban_heartbeat"), "kanban_no_claim", /not started by the dispatcher/);
  const done = await env.call("kanban_complete", { result: "Answered by hand" });
  assert.ok(done.ok, JSON.stringify(done));
  assert.equal((await env.board.getTask(env.task.id))?.status, "done");
});

Deno.test("kanban_comment is signed by the profile; the model cannot set the author", async () => {
  await using env = await setup();
  const { board, task } = env;
  const { task: other } = await board.createTask({ title: "Other", assignee: "writer" });
  const mine = await env.call("kanban_comment", { body: "Found the bug in lexer.ts" });
  assert.ok(mine.ok, JSON.stringify(mine));
  assert.equal(mine.value.task_id, task.id);
  const forged = await env.call("kanban_comment", {
    task_id: other.id,
    body: "Approved",
    author: "boss",
  });
  if (forged.ok) {
    assert.equal(forged.value.author, "coder");
    assert.deepEqual((await board.comments(other.id)).map((c) => [c.author, c.body]), [
      ["coder", "Approved"],
    ]);
  } else {
    assert.equal(forged.code, "invalid_arguments");
    assert.deepEqual(await board.comments(other.id), []);
  }
  assert.deepEqual((await board.comments(task.id)).map((c) => c.author), ["coder"]);
  failed(await env.call("kanban_comment", { body: "" }), "kanban_args");
  failed(await env.call("kanban_comment", { task_id: "t_ffffffff", body: "x" }), "not_found");
});

Deno.test("kanban_create resolves the assignee as herald kanban create does, created by the profile", async () => {
  await using env = await setup({ board: "research" });
  const { board, task } = env;
  await board.createBoard("research");
  const made = await env.call("kanban_create", {
    title: "Write the docs",
    body: "Document the parser",
    assignee: "nobody",
    parents: [task.id],
    priority: 3,
  });
  assert.ok(made.ok, JSON.stringify(made));
  assert.equal(
    made.value.assignee,
    "writer",
    "an unknown assignee becomes kanban.default_assignee",
  );
  assert.match(String(made.value.note), /No profile "nobody": assigned to writer/);
  const created = await board.getTask(String(made.value.task_id));
  assert.equal(created?.created_by, "coder");
  assert.equal(created?.board, "research");
  assert.equal(created?.status, "todo", "it waits for its parent");
  assert.equal(created?.priority, 3);
  assert.equal(created?.body, "Document the parser");

  const plain = await env.call("kanban_create", { title: "Review", assignee: "Coder" });
  assert.ok(plain.ok, JSON.stringify(plain));
  assert.equal(plain.value.assignee, "coder");
  assert.equal(plain.value.status, "ready");
  assert.equal(plain.value.note, undefined);

  failed(await env.call("kanban_create", { title: "" }), "kanban_args", /title/);
  failed(
    await env.call("kanban_create", { title: "Orphan", parents: ["t_00000000"] }),
    "not_found",
  );
});

Deno.test("kanban_link makes a task wait, and refuses a cycle with nothing written", async () => {
  await using env = await setup({ lock: null });
  const { board, task } = env;
  const { task: next } = await board.createTask({
    title: "Next",
    assignee: "coder",
    created_by: "coder",
  });
  const linked = await env.call("kanban_link", { parent_id: task.id, child_id: next.id });
  assert.ok(linked.ok, JSON.stringify(linked));
  assert.deepEqual(linked.value, { parent_id: task.id, child_id: next.id, child_status: "todo" });

  const before = (await board.events()).length;
  const cycle = await env.call("kanban_link", { parent_id: next.id, child_id: task.id });
  failed(cycle, "kanban_link_cycle");
  failed(
    await env.call("kanban_link", { parent_id: task.id, child_id: task.id }),
    "kanban_link_self",
  );
  failed(
    await env.call("kanban_link", { parent_id: task.id, child_id: "t_00000000" }),
    "not_found",
  );
  assert.equal((await board.events()).length, before);
});

Deno.test("kanban_link only makes the own task or one the profile created wait", async () => {
  await using env = await setup();
  const { board, task } = env;
  const { task: blocker } = await board.createTask({ title: "Blocker", assignee: "writer" });
  const { task: theirs } = await board.createTask({
    title: "Someone else's",
    assignee: "writer",
    created_by: "writer",
  });
  const before = (await board.events()).length;
  failed(
    await env.call("kanban_link", { parent_id: blocker.id, child_id: theirs.id }),
    "kanban_link_scope",
    /neither your own task nor one coder created/,
  );
  assert.equal((await board.events()).length, before, "nothing written");
  assert.equal((await board.getTask(theirs.id))?.status, "ready");
  // A task it created itself, and (as the parent) any task, are fine.
  const made = await env.call("kanban_create", { title: "Follow-up" });
  assert.ok(made.ok, JSON.stringify(made));
  const mine = await env.call("kanban_link", {
    parent_id: theirs.id,
    child_id: String(made.value.task_id),
  });
  assert.ok(mine.ok, JSON.stringify(mine));
  const own = await env.call("kanban_link", { parent_id: blocker.id, child_id: task.id });
  assert.ok(own.ok, JSON.stringify(own));
});

Deno.test("one attempt creates at most MAX_CREATES_PER_ATTEMPT tasks", async () => {
  await using env = await setup();
  const { board } = env;
  for (let i = 0; i < MAX_CREATES_PER_ATTEMPT; i++) {
    const made = await env.call("kanban_create", { title: `Piece ${i}` });
    assert.ok(made.ok, JSON.stringify(made));
  }
  const total = (await board.listTasks({})).length;
  failed(
    await env.call("kanban_create", { title: "One too many" }),
    "kanban_create_limit",
    new RegExp(`created ${MAX_CREATES_PER_ATTEMPT} tasks`),
  );
  assert.equal((await board.listTasks({})).length, total, "nothing written");
});
