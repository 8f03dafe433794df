/**
 * The real `herald` as a subprocess: a session remembers the directory it
 * was started in, and a session whose model call never succeeded (server
 * unreachable, or an error answer) is left out of `sessions list` and
 * `GET /api/sessions` unless all are asked for.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { profilePaths } from "../../adapters/home/mod.ts";
import { openProfileContext } from "../../adapters/runtime/profile_context.ts";
import { latestSessionIn } from "../../core/usecases/sessions.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";
import { testApp } from "../server/_app.ts";
import { configureModel, runHerald } from "./_herald.ts";

type Listed = { id: string; answered: boolean; cwd: string | null; api_call_count: number };

async function listed(home: string, ...flags: string[]): Promise<Listed[]> {
  const run = await runHerald({ args: ["sessions", "list", "--json", ...flags], home });
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

/** A base URL on 127.0.0.1 where nothing listens. */
function closedBaseUrl(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return `http://127.0.0.1:${port}/v1`;
}

Deno.test("a chat's session keeps the directory it was started in, and --continue's lookup finds it", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await using server = await startModelServer({ replies: [{ text: "hello there" }] });
  await configureModel(home.path, server.openaiBaseUrl);
  const run = await runHerald({
    args: ["chat", "-q", "hi", "--json"],
    home: home.path,
    cwd: work.path,
  });
  assert.equal(run.code, 0, run.stderr);
  const id = JSON.parse(run.stdout).session_id;
  const directory = await Deno.realPath(work.path);

  const [session] = await listed(home.path);
  assert.equal(session.id, id);
  assert.equal(session.cwd, directory);
  assert.equal(session.answered, true);
  const profile = openProfileContext(profilePaths(home.path, "default"), {});
  assert.equal(await latestSessionIn(profile, directory), id);
  assert.equal(await latestSessionIn(profile, home.path), null);
});

Deno.test("a session whose model was unreachable or refused is hidden from the list unless all are asked for", async () => {
  await using home = await tempDir();
  await using work = await tempDir();
  await using server = await startModelServer({
    replies: [{ status: 400, message: "model not found" }, { text: "fine" }],
  });
  await configureModel(home.path, closedBaseUrl());
  const unreachable = await runHerald({
    args: ["chat", "-q", "are you there?"],
    home: home.path,
    cwd: work.path,
  });
  assert.notEqual(unreachable.code, 0, "the model call failed");

  await configureModel(home.path, server.openaiBaseUrl);
  const refused = await runHerald({
    args: ["chat", "-q", "and now?"],
    home: home.path,
    cwd: work.path,
  });
  assert.notEqual(refused.code, 0, refused.stdout);
  const answered = await runHerald({
    args: ["chat", "-q", "third time", "--json"],
    home: home.path,
    cwd: work.path,
  });
  assert.equal(answered.code, 0, answered.stderr);
  const answeredId = JSON.parse(answered.stdout).session_id;

  assert.deepEqual((await listed(home.path)).map((session) => session.id), [answeredId]);
  const all = await listed(home.path, "--all");
  assert.equal(all.length, 3);
  assert.deepEqual(all.map((session) => session.answered), [true, false, false]);
  assert.deepEqual(all.map((session) => session.api_call_count), [1, 0, 0]);
  const store = openStateStore(join(home.path, "state.db"));
  try {
    for (const session of all.slice(1)) {
      assert.deepEqual(store.getMessages(session.id).map((message) => message.role), ["user"]);
    }
  } finally {
    store.close();
  }

  const text = await runHerald({ args: ["sessions", "list", "--all"], home: home.path });
  assert.equal(text.stdout.match(/\(no answer\)/g)?.length, 2);
  const { request } = testApp(home.path);
  const api = async (path: string) => (await (await request(path)).json()).sessions as Listed[];
  assert.deepEqual((await api("/api/sessions")).map((session) => session.id), [answeredId]);
  assert.deepEqual(await api("/api/sessions?all=true"), all);
  assert.equal((await request("/api/sessions?all=maybe")).status, 400);

  const profile = openProfileContext(profilePaths(home.path, "default"), {});
  const directory = await Deno.realPath(work.path);
  assert.equal(await latestSessionIn(profile, directory), answeredId);
  assert.equal(await latestSessionIn(profile, directory, { all: true }), all[0].id);
});
