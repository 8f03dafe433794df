/**
 * `herald sessions delete` asks on a terminal, as `herald profile delete`
 * does; `-y/--yes` skips the question, and without a terminal it refuses.
 * `sessions list` hides sessions the model never answered unless `--all`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import type { Terminal } from "../../cli/context.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, argv: string[], terminal?: Terminal) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" }, terminal });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** A terminal a person types `text` into. */
function typing(text: string): Terminal {
  return {
    interactive: true,
    input: () =>
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      }),
  };
}

/** A home with one answered session and one the model never answered. */
async function seeded(root: string): Promise<{ answered: string; unanswered: string }> {
  assert.equal((await herald(root, ["config", "path"])).code, 0);
  const store = openStateStore(join(root, "state.db"));
  try {
    const answered =
      store.createSession({ source: "cli", title: "Trip plan", startedAt: 1_000 }).id;
    store.appendMessages(answered, [
      { role: "user", content: "plan a trip" },
      { role: "assistant", content: "Where to?" },
    ]);
    const unanswered = store.createSession({ source: "cli", title: "Lost", startedAt: 2_000 }).id;
    store.appendMessages(unanswered, [{ role: "user", content: "hello?" }]);
    return { answered, unanswered };
  } finally {
    store.close();
  }
}

function sessionIds(root: string): string[] {
  const store = openStateStore(join(root, "state.db"));
  try {
    return store.listSessions().map((session) => session.id);
  } finally {
    store.close();
  }
}

Deno.test("sessions delete asks on a terminal, refuses without one, and --yes skips the question", async () => {
  await using home = await tempDir();
  const { answered, unanswered } = await seeded(home.path);

  const noTerminal = await herald(home.path, ["sessions", "delete", answered]);
  assert.equal(noTerminal.code, 2);
  assert.match(noTerminal.stderr, /without confirmation.*--yes/);
  assert.match(noTerminal.stderr, new RegExp(`herald sessions delete ${answered} --yes`));
  assert.deepEqual(sessionIds(home.path), [unanswered, answered]);

  const declined = await herald(home.path, ["sessions", "delete", answered], typing("n\n"));
  assert.equal(declined.code, 1);
  assert.match(declined.stderr, new RegExp(`Delete session ${answered} "Trip plan" \\(2 messages`));
  assert.match(declined.stderr, /\[y\/N\]/);
  assert.match(declined.stderr, /was not deleted/);
  const silent = await herald(home.path, ["sessions", "delete", answered], typing(""));
  assert.equal(silent.code, 1);
  assert.deepEqual(sessionIds(home.path), [unanswered, answered]);

  const ghost = await herald(home.path, ["sessions", "delete", "ses_ghost"], typing("y\n"));
  assert.equal(ghost.code, 2);
  assert.match(ghost.stderr, /Session "ses_ghost" not found/);
  assert.doesNotMatch(
    ghost.stderr,
    /\[y\/N\]/,
    "nothing is asked about a session that is not there",
  );

  const typed = await herald(home.path, ["sessions", "delete", answered], typing("yes\n"));
  assert.equal(typed.code, 0, typed.stderr);
  assert.match(typed.stdout, new RegExp(`Deleted session ${answered}`));
  assert.deepEqual(sessionIds(home.path), [unanswered]);

  const yes = await herald(home.path, ["sessions", "delete", unanswered, "-y", "--json"]);
  assert.equal(yes.code, 0, yes.stderr);
  assert.deepEqual(JSON.parse(yes.stdout), { deleted: unanswered, files: 0 });
  assert.deepEqual(sessionIds(home.path), []);
});

Deno.test("sessions list hides a session the model never answered; --all shows it marked", async () => {
  await using home = await tempDir();
  const { answered, unanswered } = await seeded(home.path);
  const plain = await herald(home.path, ["sessions", "list"]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, new RegExp(`${answered} .* Trip plan\\n$`));
  assert.doesNotMatch(plain.stdout, new RegExp(unanswered));
  const all = await herald(home.path, ["sessions", "list", "--all"]);
  assert.equal(all.code, 0, all.stderr);
  const lines = all.stdout.trimEnd().split("\n");
  assert.equal(lines.length, 2);
  assert.match(lines[0], new RegExp(`^${unanswered} .* Lost \\(no answer\\)$`));
  assert.match(lines[1], new RegExp(`^${answered} .* Trip plan$`));
  const found = await herald(home.path, ["sessions", "search", "hello", "--json"]);
  assert.deepEqual(
    JSON.parse(found.stdout).results.map((hit: { session_id: string }) => hit.session_id),
    [unanswered],
    "search still finds it",
  );
});

Deno.test("an empty list says how to see sessions the model never answered", async () => {
  await using home = await tempDir();
  const plain = await herald(home.path, ["sessions", "list"]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /No sessions yet.*--all also lists sessions the model never answered/);
});
