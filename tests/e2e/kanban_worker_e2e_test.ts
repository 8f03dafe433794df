/**
 * The real `herald kanban work <id>` as a subprocess against the scripted
 * model server, on a task claimed in the test as the dispatcher claims it:
 * a model that reads the task with kanban_show and finishes it with
 * kanban_complete leaves it done (exit 0, the kanban-worker skill loaded
 * and the worker tools offered); a model that only answers text ends the
 * attempt as a protocol_violation (the task ready again, one failure,
 * exit 0); a model error ends it crashed (exit 1); a hanging turn is
 * heartbeated and stopped at kanban.max_runtime_seconds (timed_out, exit
 * 1); without the claim in its environment the command refuses and names
 * the dispatcher.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteBoard } from "../../adapters/kanban/mod.ts";
import { tempDir } from "../_helpers.ts";
import { type ModelServer, startModelServer } from "../fakes/model_server.ts";
import { configureModel, runHerald } from "./_herald.ts";

const LOCK = "testhost:1:e2e00001";

/** A home whose model is the scripted server, with one task claimed under {@link LOCK}. */
async function claimedTask(home: string, server: ModelServer, title: string) {
  await configureModel(home, server.openaiBaseUrl);
  const board = openSqliteBoard(join(home, "kanban.db"));
  try {
    const { task } = await board.createTask({
      title,
      body: "Answer with the number 42.",
      assignee: "default",
    });
    assert.ok(await board.claim(task.id, { lock: LOCK, expiresAt: Date.now() + 900_000 }));
    return task.id;
  } finally {
    board.close();
  }
}

async function work(home: string, taskId: string, env: Record<string, string> = {}) {
  return await runHerald({
    args: ["kanban", "work", taskId],
    home,
    env: {
      HERALD_KANBAN_TASK: taskId,
      HERALD_KANBAN_CLAIM: LOCK,
      HERALD_KANBAN_BOARD: "default",
      ...env,
    },
  });
}

async function inspect(home: string, taskId: string) {
  const board = openSqliteBoard(join(home, "kanban.db"));
  try {
    return {
      task: (await board.getTask(taskId))!,
      kinds: (await board.events(taskId)).map((event) => event.kind),
      runs: await board.runs(taskId),
    };
  } finally {
    board.close();
  }
}

/** The tool names a recorded request offered the model. */
function offeredTools(body: unknown): string[] {
  const tools = (body as { tools?: { function: { name: string } }[] }).tools ?? [];
  return tools.map((tool) => tool.function.name);
}

Deno.test("a worker that calls kanban_show then kanban_complete leaves its task done", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  const taskId = await claimedTask(home.path, server, "Find the answer");
  server.enqueue(
    { toolCalls: [{ name: "kanban_show", arguments: {} }] },
    {
      toolCalls: [{
        name: "kanban_complete",
        arguments: { summary: "The answer is 42", result: "42" },
      }],
    },
    { text: "Done: the answer is 42." },
  );

  const run = await work(home.path, taskId);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `Task ${taskId}: completed (now done)\n`);

  const { task, kinds, runs } = await inspect(home.path, taskId);
  assert.equal(task.status, "done");
  assert.equal(task.result, "The answer is 42\n\n42");
  assert.equal(task.claim_lock, null);
  assert.deepEqual(kinds, ["created", "claimed", "completed"]);
  assert.deepEqual(runs.map((r) => r.outcome), ["completed"]);

  const [first, second] = server.requests;
  const tools = offeredTools(first.body);
  for (
    const name of [
      "kanban_show",
      "kanban_complete",
      "kanban_block",
      "kanban_heartbeat",
      "kanban_comment",
      "kanban_create",
      "kanban_link",
    ]
  ) assert.ok(tools.includes(name), `${name} offered: ${tools}`);
  assert.ok(!tools.includes("cronjob"), "a worker schedules nothing");
  const asked = JSON.stringify(first.body);
  assert.match(asked, new RegExp(`Work kanban task ${taskId}: Find the answer`));
  assert.match(asked, /# Kanban worker/, "the kanban-worker skill is loaded");
  const shown = JSON.stringify(second.body);
  assert.match(shown, /Answer with the number 42/, "kanban_show's context reached the model");
});

Deno.test("a worker whose turn ends without complete or block records a protocol violation", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  const taskId = await claimedTask(home.path, server, "Find the answer");
  server.enqueue({ text: "I think the answer is 42." });

  const run = await work(home.path, taskId);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    new RegExp(
      `^Task ${taskId}: protocol_violation: the worker finished its turn without kanban_complete ` +
        "or kanban_block; its last answer: I think the answer is 42\\. \\[1 failed in a row\\] " +
        "\\(now ready\\)\\n$",
    ),
  );
  const { task, kinds, runs } = await inspect(home.path, taskId);
  assert.equal(task.status, "ready");
  assert.equal(task.consecutive_failures, 1);
  assert.equal(task.claim_lock, null);
  assert.match(task.last_failure_error ?? "", /without kanban_complete or kanban_block/);
  assert.deepEqual(kinds, ["created", "claimed", "protocol_violation"]);
  assert.deepEqual(runs.map((r) => r.outcome), ["protocol_violation"]);
});

Deno.test("a worker whose model fails ends the attempt crashed and exits 1", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  const taskId = await claimedTask(home.path, server, "Find the answer");
  server.enqueue({
    status: 400,
    message: "the model refused the request",
    headers: { "x-should-retry": "false" },
  });

  const run = await work(home.path, taskId);
  assert.equal(run.code, 1, run.stdout);
  assert.match(run.stdout, new RegExp(`^Task ${taskId}: crashed: .+ \\[1 failed in a row\\]`));
  assert.match(run.stderr, /The attempt at t_[0-9a-f]{8} failed/);
  const { task, kinds, runs } = await inspect(home.path, taskId);
  assert.equal(task.status, "ready");
  assert.equal(task.consecutive_failures, 1);
  assert.deepEqual(kinds, ["created", "claimed", "crashed"]);
  assert.deepEqual(runs.map((r) => r.outcome), ["crashed"]);
});

Deno.test("herald kanban work refuses without a claim, and does nothing for a task it does not hold", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  const taskId = await claimedTask(home.path, server, "Find the answer");

  const unclaimed = await runHerald({ args: ["kanban", "work", taskId], home: home.path });
  assert.equal(unclaimed.code, 2);
  assert.match(unclaimed.stderr, /started by the dispatcher/);

  const other = await work(home.path, taskId, { HERALD_KANBAN_CLAIM: "testhost:1:someone" });
  assert.equal(other.code, 1);
  assert.match(other.stdout, /not_held: this claim does not hold the task/);
  assert.equal(server.requests.length, 0, "no model was asked");
  const { task } = await inspect(home.path, taskId);
  assert.equal(task.status, "running");
  assert.equal(task.claim_lock, LOCK);
});

Deno.test("a worker heartbeats its claim while the turn runs and is stopped at max_runtime_seconds", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  const taskId = await claimedTask(home.path, server, "Find the answer");
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "kanban:\n  claim_ttl_seconds: 10\n  max_runtime_seconds: 10\n",
    { append: true },
  );
  server.enqueue({ text: "never sent", hang: "before-response" });

  const run = await work(home.path, taskId);
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stdout,
    new RegExp(
      `^Task ${taskId}: timed_out: the worker ran longer than 10 s ` +
        "\\(kanban.max_runtime_seconds\\) \\[1 failed in a row\\] \\(now ready\\)\\n$",
    ),
  );
  const { task, kinds, runs } = await inspect(home.path, taskId);
  assert.equal(task.status, "ready");
  assert.equal(task.consecutive_failures, 1);
  assert.ok(kinds.includes("heartbeat"), `the claim was extended: ${kinds}`);
  assert.equal(kinds.at(-1), "timed_out");
  assert.deepEqual(runs.map((r) => r.outcome), ["timed_out"]);
});

Deno.test("a worker whose task is moved away mid-turn stops at once and leaves the run as the mover closed it", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  const taskId = await claimedTask(home.path, server, "Find the answer");
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "kanban:\n  claim_ttl_seconds: 10\n  max_runtime_seconds: 120\n",
    { append: true },
  );
  server.enqueue({ text: "never sent", hang: "before-response" });

  const started = Date.now();
  const running = work(home.path, taskId);
  while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const board = openSqliteBoard(join(home.path, "kanban.db"));
  try {
    await board.move(taskId, "ready", "alice");
  } finally {
    board.close();
  }
  const run = await running;
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, `Task ${taskId}: claim_lost (now ready)\n`);
  assert.ok(Date.now() - started < 60_000, "stopped long before max_runtime_seconds");
  const { task, kinds, runs } = await inspect(home.path, taskId);
  assert.deepEqual([task.status, task.consecutive_failures], ["ready", 0]);
  // The mover closed the attempt; the worker wrote nothing more (no crash, no timeout).
  assert.deepEqual(kinds, ["created", "claimed", "reclaimed", "moved"]);
  assert.deepEqual(runs.map((r) => r.outcome), ["reclaimed"]);
});

Deno.test("a worker that completed its task and is still talking is not taken for one that lost its claim", async () => {
  await using home = await tempDir();
  await using server = await startModelServer();
  const taskId = await claimedTask(home.path, server, "Find the answer");
  await Deno.writeTextFile(
    join(home.path, "config.yaml"),
    "kanban:\n  claim_ttl_seconds: 10\n",
    { append: true },
  );
  // The closing answer comes after two heartbeats (every 3.3 s) found the claim released.
  server.enqueue(
    { toolCalls: [{ name: "kanban_complete", arguments: { summary: "It is 42" } }] },
    { text: "Done: it is 42.", delayMs: 8_000 },
  );

  const run = await work(home.path, taskId);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, `Task ${taskId}: completed (now done)\n`);
  assert.doesNotMatch(run.stderr, /claim was taken/);
  const { task, runs } = await inspect(home.path, taskId);
  assert.equal(task.status, "done");
  assert.deepEqual(runs.map((r) => r.outcome), ["completed"]);
});
