/**
 * Two `herald kanban dispatch` processes started at the same moment over
 * one board never start two workers for one task: every task is claimed
 * and spawned at most once per round, whichever process wins it, and every
 * worker (a real `herald kanban work` subprocess answered by the scripted
 * model) finishes its task.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openSqliteBoard } from "../../adapters/kanban/mod.ts";
import { tempDir } from "../_helpers.ts";
import {
  type RecordedRequest,
  type ScriptedReply,
  startModelServer,
} from "../fakes/model_server.ts";
import { configureModel, runHerald } from "./_herald.ts";
import { until } from "./_gateway.ts";

const ROUNDS = 3;
const TASKS_PER_ROUND = 6;

/** Every worker completes its task at once, then says so. */
function respond(request: RecordedRequest): ScriptedReply {
  const messages = (request.body as { messages?: { role: string }[] }).messages ?? [];
  if (messages.some((message) => message.role === "tool")) return { text: "Done." };
  return { toolCalls: [{ name: "kanban_complete", arguments: { summary: "done" } }] };
}

Deno.test("two dispatchers ticking one board at once never start two workers for one task", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({ respond });
  await configureModel(home.path, model.openaiBaseUrl, "kanban:\n  max_in_progress: 8\n");
  const board = openSqliteBoard(join(home.path, "kanban.db"));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const ids: string[] = [];
      for (let i = 0; i < TASKS_PER_ROUND; i++) {
        const { task } = await board.createTask({
          title: `Round ${round} task ${i}`,
          assignee: "default",
        });
        ids.push(task.id);
      }
      const [first, second] = await Promise.all([
        runHerald({ args: ["kanban", "dispatch", "--json"], home: home.path }),
        runHerald({ args: ["kanban", "dispatch", "--json"], home: home.path }),
      ]);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(second.code, 0, second.stderr);
      const spawned = [first, second].flatMap((run) =>
        (JSON.parse(run.stdout) as { spawned: { task_id: string }[] }).spawned.map((s) => s.task_id)
      );
      assert.equal(new Set(spawned).size, spawned.length, `round ${round}: no task started twice`);
      assert.deepEqual([...spawned].sort(), [...ids].sort(), `round ${round}: every task started`);

      await until(`round ${round}'s workers to finish`, async () => {
        const tasks = await Promise.all(ids.map((id) => board.getTask(id)));
        return tasks.every((task) => task?.status === "done") ? true : undefined;
      });
      for (const id of ids) {
        const kinds = (await board.events(id)).map((event) => event.kind);
        assert.equal(kinds.filter((kind) => kind === "claimed").length, 1, `${id} claimed once`);
        assert.equal(kinds.filter((kind) => kind === "spawned").length, 1, `${id} spawned once`);
        assert.deepEqual((await board.runs(id)).map((run) => run.outcome), ["completed"]);
      }
    }
  } finally {
    board.close();
  }
});
