/**
 * Migration 5 and what it serves: the directory a session was started in,
 * listing by directory, and leaving out sessions the model never answered.
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openStateStore, STATE_MIGRATIONS } from "../../../adapters/sqlite/mod.ts";
import { migrate } from "../../../adapters/sqlite/migrations.ts";
import { tempDir } from "../../_helpers.ts";

Deno.test("a database from before migration 5 keeps its sessions with no cwd, and new ones keep theirs", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const old = new DatabaseSync(path);
  try {
    migrate(old, path, STATE_MIGRATIONS.filter((migration) => migration.version < 5));
    old.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('ses_old', 'cli', 1)").run();
  } finally {
    old.close();
  }
  const store = openStateStore(path);
  try {
    assert.equal(store.getSession("ses_old")?.cwd, null);
    const fresh = store.createSession({ source: "cli", cwd: "/home/ada/project" });
    assert.equal(fresh.cwd, "/home/ada/project");
    assert.equal(store.getSession(fresh.id)?.cwd, "/home/ada/project");
    assert.equal(store.createSession({ source: "cli" }).cwd, null);
    assert.deepEqual(store.listSessions({ cwd: "/home/ada/project" }).map((s) => s.id), [
      fresh.id,
    ]);
    assert.throws(
      () => store.createSession({ source: "cli", cwd: 7 as unknown as string }),
      TypeError,
    );
  } finally {
    store.close();
  }
  const names = STATE_MIGRATIONS.map((migration) => `${migration.version} ${migration.name}`);
  assert.ok(names.includes("5 session_cwd"), names.join(", "));
});

Deno.test("sessions are listed by exact directory and, when asked, only once answered", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    const here = "/srv/app";
    const answered = store.createSession({ source: "cli", cwd: here, startedAt: 1 }).id;
    store.appendMessages(answered, [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ]);
    const toolsOnly = store.createSession({ source: "cli", cwd: here, startedAt: 2 }).id;
    store.appendMessages(toolsOnly, [
      { role: "user", content: "list files" },
      { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "terminal" }] },
    ]);
    const unanswered = store.createSession({ source: "cli", cwd: here, startedAt: 3 }).id;
    store.appendMessages(unanswered, [{ role: "user", content: "anyone there?" }]);
    const below = store.createSession({ source: "cli", cwd: `${here}/sub`, startedAt: 4 }).id;
    store.appendMessages(below, [{ role: "user", content: "x" }, {
      role: "assistant",
      content: "y",
    }]);

    assert.deepEqual(store.listSessions({ cwd: here }).map((s) => s.id), [
      unanswered,
      toolsOnly,
      answered,
    ]);
    assert.deepEqual(
      store.listSessions({ cwd: here, answeredOnly: true }).map((s) => s.id),
      [toolsOnly, answered],
      "an assistant turn that only called tools is an answer; a lone user message is not",
    );
    assert.deepEqual(store.listSessions({ answeredOnly: true, limit: 1 }).map((s) => s.id), [
      below,
    ]);
    assert.deepEqual(store.listSessions({ cwd: "/srv" }), []);
  } finally {
    store.close();
  }
});

Deno.test("a bulk import keeps each session's cwd", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    store.bulkImport(
      [
        { id: "ses_a", source: "import", cwd: "/work/a", startedAt: 1 },
        { id: "ses_b", source: "import", startedAt: 2 },
      ],
      [],
    );
    assert.equal(store.getSession("ses_a")?.cwd, "/work/a");
    assert.equal(store.getSession("ses_b")?.cwd, null);
  } finally {
    store.close();
  }
});
