/**
 * `herald sessions rename` and `PATCH /api/sessions/:id`: titles unique per
 * profile, with a conflict that names the other session; and the search
 * options the CLI and the API share (internal sessions, full detail).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { tempDir } from "../_helpers.ts";
import { testApp } from "../server/_app.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** A home with sessions from the CLI, the dashboard and a cron job, all mentioning a marmot. */
async function seededHome(root: string): Promise<Record<string, string>> {
  assert.equal((await herald(root, "config", "path")).code, 0);
  const store = openStateStore(join(root, "state.db"));
  try {
    const ids: Record<string, string> = {};
    for (const [i, source] of ["cli", "dashboard", "cron"].entries()) {
      ids[source] = store.createSession({ source, title: `${source} notes`, startedAt: 1_000 * i })
        .id;
      store.appendMessages(ids[source], [
        { role: "user", content: `where is the marmot (${source})?` },
        { role: "assistant", content: "under the rock" },
      ]);
    }
    return ids;
  } finally {
    store.close();
  }
}

Deno.test("sessions rename sets a title, and a title in use is refused naming its session", async () => {
  await using home = await tempDir();
  const ids = await seededHome(home.path);
  const renamed = await herald(
    home.path,
    "sessions",
    "rename",
    ids.cli,
    "  Marmot hunt  ",
    "--json",
  );
  assert.equal(renamed.code, 0, renamed.stderr);
  assert.equal(JSON.parse(renamed.stdout).title, "Marmot hunt");
  const text = await herald(home.path, "sessions", "rename", ids.cli, "Marmot hunt, day 1");
  assert.equal(text.stdout, `Session ${ids.cli} is now titled "Marmot hunt, day 1".\n`);

  const taken = await herald(home.path, "sessions", "rename", ids.dashboard, "MARMOT HUNT, DAY 1");
  assert.equal(taken.code, 2);
  assert.equal(
    taken.stderr,
    `herald: The title "MARMOT HUNT, DAY 1" is already used by session ${ids.cli}; ` +
      "choose another title, or rename that session first\n",
  );
  const empty = await herald(home.path, "sessions", "rename", ids.dashboard, "   ");
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /A title needs some text/);
  const lines = await herald(home.path, "sessions", "rename", ids.dashboard, "one\ntwo");
  assert.equal(lines.code, 2);
  const missing = await herald(home.path, "sessions", "rename", "ses_nope", "x");
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Session "ses_nope" not found/);
});

Deno.test("PATCH /api/sessions/:id renames, with 409 naming the session that has the title", async () => {
  await using home = await tempDir();
  const ids = await seededHome(home.path);
  const { request } = testApp(home.path);
  const patch = async (id: string, body: unknown) => {
    const response = await request(`/api/sessions/${id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const ok = await patch(ids.dashboard, { title: "Dashboard marmots" });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.session.title, "Dashboard marmots");
  assert.equal(ok.body.session.id, ids.dashboard);

  const conflict = await patch(ids.cron, { title: "dashboard MARMOTS" });
  assert.equal(conflict.status, 409);
  assert.equal(conflict.body.error.code, "session_title_taken");
  assert.equal(conflict.body.error.details.session_id, ids.dashboard);
  assert.match(conflict.body.error.message, new RegExp(ids.dashboard));
  assert.equal((await patch(ids.cron, { title: "" })).status, 400);
  assert.equal((await patch(ids.cron, {})).status, 400);
  assert.equal((await patch("ses_nope", { title: "x" })).status, 404);

  const shown = await herald(home.path, "sessions", "show", ids.dashboard, "--json");
  assert.equal(JSON.parse(shown.stdout).session.title, "Dashboard marmots");
});

Deno.test("sessions search and the API hide internal sessions alike unless asked, and show ISO times", async () => {
  await using home = await tempDir();
  const ids = await seededHome(home.path);
  const { request } = testApp(home.path);
  const api = async (query: string) => {
    const response = await request(`/api/sessions/search?${query}`);
    assert.equal(response.status, 200, query);
    const { profile: _, ...body } = await response.json();
    return body;
  };
  const cli = async (...argv: string[]) => {
    const result = await herald(home.path, "sessions", "search", "marmot", "--limit", "5", ...argv);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  };

  const visible = await cli("--json");
  assert.deepEqual(visible, await api("q=marmot&limit=5"));
  assert.deepEqual(
    visible.results.map((hit: { session_id: string }) => hit.session_id).sort(),
    [ids.cli, ids.dashboard].sort(),
  );
  assert.deepEqual(visible.results.map((hit: { detail: string }) => hit.detail), [
    "full",
    "compact",
  ]);
  assert.equal(
    visible.results.find((hit: { session_id: string }) => hit.session_id === ids.cli)
      .started_at,
    "1970-01-01T00:00:00.000Z",
  );

  const everything = await cli("--include-internal", "--full", "--json");
  assert.deepEqual(everything, await api("q=marmot&limit=5&include_internal=true&detail=full"));
  assert.equal(everything.count, 3);
  assert.ok(everything.results.every((hit: { detail: string }) => hit.detail === "full"));

  const text = await herald(home.path, "sessions", "search", "marmot", "--include-internal");
  assert.match(text.stdout, new RegExp(`${ids.cron} .* cron notes {2}\\[cron\\]`));
  assert.equal((await request("/api/sessions/search?q=marmot&include_internal=maybe")).status, 400);
  assert.equal((await request("/api/sessions/search?q=marmot&detail=some")).status, 400);
});
