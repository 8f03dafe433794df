/**
 * The whole kanban loop with real processes: a `herald gateway run` whose
 * dispatcher ticks every second, real `herald -p <profile> kanban work`
 * worker subprocesses, and the scripted model server answering the
 * decomposer and every worker by what each request asks. A triage task is
 * decomposed into two independent research tasks and a report that needs
 * both; the two research workers run at the same time, the report waits
 * for them, and when all three are done the root wakes the orchestrator
 * (the default profile), which completes it. The event log tells the
 * story in order.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteBoard } from "../../adapters/kanban/mod.ts";
import type { TaskEvent, TaskRecord } from "../../core/kanban/mod.ts";
import { tempDir } from "../_helpers.ts";
import {
  type RecordedRequest,
  type ScriptedReply,
  startModelServer,
} from "../fakes/model_server.ts";
import { configureModel } from "./_herald.ts";
import { runGateway } from "./_gateway.ts";

/** A guard against hanging forever, not a timing under test. */
const WAIT_MS = 120_000;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const GRAPH = {
  fanout: true,
  rationale: "two independent research parts, then the report that needs both",
  tasks: [
    { title: "Research the facts", body: "Find the facts.", assignee: "researcher", parents: [] },
    { title: "Research the prices", body: "Find the prices.", assignee: "researcher", parents: [] },
    { title: "Write the report", body: "Use both results.", assignee: "writer", parents: [0, 1] },
  ],
};

/** The text of a chat request's messages (OpenAI shape). */
function messages(request: RecordedRequest): { role: string; content?: unknown }[] {
  return (request.body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
}

/**
 * Answers the decomposer with {@link GRAPH}, and a worker with
 * kanban_complete on its first call (after a pause, for the research
 * tasks, so both run at once) and a closing line after the tool's result.
 */
function respond(request: RecordedRequest): ScriptedReply | undefined {
  const text = JSON.stringify(messages(request));
  if (text.includes("You plan work on Herald's kanban board")) {
    return { text: JSON.stringify(GRAPH) };
  }
  // The last mention is the request itself (the worker skill's text shows an example first).
  const asked = [...text.matchAll(/Work kanban task (t_[0-9a-f]{8}): ([^\\"]+)/g)].at(-1);
  if (!asked) return { status: 500, message: `unexpected request: ${text.slice(0, 300)}` };
  const [, id, title] = asked;
  if (messages(request).some((message) => message.role === "tool")) {
    return { text: `Finished ${id}.` };
  }
  return {
    delayMs: title.startsWith("Research") ? 1_500 : 0,
    toolCalls: [{
      name: "kanban_complete",
      arguments: { summary: `${title}: done by the worker`, result: `result of ${title}` },
    }],
  };
}

Deno.test("a triage task is decomposed, its children worked in parallel by real workers, and the root wakes the orchestrator", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({ respond });
  const settings = "kanban:\n  dispatch_interval_seconds: 1\n";
  await configureModel(home.path, model.openaiBaseUrl, settings);
  for (
    const [name, description] of [
      ["researcher", "Finds facts and figures on the web."],
      ["writer", "Writes reports from research results."],
    ]
  ) {
    const dir = join(home.path, "profiles", name);
    await configureModel(dir, model.openaiBaseUrl);
    await Deno.writeTextFile(join(dir, "profile.yaml"), `description: ${description}\n`);
  }
  const board = openSqliteBoard(join(home.path, "kanban.db"));
  try {
    const { task: root } = await board.createTask({
      title: "Report on the market",
      assignee: "default",
      triage: true,
    });

    await using gateway = await runGateway({ root: home.path, profileHome: home.path });
    const done = await waitFor("the root to be done", async () => {
      const task = await board.getTask(root.id);
      return task?.status === "done" ? task : undefined;
    }, () => gateway.stdout());
    assert.equal(done.assignee, "default", "the root went to the orchestrator");
    assert.match(done.result ?? "", /Report on the market: done by the worker/);

    const tasks = await board.listTasks({});
    const byTitle = new Map(tasks.map((task) => [task.title, task]));
    const facts = byTitle.get("Research the facts")!;
    const prices = byTitle.get("Research the prices")!;
    const report = byTitle.get("Write the report")!;
    for (const task of [facts, prices, report]) {
      assert.equal(task.status, "done", `${task.title} is done`);
      assert.equal(task.consecutive_failures, 0);
    }
    assert.equal(facts.assignee, "researcher");
    assert.equal(report.assignee, "writer");

    const events = await board.events();
    const at = (task: TaskRecord, kind: string) => {
      const found = events.find((event) => event.task_id === task.id && event.kind === kind);
      assert.ok(found, `${task.title}: ${kind} in the log`);
      return found.seq;
    };
    // The two independent children ran at once: both claimed before either completed.
    assert.ok(
      Math.max(at(facts, "claimed"), at(prices, "claimed")) <
        Math.min(at(facts, "completed"), at(prices, "completed")),
      "the research tasks ran in parallel",
    );
    // The report waited for both, and the root for the report.
    assert.ok(at(report, "claimed") > Math.max(at(facts, "completed"), at(prices, "completed")));
    assert.ok(at(report, "promoted") > Math.max(at(facts, "completed"), at(prices, "completed")));
    assert.ok(at(root, "promoted") > at(report, "completed"), "the root woke after the graph");
    assert.ok(at(root, "claimed") > at(root, "promoted"));
    assert.deepEqual(
      kindsOf(events, root.id),
      ["created", "commented", "decomposed", "promoted", "claimed", "spawned", "completed"],
      "the root's story",
    );
    for (const task of [facts, prices, report]) {
      assert.deepEqual(
        kindsOf(events, task.id).filter((kind) => kind !== "heartbeat"),
        task === report
          ? ["created", "promoted", "claimed", "spawned", "completed"]
          : ["created", "claimed", "spawned", "completed"],
        `${task.title}'s story`,
      );
    }
    assert.deepEqual(
      events.map((event) => event.seq),
      [...events.map((event) => event.seq)].sort((a, b) => a - b),
      "the log is in order",
    );
    const log = await Deno.readTextFile(join(home.path, "kanban", "logs", `${facts.id}.log`));
    assert.match(log, /completed/, "the worker's output is in its log");
    const stopped = await gateway.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, new RegExp(`kanban: started ${facts.id} as researcher`));
  } finally {
    board.close();
  }
});

/** The kinds of `taskId`'s events, in order. */
function kindsOf(events: readonly TaskEvent[], taskId: string): string[] {
  return events.filter((event) => event.task_id === taskId).map((event) => event.kind);
}

/** Polls `check` until it returns a value; on giving up, shows what `log` says. */
async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  log: () => string,
): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      throw new Error(`gave up waiting for ${what}; gateway log:\n${log()}`);
    }
    await delay(100);
  }
}
