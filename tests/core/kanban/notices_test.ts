import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteBoard } from "../../../adapters/kanban/mod.ts";
import type { TaskEvent, TaskRecord } from "../../../core/kanban/mod.ts";
import { subscriptionNotices } from "../../../core/kanban/notices.ts";
import {
  createTask,
  deliverTaskNotices,
  type KanbanContext,
} from "../../../core/usecases/kanban.ts";
import { tempDir } from "../../_helpers.ts";

const T0 = Date.UTC(2026, 10, 24, 9, 0);

const TASK: TaskRecord = {
  id: "t_1a2b3c4d",
  board: "default",
  title: "Write the docs",
  body: "",
  assignee: "writer",
  status: "done",
  priority: 0,
  created_by: "default",
  created_at: T0,
  updated_at: T0,
  started_at: T0,
  completed_at: T0,
  idempotency_key: null,
  max_retries: null,
  consecutive_failures: 0,
  claim_lock: null,
  claim_expires: null,
  worker_pid: null,
  heartbeat_at: null,
  result: "Notes in docs/RELEASE.md",
  block_kind: null,
  block_recurrences: 0,
  last_failure_error: null,
};

const LABEL = 't_1a2b3c4d "Write the docs"';

function event(
  seq: number,
  kind: string,
  payload: Record<string, unknown> | null = null,
): TaskEvent {
  return { seq, task_id: TASK.id, kind, payload, at: T0 };
}

Deno.test("a completed task tells its result and ends the subscription", () => {
  const notices = subscriptionNotices(TASK, [event(5, "heartbeat"), event(9, "completed")], 4);
  assert.deepEqual(notices, {
    texts: [`✓ ${LABEL} completed by writer: Notes in docs/RELEASE.md`],
    lastSeq: 9,
    done: true,
  });
  const bare = subscriptionNotices({ ...TASK, result: "  " }, [event(9, "completed")], 4);
  assert.deepEqual(bare.texts, [`✓ ${LABEL} completed by writer`]);
});

Deno.test("blocked, gave_up and block_loop_detected are told and keep the subscription", () => {
  const notices = subscriptionNotices({ ...TASK, status: "blocked" }, [
    event(10, "blocked", { reason: "needs the API key" }),
    event(11, "crashed", { error: "boom" }),
    event(12, "gave_up", { failures: 2, limit: 2, error: "boom" }),
    event(13, "block_loop_detected", { reason: "which database?", kind: "needs_input" }),
    event(14, "claimed"),
  ], 9);
  assert.deepEqual(notices.texts, [
    `⏸ ${LABEL} is blocked: needs the API key`,
    `✗ ${LABEL} was given up after 2 failed attempts: boom; unblock it to try again`,
    `↺ ${LABEL} needed input again and went back to triage: which database?`,
  ]);
  assert.equal(notices.lastSeq, 14);
  assert.equal(notices.done, false);
});

Deno.test("an archived task is told and ends the subscription; other events only move the cursor", () => {
  assert.deepEqual(subscriptionNotices(TASK, [event(3, "archived")], 2), {
    texts: [`${LABEL} was archived`],
    lastSeq: 3,
    done: true,
  });
  assert.deepEqual(
    subscriptionNotices(TASK, [event(3, "claimed"), event(4, "spawned"), event(6, "heartbeat")], 2),
    { texts: [], lastSeq: 6, done: false },
  );
  assert.deepEqual(subscriptionNotices(TASK, [], 7), { texts: [], lastSeq: 7, done: false });
  const long = subscriptionNotices(TASK, [event(8, "blocked", { reason: "x".repeat(1000) })], 7);
  assert.ok(long.texts[0].length < 400, "a long reason is clipped");
});

/** A kanban context over a real board in a temp folder, acting as profile `default`. */
async function setup() {
  const dir = await tempDir();
  let clock = T0;
  const now = () => (clock += 1_000);
  const board = openSqliteBoard(join(dir.path, "kanban.db"), { now });
  const context: KanbanContext = {
    board,
    actor: "default",
    profiles: () =>
      Promise.resolve([
        { name: "default", description: "" },
        { name: "coder", description: "Writes code." },
      ]),
    settings: () => Promise.resolve({ defaultProfile: "default" }),
    now,
  };
  const sent: [string, string][] = [];
  const send = (target: string, text: string) => {
    sent.push([target, text]);
    return Promise.resolve();
  };
  return {
    board,
    context,
    sent,
    send,
    async [Symbol.asyncDispose]() {
      board.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

Deno.test("a chat that created a task is told once when it completes, then unsubscribed", async () => {
  await using env = await setup();
  const { board, context, sent, send } = env;
  const { task } = await createTask(context, {
    title: "Fix the build",
    assignee: "coder",
    subscribe: { platform: "telegram", chatId: "42", threadId: "7" },
  });
  const [subscription] = await board.subscriptions("default");
  assert.equal(subscription.task_id, task.id);
  assert.equal(subscription.last_seq, (await board.events(task.id)).at(-1)!.seq);
  assert.deepEqual(await board.subscriptions("coder"), [], "delivered by the creating profile");

  assert.equal(await deliverTaskNotices(context, send), 0, "nothing happened yet");
  assert.ok(await board.claim(task.id, { lock: "L1", expiresAt: T0 + 60_000 }));
  assert.equal(await deliverTaskNotices(context, send), 0, "a claim is not told");
  const cursor = (await board.subscriptions())[0].last_seq;
  assert.equal(cursor, (await board.events(task.id)).at(-1)!.seq, "but the cursor moves on");

  await board.complete(task.id, "green again", { lock: "L1" });
  assert.equal(await deliverTaskNotices(context, send), 1);
  assert.deepEqual(sent, [
    ["telegram:42:7", `✓ ${task.id} "Fix the build" completed by coder: green again`],
  ]);
  assert.deepEqual(await board.subscriptions(), [], "the subscription ends with the task");
  assert.equal(await deliverTaskNotices(context, send), 0);
  assert.equal(sent.length, 1, "told once");
});

Deno.test("a notice that cannot be sent leaves the cursor and is sent next time", async () => {
  await using env = await setup();
  const { board, context, sent, send } = env;
  const { task } = await createTask(context, {
    title: "Deploy",
    assignee: "coder",
    subscribe: { platform: "slack", chatId: "C1" },
  });
  const cursor = (await board.subscriptions())[0].last_seq;
  await board.block(task.id, "needs the deploy key");
  const failing = () => Promise.reject(new Error("network down"));
  // Whether the failure is thrown or only logged, nothing counts as told.
  assert.equal(await deliverTaskNotices(context, failing).catch(() => 0), 0);
  assert.equal((await board.subscriptions())[0].last_seq, cursor, "the cursor stays");
  assert.equal(await deliverTaskNotices(context, send), 1);
  assert.deepEqual(sent, [["slack:C1", `⏸ ${task.id} "Deploy" is blocked: needs the deploy key`]]);
  assert.equal((await board.subscriptions()).length, 1, "a blocked task is not over");
  assert.equal(await deliverTaskNotices(context, send), 0, "not told twice");
});

Deno.test("a chat whose notices fail does not hold back the other chats", async () => {
  await using env = await setup();
  const { board, context, sent } = env;
  const broken = await createTask(context, {
    title: "For a deleted chat",
    subscribe: { platform: "telegram", chatId: "gone" },
  });
  const fine = await createTask(context, {
    title: "For a live chat",
    subscribe: { platform: "telegram", chatId: "42" },
  });
  await board.complete(broken.task.id, "done");
  await board.complete(fine.task.id, "done");
  const send = (target: string, text: string) => {
    if (target === "telegram:gone") return Promise.reject(new Error("chat not found"));
    sent.push([target, text]);
    return Promise.resolve();
  };
  await deliverTaskNotices(context, send).catch(() => undefined);
  assert.deepEqual(sent.map(([target]) => target), ["telegram:42"]);
  assert.deepEqual((await board.subscriptions()).map((s) => s.chat_id), ["gone"]);
});
