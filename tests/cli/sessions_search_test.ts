import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

Deno.test("sessions search prints the same discovery result as the tool, as JSON or text", async () => {
  await using home = await tempDir();
  assert.equal((await herald(home.path, "config", "path")).code, 0);
  await Deno.mkdir(home.path, { recursive: true });
  const store = openStateStore(join(home.path, "state.db"));
  store.createSession({ id: "ses_x", source: "cli", title: "deploy notes" });
  store.appendMessages("ses_x", [
    { role: "user", content: "how do we deploy the flamingo service?" },
    { role: "assistant", content: "With the release script.  " },
  ]);
  store.close();
  const json = await herald(home.path, "sessions", "search", "flamingo", "--json");
  assert.equal(json.code, 0, json.stderr);
  const result = JSON.parse(json.stdout);
  assert.equal(result.shape, "discovery");
  assert.equal(result.results[0].session_id, "ses_x");
  assert.equal(result.results[0].messages[1].content, "With the release script.  ");
  const text = await herald(home.path, "sessions", "search", "flamingo");
  assert.match(
    text.stdout,
    /ses_x .* deploy notes\n {2}> \[\d+ user\] how do we deploy the flamingo service\?/,
  );
  const none = await herald(home.path, "sessions", "search", "nothingmatches");
  assert.match(none.stdout, /No stored messages match/);
});

Deno.test("sessions search with nothing searchable is a one-line usage error", async () => {
  await using home = await tempDir();
  const result = await herald(home.path, "sessions", "search", "*** ::");
  assert.equal(result.code, 2);
  assert.equal(result.stderr, 'herald: The query "*** ::" has no words to search for\n');
});
