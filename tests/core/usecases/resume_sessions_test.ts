/**
 * The resume use cases over a real profile home and state database: the
 * newest session of a directory, the recent sessions a picker offers, the
 * recap of a stored session, sessions the model never answered, and a
 * delete that asks first.
 */

import assert from "node:assert/strict";
import {
  SessionDeleteRefusedError,
  SessionNotFoundError,
  type SessionView,
} from "../../../core/sessions/mod.ts";
import {
  deleteSession,
  latestSessionIn,
  listSessions,
  recapOf,
  recentSessions,
  sessionSummary,
} from "../../../core/usecases/sessions.ts";
import { ensureProfileHome, profilePaths } from "../../../adapters/home/mod.ts";
import { openProfileContext } from "../../../adapters/runtime/profile_context.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { exists } from "../../adapters/skills/_write.ts";

async function profileAt(root: string) {
  const paths = profilePaths(root, "default");
  await ensureProfileHome(paths);
  return { paths, profile: openProfileContext(paths, {}) };
}

interface Seeded {
  older: string;
  newer: string;
  unanswered: string;
  elsewhere: string;
  cron: string;
}

/** Sessions in /work/app (two answered, one not, one cron run) and one in /work/other. */
function seed(stateDb: string): Seeded {
  const store = openStateStore(stateDb);
  try {
    const session = (source: string, cwd: string, startedAt: number, title?: string) =>
      store.createSession({ source, cwd, startedAt, title }).id;
    const older = session("cli", "/work/app", 1_000, "Fix the parser");
    store.appendMessages(older, [
      { role: "user", content: "The YAML parser\nchokes on tabs", timestamp: 1_100 },
      { role: "assistant", content: "Tabs are not allowed.", timestamp: 1_200 },
      { role: "user", content: "So what now?", timestamp: 9_000 },
      { role: "assistant", content: "Use spaces.", timestamp: 9_500 },
    ]);
    const newer = session("dashboard", "/work/app", 2_000);
    store.appendMessages(newer, [
      { role: "user", content: `\n  ${"long words ".repeat(20)}\nsecond line`, timestamp: 2_100 },
      { role: "assistant", content: null, toolCalls: [{ id: "c1", name: "terminal" }] },
      { role: "tool", content: "{}", toolCallId: "c1", toolName: "terminal" },
      { role: "assistant", content: "Done.", timestamp: 2_300 },
    ]);
    const unanswered = session("cli", "/work/app", 3_000);
    store.appendMessages(unanswered, [{ role: "user", content: "hello?", timestamp: 3_100 }]);
    const cron = session("cron", "/work/app", 4_000);
    store.appendMessages(cron, [
      { role: "user", content: "nightly report" },
      { role: "assistant", content: "report" },
    ]);
    const elsewhere = session("cli", "/work/other", 5_000);
    store.appendMessages(elsewhere, [
      { role: "user", content: "x" },
      { role: "assistant", content: "y" },
    ]);
    return { older, newer, unanswered, elsewhere, cron };
  } finally {
    store.close();
  }
}

Deno.test("without a database there is no session to continue, none to pick, and nothing is created", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  assert.equal(await latestSessionIn(profile, "/work/app"), null);
  assert.deepEqual(await recentSessions(profile, { limit: 10 }), []);
  await assert.rejects(recapOf(profile, "ses_none"), SessionNotFoundError);
  assert.equal(await exists(paths.stateDb), false);
});

Deno.test("the session to continue is the newest answered one a person started in exactly that directory", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const s = seed(paths.stateDb);
  assert.equal(await latestSessionIn(profile, "/work/app"), s.newer);
  assert.equal(await latestSessionIn(profile, "/work/app", { source: "cli" }), s.older);
  assert.equal(await latestSessionIn(profile, "/work/app", { all: true }), s.unanswered);
  assert.equal(await latestSessionIn(profile, "/work/app", { source: "cron" }), s.cron);
  assert.equal(await latestSessionIn(profile, "/work/other"), s.elsewhere);
  assert.equal(await latestSessionIn(profile, "/work"), null);
  assert.equal(await latestSessionIn(profile, "/work/app/"), null, "the directory is exact");
});

Deno.test("the picker offers recent sessions with their title, activity, first line and directory", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const s = seed(paths.stateDb);
  const recent = await recentSessions(profile, { limit: 10 });
  assert.deepEqual(recent.map((entry) => entry.id), [s.elsewhere, s.newer, s.older]);
  assert.deepEqual(recent[2], {
    id: s.older,
    title: "Fix the parser",
    source: "cli",
    started_at: 1_000,
    last_active: 9_500,
    message_count: 4,
    first_line: "The YAML parser",
    cwd: "/work/app",
    answered: true,
  });
  const long = recent[1].first_line!;
  assert.equal(long.length, 80);
  assert.ok(long.startsWith("long words long words"));
  assert.ok(long.endsWith("…"));

  const here = await recentSessions(profile, { limit: 10, cwd: "/work/app", all: true });
  assert.deepEqual(here.map((entry) => entry.id), [s.unanswered, s.newer, s.older]);
  assert.equal(here[0].answered, false);
  assert.deepEqual(
    (await recentSessions(profile, { limit: 1, cwd: "/work/app" })).map((entry) => entry.id),
    [s.newer],
  );
});

Deno.test("a recap reads the stored session's last exchanges", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const s = seed(paths.stateDb);
  assert.deepEqual(await recapOf(profile, s.older, { exchanges: 1 }), [
    { role: "user", text: "So what now?" },
    { role: "assistant", text: "Use spaces." },
  ]);
  assert.deepEqual((await recapOf(profile, s.newer)).map((entry) => entry.role), [
    "user",
    "assistant",
  ]);
  await assert.rejects(recapOf(profile, "ses_none"), SessionNotFoundError);
});

Deno.test("a session the model never answered is listed only when all are asked for", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const s = seed(paths.stateDb);
  const shown = await listSessions(profile, { limit: 10 });
  assert.deepEqual(shown.map((view) => view.id), [s.elsewhere, s.cron, s.newer, s.older]);
  assert.ok(shown.every((view) => view.answered));
  const all = await listSessions(profile, { limit: 10, all: true });
  assert.deepEqual(all.map((view) => view.id), [
    s.elsewhere,
    s.cron,
    s.unanswered,
    s.newer,
    s.older,
  ]);
  const lonely = all.find((view) => view.id === s.unanswered)!;
  assert.equal(lonely.answered, false);
  assert.equal(lonely.last_active, 3_100);
  assert.equal(lonely.cwd, "/work/app");
  assert.deepEqual(await sessionSummary(profile, s.unanswered), lonely);
});

Deno.test("a delete asks once the session is known, and keeps it when the answer is no", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const s = seed(paths.stateDb);
  const asked: SessionView[] = [];
  await assert.rejects(
    deleteSession(profile, "ses_none", { confirm: () => Promise.resolve(true) }),
    SessionNotFoundError,
  );
  await assert.rejects(
    deleteSession(profile, s.older, {
      confirm: (session) => {
        asked.push(session);
        return Promise.resolve(false);
      },
    }),
    (error: unknown) =>
      error instanceof SessionDeleteRefusedError && error.code === "session_delete_cancelled" &&
      error.kind === "state",
  );
  assert.deepEqual(asked.map((session) => [session.id, session.title]), [
    [s.older, "Fix the parser"],
  ]);
  assert.equal((await sessionSummary(profile, s.older)).id, s.older);
  const deleted = await deleteSession(profile, s.older, { confirm: () => Promise.resolve(true) });
  assert.equal(deleted.deleted, s.older);
  await assert.rejects(sessionSummary(profile, s.older), SessionNotFoundError);
});
