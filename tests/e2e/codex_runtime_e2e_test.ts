/**
 * The real `herald chat -q` with `model.openai_runtime: codex_app_server`:
 * the turn runs in the real `codex app-server` against the scripted
 * Responses model, a command approved by `--yolo` runs (and is refused
 * without it: nobody can approve), the session is stored with Codex's
 * items, and `herald sessions search` finds them.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { pathExists } from "../../adapters/fs/mod.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { startResponsesModel } from "../fakes/responses_model.ts";
import { codexBinary, codexHome } from "../codex_cli.ts";
import { tempDir } from "../_helpers.ts";
import { configureModel, runHerald } from "./_herald.ts";

Deno.test("herald chat -q runs its turn in the Codex app-server when the profile says so", async () => {
  const program = await codexBinary();
  await using home = await tempDir();
  await using work = await tempDir();
  await using own = await startModelServer({ replies: [] });
  await using responses = await startResponsesModel();
  await using codex = await codexHome({ baseUrl: responses.baseUrl });
  await configureModel(home.path, own.openaiBaseUrl, "  openai_runtime: codex_app_server\n");
  const env = { PATH: `${dirname(program)}:${Deno.env.get("PATH")}`, ...codex.env };

  const denied = await runHerald({
    args: ["chat", "-q", "RUN echo refused > refused.txt", "--json"],
    home: home.path,
    cwd: work.path,
    env,
  });
  assert.equal(denied.code, 0, denied.stderr);
  assert.equal(await pathExists(join(work.path, "refused.txt")), false);
  assert.match(denied.stderr, /denied codex command/);

  const run = await runHerald({
    args: ["chat", "--yolo", "-q", "RUN echo from-herald-e2e > proof.txt", "--json"],
    home: home.path,
    cwd: work.path,
    env,
  });
  assert.equal(run.code, 0, run.stderr);
  const printed = JSON.parse(run.stdout);
  assert.match(printed.response, /^Done: /);
  assert.deepEqual(printed.tool_calls.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [
    ["shell", true],
  ]);
  assert.equal(await Deno.readTextFile(join(work.path, "proof.txt")), "from-herald-e2e\n");
  assert.equal(own.requests.length, 0, "Herald's own model is not called");

  const store = openStateStore(join(home.path, "state.db"));
  try {
    const rows = store.getMessages(printed.session_id);
    assert.deepEqual(rows.map((row) => row.role), ["user", "assistant", "tool", "assistant"]);
    assert.equal(store.getSession(printed.session_id)?.source, "cli");
  } finally {
    store.close();
  }

  const search = await runHerald({
    args: ["sessions", "search", "from-herald-e2e", "--json"],
    home: home.path,
    env,
  });
  assert.equal(search.code, 0, search.stderr);
  assert.match(search.stdout, new RegExp(printed.session_id));
});
