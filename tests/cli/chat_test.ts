/**
 * `herald chat -q` in-process against the scripted model server: input that
 * would send nothing useful is refused before the model is asked, the JSON
 * answer says when the turn ran out of model calls, and leaving ends the
 * stored session.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { writeTree } from "../adapters/skills/_write.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

Deno.test("chat -q with an unknown command or a bundle that loads nothing says so and asks no model", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({ replies: [{ text: "never sent" }] });
  await configureModel(home.path, model.openaiBaseUrl);
  await writeTree(home.path, { "skill-bundles/ghosts.yaml": "name: ghosts\nskills: [boo]\n" });

  const unknown = await herald(home.path, "chat", "-q", "/frobnicate the widget");
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stdout, "");
  assert.match(
    unknown.stderr,
    /^herald: Unknown command \/frobnicate: no skill or bundle has that name, so nothing was sent/,
  );
  const empty = await herald(home.path, "chat", "-q", "/ghosts go", "--json");
  assert.equal(empty.code, 2);
  // With --json the error is also the one JSON line on stdout (cli/errors.ts).
  assert.deepEqual(JSON.parse(empty.stdout), {
    error: { code: "nothing_to_send", message: empty.stderr.replace(/^herald: /, "").trimEnd() },
  });
  assert.match(empty.stderr, /^herald: Bundle \/ghosts has none of its skills available \(boo\)/);
  assert.equal(model.requests.length, 0);
});

Deno.test("chat -q --json reports hit_max_turns, and leaving ends the stored session", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [
      { toolCalls: [{ name: "session_search", arguments: {} }] },
      { text: "plain answer" },
    ],
  });
  await configureModel(home.path, model.openaiBaseUrl, "agent:\n  max_turns: 1\n");

  const capped = await herald(home.path, "chat", "-q", "look around", "--json");
  assert.equal(capped.code, 0, capped.stderr);
  const first = JSON.parse(capped.stdout);
  assert.equal(first.hit_max_turns, true);
  assert.deepEqual(first.tool_calls.map((c: { name: string }) => c.name), ["session_search"]);

  const plain = await herald(home.path, "chat", "-q", "just answer", "--json");
  assert.equal(plain.code, 0, plain.stderr);
  const second = JSON.parse(plain.stdout);
  assert.equal(second.hit_max_turns, false);
  assert.equal(second.response, "plain answer");

  const store = openStateStore(join(home.path, "state.db"));
  try {
    for (const id of [first.session_id, second.session_id]) {
      const session = store.getSession(id)!;
      assert.equal(session.endReason, "closed");
      assert.ok(session.endedAt !== null && session.endedAt >= session.startedAt);
    }
  } finally {
    store.close();
  }
});

Deno.test('chat "prompt" asks one question like -q; a prompt and -q together are refused', async () => {
  await using home = await tempDir();
  await using model = await startModelServer({ replies: [{ text: "Hi back." }] });
  await configureModel(home.path, model.openaiBaseUrl);
  const asked = await herald(home.path, "chat", "hello", "there");
  assert.equal(asked.code, 0, asked.stderr);
  assert.equal(asked.stdout, "Hi back.\n");
  const body = model.requests[0].body as { messages: { role: string; content: string }[] };
  assert.equal(body.messages.at(-1)?.content, "hello there");
  const twice = await herald(home.path, "chat", "hello", "-q", "again");
  assert.equal(twice.code, 2);
  assert.match(twice.stderr, /Give the question once/);
  assert.equal(model.requests.length, 1);
});

Deno.test("the plain chat shows a command that exits non-zero as failed, with its exit code", async () => {
  await using home = await tempDir();
  await using model = await startModelServer({
    replies: [
      { toolCalls: [{ name: "terminal", arguments: { command: "exit 3" } }] },
      { text: "It failed." },
    ],
  });
  await configureModel(home.path, model.openaiBaseUrl);
  const asked = await herald(home.path, "chat", "-q", "run it");
  assert.equal(asked.code, 0, asked.stderr);
  assert.match(asked.stderr, /failed terminal: exit 3 \(\d+ ms\)/);
  assert.doesNotMatch(asked.stderr, /ok terminal/);
});
