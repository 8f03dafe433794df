/**
 * Approval modes end to end: the real `herald chat -q` with the scripted
 * model. An "always" rule covers its own targets only, hardline commands are
 * refused whatever was approved, and `approvals.deny` holds even in yolo mode.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";
import { configureModel, runHerald } from "./_herald.ts";

type Message = { role: string; content: unknown };

/** The tool results the model was sent in its second request, in call order. */
function toolResults(request: { body: unknown }): Record<string, unknown>[] {
  const messages = (request.body as { messages: Message[] }).messages;
  return messages.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)));
}

function terminal(command: string) {
  return { name: "terminal", arguments: { command } };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** A project with build/ and src/, a user home with a file in it, and a Herald home. */
async function machine(root: string) {
  const work = join(root, "project");
  const user = join(root, "user");
  for (const dir of [join(work, "build"), join(work, "src"), user]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  await Deno.writeTextFile(join(user, "keep.txt"), "precious");
  return { work, user, herald: join(user, ".herald") };
}

const RULES = "approvals:\n  allow:\n    - rm_recursive:build\n  deny:\n    - git push *\n";

Deno.test("an always rule covers its own targets only, and hardline commands stay refused", async () => {
  await using root = await tempDir();
  const m = await machine(root.path);
  await using server = await startModelServer({
    replies: [
      { toolCalls: [terminal("rm -rf build/"), terminal("rm -rf ~"), terminal("rm -rf src")] },
      { text: "done" },
    ],
  });
  await configureModel(m.herald, server.openaiBaseUrl, RULES);
  const run = await runHerald({
    args: ["chat", "-q", "clean up"],
    home: m.herald,
    cwd: m.work,
    env: { HOME: m.user },
  });
  assert.equal(run.code, 0, run.stderr);
  const [build, home, src] = toolResults(server.requests[1]);
  assert.equal(build.exit_code, 0);
  assert.equal(home.code, "blocked");
  assert.match(String(home.error), /never runs this command, even when approved/);
  assert.equal(src.code, "denied");
  assert.ok(!(await exists(join(m.work, "build"))));
  assert.ok(await exists(join(m.work, "src")), "rm -rf src was not covered by rm_recursive:build");
  assert.equal(await Deno.readTextFile(join(m.user, "keep.txt")), "precious");
  assert.match(run.stderr, /add "rm_recursive:src" to approvals\.allow/);
});

Deno.test("yolo runs what would ask, but never a hardline command or an approvals.deny match", async () => {
  await using root = await tempDir();
  const m = await machine(root.path);
  await using server = await startModelServer({
    replies: [
      {
        toolCalls: [
          terminal("git push --force origin main"),
          terminal("rm -rf src"),
          terminal("rm -rf /"),
        ],
      },
      { text: "done" },
    ],
  });
  await configureModel(m.herald, server.openaiBaseUrl, RULES);
  const run = await runHerald({
    args: ["chat", "--yolo", "-q", "go"],
    home: m.herald,
    cwd: m.work,
    env: { HOME: m.user },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /yolo mode: dangerous commands run without asking/);
  const [push, src, root_] = toolResults(server.requests[1]);
  assert.equal(push.code, "blocked");
  assert.match(String(push.error), /matches "git push \*" in approvals\.deny/);
  assert.equal(src.exit_code, 0);
  assert.ok(!(await exists(join(m.work, "src"))));
  assert.equal(root_.code, "blocked");

  // approvals.mode: yolo in config does the same as --yolo.
  await using again = await startModelServer({
    replies: [{ toolCalls: [terminal("rm -rf build")] }, { text: "done" }],
  });
  await configureModel(m.herald, again.openaiBaseUrl, `${RULES}  mode: yolo\n`);
  const byConfig = await runHerald({
    args: ["chat", "-q", "go"],
    home: m.herald,
    cwd: m.work,
    env: { HOME: m.user },
  });
  assert.equal(byConfig.code, 0, byConfig.stderr);
  assert.equal(toolResults(again.requests[1])[0].exit_code, 0);
  assert.ok(!(await exists(join(m.work, "build"))));
});
