/**
 * The stored-session use cases over a real profile home and a real state
 * database: list, search, show, page, export and delete, and a profile
 * without a database, which has no sessions and gets none created.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { HeraldError } from "../../../core/errors.ts";
import { SessionNotFoundError } from "../../../core/sessions/mod.ts";
import {
  deleteSession,
  exportSession,
  listSessions,
  searchStoredSessions,
  sessionMessagesPage,
  sessionSummary,
  showSession,
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

function seed(stateDb: string): { parser: string; groceries: string } {
  const store = openStateStore(stateDb);
  try {
    const parser = store.createSession({ source: "cli", title: "Fix the parser", startedAt: 1000 })
      .id;
    store.appendMessages(parser, [
      { role: "user", content: "The YAML parser chokes on tabs" },
      { role: "assistant", content: "Tabs are not allowed for indentation in YAML." },
    ]);
    const groceries = store.createSession({
      source: "telegram",
      title: "Groceries",
      startedAt: 2000,
    }).id;
    store.appendMessages(
      groceries,
      Array.from({ length: 7 }, (_, i) => ({
        role: i % 2 === 0 ? "user" as const : "assistant" as const,
        content: `item ${i}`,
      })),
    );
    return { parser, groceries };
  } finally {
    store.close();
  }
}

Deno.test("a profile without a state database has no sessions, and reading creates none", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  assert.deepEqual(await listSessions(profile, { limit: 10 }), []);
  const found = await searchStoredSessions(profile, { query: "tabs" });
  assert.deepEqual(found, { shape: "discovery", query: "tabs", count: 0, results: [] });
  await assert.rejects(showSession(profile, "ses_none"), SessionNotFoundError);
  await assert.rejects(deleteSession(profile, "ses_none"), SessionNotFoundError);
  assert.equal(await exists(paths.stateDb), false);
});

Deno.test("a search with no words, a bad role or a bad sort is a usage error, database or not", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const check = async (label: string) => {
    for (
      const [request, code] of [
        [{ query: "*** ::" }, "unusable_query"],
        [{ query: "   " }, "bad_request"],
        [{ query: "tabs", role: "robot" }, "bad_role_filter"],
        [{ query: "tabs", sort: "sideways" }, "bad_request"],
      ] as const
    ) {
      await assert.rejects(
        searchStoredSessions(profile, request),
        (error: unknown) =>
          error instanceof HeraldError && error.kind === "usage" && error.code === code,
        `${label}: ${JSON.stringify(request)}`,
      );
    }
  };
  await check("without a database");
  seed(paths.stateDb);
  await check("with a database");
});

Deno.test("sessions are listed newest first, by source and page, and found by their words", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const { parser, groceries } = seed(paths.stateDb);
  const all = await listSessions(profile, { limit: 10 });
  assert.deepEqual(all.map((s) => s.id), [groceries, parser]);
  assert.equal(all[1].preview, "The YAML parser chokes on tabs");
  assert.equal(all[0].started_at, 2000);
  const telegram = await listSessions(profile, { limit: 10, source: "telegram" });
  assert.deepEqual(telegram.map((s) => s.id), [groceries]);
  const second = await listSessions(profile, { limit: 1, offset: 1 });
  assert.deepEqual(second.map((s) => s.id), [parser]);

  const found = await searchStoredSessions(profile, { query: "  tabs ", sort: "newest" });
  assert.equal(found.shape, "discovery");
  if (found.shape !== "discovery") return;
  assert.equal(found.query, "tabs");
  assert.deepEqual(found.results.map((hit) => hit.session_id), [parser]);
});

Deno.test("a session is shown whole, paged oldest first or latest, and exported as herald.session.v1", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const { groceries } = seed(paths.stateDb);
  const summary = await sessionSummary(profile, groceries);
  assert.equal(summary.title, "Groceries");
  assert.equal(summary.message_count, 7);
  const shown = await showSession(profile, groceries);
  assert.deepEqual(shown.session, summary);
  assert.deepEqual(
    shown.messages.map((m) => m.content),
    [0, 1, 2, 3, 4, 5, 6].map((i) => `item ${i}`),
  );

  const page = await sessionMessagesPage(profile, groceries, { limit: 3, offset: 2 });
  assert.equal(page.order, "oldest");
  assert.equal(page.total, 7);
  assert.deepEqual(page.messages.map((m) => m.content), ["item 2", "item 3", "item 4"]);
  const latest = await sessionMessagesPage(profile, groceries, {
    limit: 2,
    offset: 1,
    order: "latest",
  });
  assert.deepEqual(latest.messages.map((m) => m.content), ["item 4", "item 5"]);
  await assert.rejects(
    sessionMessagesPage(profile, groceries, { limit: 2, offset: 0, order: "random" }),
    (error: unknown) => error instanceof HeraldError && error.kind === "usage",
  );
  await assert.rejects(
    sessionMessagesPage(profile, "ses_nope", { limit: 2, offset: 0 }),
    (error: unknown) =>
      error instanceof SessionNotFoundError && error.kind === "not_found" &&
      error.code === "session_not_found",
  );

  const exported = await exportSession(profile, groceries);
  assert.deepEqual(exported, { format: "herald.session.v1", ...shown });
});

Deno.test("deleting a session removes its rows, transcript and request dumps, and only those", async () => {
  await using home = await tempDir();
  const { paths, profile } = await profileAt(home.path);
  const { parser, groceries } = seed(paths.stateDb);
  await Deno.writeTextFile(join(paths.sessions, `${parser}.jsonl`), "{}\n");
  await Deno.writeTextFile(join(paths.requestDumps, `${parser}-1-1.json`), "{}");
  await Deno.writeTextFile(join(paths.requestDumps, `${groceries}-1-1.json`), "{}");

  assert.deepEqual(await deleteSession(profile, parser), { deleted: parser, files: 2 });
  assert.deepEqual((await listSessions(profile, { limit: 10 })).map((s) => s.id), [groceries]);
  assert.equal(await exists(join(paths.sessions, `${parser}.jsonl`)), false);
  assert.deepEqual(
    [...Deno.readDirSync(paths.requestDumps)].map((entry) => entry.name),
    [`${groceries}-1-1.json`],
  );
  const again = await deleteSession(profile, parser).catch((error) => error);
  assert.ok(again instanceof SessionNotFoundError);
  assert.match(again.message, new RegExp(`Session "${parser}" not found in profile "default"`));
});
