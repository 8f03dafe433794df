/**
 * Session titles in a real state database: unique per profile ignoring
 * ASCII case, automatic titles numbered instead of failing, and databases
 * from before the rule brought in line by their migration.
 */

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { SessionTitleTakenError } from "../../../core/sessions/mod.ts";
import { NotFoundError } from "../../../core/errors.ts";
import { openStateStore, STATE_MIGRATIONS } from "../../../adapters/sqlite/mod.ts";
import { migrate } from "../../../adapters/sqlite/migrations.ts";
import { tempDir } from "../../_helpers.ts";

Deno.test("a title another session has is refused, naming that session, whatever its case", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    const first = store.createSession({ source: "cli", title: "Fix the deploy" });
    const second = store.createSession({ source: "cli" });
    assert.throws(
      () => store.updateSession(second.id, { title: "fix THE deploy" }),
      (error: unknown) =>
        error instanceof SessionTitleTakenError &&
        error.kind === "conflict" &&
        error.otherId === first.id &&
        error.message.includes(first.id),
    );
    assert.equal(store.getSession(second.id)!.title, null);
    // A session may keep (or recase) its own title.
    assert.equal(
      store.updateSession(first.id, { title: "Fix The Deploy" }).title,
      "Fix The Deploy",
    );
    assert.equal(store.findSessionByTitle("FIX the deploy")!.id, first.id);
    assert.equal(store.findSessionByTitle("nothing"), undefined);
    // An unknown session is not found, even with a title that is taken.
    assert.throws(
      () => store.updateSession("ses_nope", { title: "Fix the deploy" }),
      NotFoundError,
    );
    // Clearing a title frees it.
    store.updateSession(first.id, { title: null });
    assert.equal(
      store.updateSession(second.id, { title: "Fix the deploy" }).title,
      "Fix the deploy",
    );
  } finally {
    store.close();
  }
});

Deno.test("a taken title given at creation or import is numbered instead of failing", async () => {
  await using dir = await tempDir();
  const store = openStateStore(`${dir.path}/state.db`);
  try {
    const titles = ["hello", "Hello", "hello"].map((title) =>
      store.createSession({ source: "cli", title }).title
    );
    assert.deepEqual(titles, ["hello", "Hello #2", "hello #3"]);
    store.bulkImport(
      [
        { id: "ses_i1", source: "import", title: "hello" },
        { id: "ses_i2", source: "import", title: "imported" },
        { id: "ses_i3", source: "import", title: "imported" },
      ],
      [],
    );
    assert.deepEqual(
      ["ses_i1", "ses_i2", "ses_i3"].map((id) => store.getSession(id)!.title),
      ["hello #4", "imported", "imported #2"],
    );
  } finally {
    store.close();
  }
});

Deno.test("a database from before unique titles keeps the oldest title and suffixes the others", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/state.db`;
  const unique = STATE_MIGRATIONS.find((m) => m.name === "session_titles_and_sources")!;
  const old = new DatabaseSync(path);
  migrate(old, path, STATE_MIGRATIONS.filter((m) => m.version < unique.version));
  const insert = old.prepare(
    "INSERT INTO sessions (id, source, title, started_at) VALUES (?, 'cli', ?, ?)",
  );
  insert.run("ses_b", "Hello", 2);
  insert.run("ses_a", "hello", 1);
  insert.run("ses_c", "HELLO", 3);
  insert.run("ses_d", null, 4);
  insert.run("ses_e", null, 5);
  insert.run("ses_f", "other", 6);
  old.close();

  const store = openStateStore(path);
  try {
    assert.deepEqual(
      ["ses_a", "ses_b", "ses_c", "ses_d", "ses_e", "ses_f"].map((id) =>
        store.getSession(id)!.title
      ),
      ["hello", "Hello (ses_b)", "HELLO (ses_c)", null, null, "other"],
    );
    assert.throws(
      () => store.updateSession("ses_d", { title: "HeLLo" }),
      SessionTitleTakenError,
    );
  } finally {
    store.close();
  }
});
