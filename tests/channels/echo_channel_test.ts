/**
 * The echo channel holds a whole conversation through the conversation
 * object: the scripted model calls a dangerous terminal command, the channel
 * is asked and approves it, the command runs, the model answers, and
 * `/exit --delete` deletes the stored session.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createProfile } from "../../adapters/home/mod.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { configureModel } from "../e2e/_herald.ts";
import { tempDir } from "../_helpers.ts";
import { openEchoChannel } from "./echo_channel.ts";

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) names.push(entry.name);
  return names;
}

Deno.test("the echo channel holds a conversation with a tool call, an approval and /exit --delete", async () => {
  await using root = await tempDir();
  await using work = await tempDir();
  await Deno.mkdir(join(work.path, "build", "cache"), { recursive: true });
  await using model = await startModelServer({
    replies: [
      { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf build" } }] },
      { text: "Removed the build folder." },
    ],
  });
  const paths = await createProfile(root.path, "echo", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl, "agent:\n  dump_requests: true\n");

  const channel = await openEchoChannel(paths, work.path, "once");
  await channel.send("please clean the build");
  const store = openStateStore(paths.stateDb);
  const [stored] = store.listSessions();
  store.close();
  assert.equal(stored.source, "echo");
  const dumps = await listDir(paths.requestDumps);
  assert.equal(dumps.length, 2, "one request dump per model call");
  assert.ok(dumps.every((name) => name.startsWith(stored.id)));

  await channel.send("/exit --delete");
  assert.deepEqual(channel.transcript, [
    "> please clean the build",
    "* terminal",
    "? rm -rf build",
    "! once",
    "< Removed the build folder.",
    "> /exit --delete",
    "< Leaving; this session will be deleted.",
  ]);
  await assert.rejects(Deno.stat(join(work.path, "build")), Deno.errors.NotFound);
  const [, second] = model.requests;
  const messages = (second.body as { messages: { role: string; content: string }[] }).messages;
  assert.equal(JSON.parse(messages.at(-1)!.content).exit_code, 0, "the approved command ran");

  const after = openStateStore(paths.stateDb);
  try {
    assert.equal(after.getSession(stored.id), undefined, "the session is gone from state.db");
    assert.deepEqual(after.listSessions(), []);
  } finally {
    after.close();
  }
  assert.deepEqual(await listDir(paths.requestDumps), []);
  assert.deepEqual(await listDir(paths.sessions), []);
  await assert.rejects(channel.send("hello?"), /conversation is closed/);
});
