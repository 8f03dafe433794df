/**
 * Session search against a real state database.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_SEARCH_RESULT_BYTES, searchSessions } from "../../../core/sessions/search.ts";
import { createSessionSearchTool } from "../../../core/sessions/search_tool.ts";
import type { NewMessage, SessionStore } from "../../../core/sessions/store.ts";
import { ToolRegistry } from "../../../core/tools/registry.ts";
import { ToolError } from "../../../core/tools/types.ts";
import { openStateStore } from "../../../adapters/sqlite/mod.ts";
import { tempDir } from "../../_helpers.ts";

type Search = ReturnType<typeof searchSessions>;

async function withStore(work: (store: SessionStore) => void | Promise<void>) {
  await using dir = await tempDir();
  const store = openStateStore(join(dir.path, "state.db"));
  try {
    await work(store);
  } finally {
    store.close();
  }
}

/** A session of `count` alternating user/assistant messages whose content is `m<i>` plus extras. */
function seed(store: SessionStore, id: string, contents: string[], startedAt = 1): number[] {
  store.createSession({ id, source: "cli", title: `title ${id}`, startedAt });
  const messages: NewMessage[] = contents.map((content, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content,
    timestamp: startedAt + i,
  }));
  return store.appendMessages(id, messages).map((m) => m.id);
}

function discovery(result: Search) {
  assert.equal(result.shape, "discovery");
  return result as Extract<Search, { shape: "discovery" }>;
}

function scroll(result: Search) {
  assert.equal(result.shape, "scroll");
  return result as Extract<Search, { shape: "scroll" }>;
}

const filler = (n: number, tag = "m") =>
  Array.from({ length: n }, (_, i) => `${tag}${i} filler words`);

Deno.test("a discovery hit has 5 messages on each side and 3 bookends at each end", async () => {
  await withStore((store) => {
    const contents = filler(20);
    contents[10] = "the unique zebracorn appears here";
    const ids = seed(store, "ses_a", contents);
    const [result] = discovery(searchSessions(store, { query: "zebracorn" })).results;
    assert.equal(result.match_message_id, ids[10]);
    assert.deepEqual(result.messages.map((m) => m.id), ids.slice(5, 16));
    assert.equal(result.messages_before, 5);
    assert.equal(result.messages_after, 5);
    assert.deepEqual(result.bookend_start.map((m) => m.id), ids.slice(0, 3));
    assert.deepEqual(result.bookend_end.map((m) => m.id), ids.slice(17));
    assert.equal(result.title, "title ses_a");
  });
});

Deno.test("a hit near the edge of a session returns fewer messages on that side", async () => {
  await withStore((store) => {
    const early = seed(store, "ses_early", ["first", "the quokka speaks", "third", "fourth"], 1);
    const late = seed(store, "ses_late", ["a", "b", "c", "d", "e", "f", "the wombat ends it"], 2);
    const [hitEarly] = discovery(searchSessions(store, { query: "quokka" })).results;
    assert.equal(hitEarly.messages_before, 1);
    assert.equal(hitEarly.messages_after, 2);
    assert.deepEqual(hitEarly.messages.map((m) => m.id), early);
    const [hitLate] = discovery(searchSessions(store, { query: "wombat" })).results;
    assert.equal(hitLate.messages_before, 5);
    assert.equal(hitLate.messages_after, 0);
    assert.deepEqual(hitLate.messages.map((m) => m.id), late.slice(1));
  });
});

Deno.test("bookends count only user and assistant messages", async () => {
  await withStore((store) => {
    store.createSession({ id: "ses_t", source: "cli" });
    const ids = store.appendMessages("ses_t", [
      { role: "user", content: "please find the narwhal" },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "c1", name: "terminal", arguments: "{}" }],
      },
      { role: "tool", content: "tool output", toolCallId: "c1", toolName: "terminal" },
      { role: "assistant", content: "found it" },
    ]).map((m) => m.id);
    const [hit] = discovery(searchSessions(store, { query: "narwhal" })).results;
    assert.deepEqual(hit.bookend_start.map((m) => m.id), [ids[0], ids[1], ids[3]]);
    assert.deepEqual(hit.messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
    assert.equal(hit.messages[2].tool_name, "terminal");
  });
});

Deno.test("content comes back byte for byte: unicode, CRLF and trailing whitespace", async () => {
  await withStore((store) => {
    const tricky = "héllo 👋 ünïcode\r\nsecond line with trailing   \r\n\ttabbed  ";
    seed(store, "ses_b", ["before", `${tricky} capybara`, "after  "]);
    const [hit] = discovery(searchSessions(store, { query: "capybara" })).results;
    assert.equal(hit.messages[1].content, `${tricky} capybara`);
    assert.equal(hit.messages[2].content, "after  ");
    const window = scroll(
      searchSessions(store, { session_id: "ses_b", around_message_id: hit.match_message_id }),
    );
    assert.equal(window.messages[1].content, `${tricky} capybara`);
  });
});

Deno.test("scrolling re-anchors on the last id and the boundary message appears in both windows", async () => {
  await withStore((store) => {
    const ids = seed(store, "ses_s", filler(30));
    const first = scroll(
      searchSessions(store, { session_id: "ses_s", around_message_id: ids[10] }),
    );
    assert.deepEqual(first.messages.map((m) => m.id), ids.slice(5, 16));
    const last = first.messages[first.messages.length - 1].id;
    const next = scroll(searchSessions(store, { session_id: "ses_s", around_message_id: last }));
    assert.equal(next.messages[0].id, ids[10]);
    assert.ok(next.messages.some((m) => m.id === last));
    assert.deepEqual(next.messages.map((m) => m.id), ids.slice(10, 21));
    const end = scroll(
      searchSessions(store, { session_id: "ses_s", around_message_id: String(ids[28]) }),
    );
    assert.equal(end.messages_after, 1);
    assert.equal(end.at_end, true);
    const start = scroll(
      searchSessions(store, { session_id: "ses_s", around_message_id: ids[0], window: 3 }),
    );
    assert.equal(start.messages_before, 0);
    assert.equal(start.messages_after, 3);
    assert.equal(start.at_start, true);
  });
});

Deno.test("browse lists recent sessions in chronological order", async () => {
  await withStore((store) => {
    seed(store, "ses_1", ["one"], 100);
    seed(store, "ses_3", ["three"], 300);
    seed(store, "ses_2", ["two"], 200);
    const result = searchSessions(store, {});
    assert.equal(result.shape, "browse");
    if (result.shape !== "browse") return;
    assert.deepEqual(result.sessions.map((s) => s.id), ["ses_1", "ses_2", "ses_3"]);
    assert.deepEqual(result.sessions[0], {
      id: "ses_1",
      title: "title ses_1",
      source: "cli",
      started_at: "1970-01-01T00:00:00.100Z",
      ended_at: null,
      message_count: 1,
    });
    const newest = searchSessions(store, { limit: 2, sort: "newest" });
    assert.ok(newest.shape === "browse");
    assert.deepEqual(newest.sessions.map((s) => s.id), ["ses_3", "ses_2"]);
  });
});

Deno.test("the caller's own live session is never a hit, and each session appears once", async () => {
  await withStore((store) => {
    seed(store, "ses_live", ["we talk about the axolotl", "the axolotl again"]);
    seed(store, "ses_old", ["an axolotl long ago", "and the axolotl twice"]);
    seed(store, "ses_older", ["axolotl", "x"]);
    const result = discovery(
      searchSessions(store, { query: "axolotl", limit: 5 }, { currentSessionId: "ses_live" }),
    );
    assert.deepEqual(result.results.map((r) => r.session_id).sort(), ["ses_old", "ses_older"]);
  });
});

Deno.test("ordinary text that is not FTS5 syntax is searched, never an error", async () => {
  await withStore((store) => {
    seed(store, "ses_q", ["run chat-send now", "use the C++ compiler", "hello world"]);
    for (
      const query of [
        "chat-send",
        '"unbalanced quote chat',
        "hello AND",
        "OR hello",
        "compiler)",
        "NOT hello",
      ]
    ) {
      const result = discovery(searchSessions(store, { query }));
      assert.ok(result.count >= 0, query);
    }
    assert.equal(discovery(searchSessions(store, { query: "chat-send" })).count, 1);
    assert.equal(discovery(searchSessions(store, { query: "hello AND" })).count, 1);
  });
});

Deno.test("role_filter chooses which messages may match", async () => {
  await withStore((store) => {
    store.createSession({ id: "ses_r", source: "cli" });
    store.appendMessages("ses_r", [
      { role: "user", content: "run it" },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "c", name: "terminal", arguments: "{}" }],
      },
      { role: "tool", content: "platypus output", toolCallId: "c", toolName: "terminal" },
    ]);
    assert.equal(discovery(searchSessions(store, { query: "platypus" })).count, 0);
    assert.equal(
      discovery(searchSessions(store, { query: "platypus", role_filter: "tool" })).count,
      1,
    );
  });
});

Deno.test("bad input is a tool error the model can read, never an exception or FTS5 syntax error", async () => {
  await withStore(async (store) => {
    const ids = seed(store, "ses_e", ["alpha", "beta"]);
    seed(store, "ses_f", ["gamma"]);
    const cases: [Record<string, unknown>, string][] = [
      [{ session_id: "ses_nope", around_message_id: 1 }, "unknown_session"],
      [{ session_id: "ses_e", around_message_id: "abc" }, "bad_message_id"],
      [{ session_id: "ses_e", around_message_id: -4 }, "bad_message_id"],
      [{ session_id: "ses_f", around_message_id: ids[0] }, "message_not_in_session"],
      [{ around_message_id: ids[0] }, "missing_session_id"],
      [{ query: "*** ::" }, "unusable_query"],
      [{ query: "x", role_filter: "robot" }, "bad_role_filter"],
    ];
    for (const [args, code] of cases) {
      assert.throws(
        () => searchSessions(store, args),
        (e: unknown) => e instanceof ToolError && e.code === code,
      );
    }
    const tools = new ToolRegistry([createSessionSearchTool(store)]);
    const outcome = await tools.execute(
      {
        id: "c",
        name: "session_search",
        arguments: '{"session_id":"ses_nope","around_message_id":1}',
      },
      {
        sessionId: "ses_e",
        cwd: "/",
        home: "/",
        signal: new AbortController().signal,
        approve: () => Promise.resolve(false),
      },
    );
    assert.equal(outcome.ok, false);
    assert.match(outcome.content, /"code":"unknown_session"/);
  });
});

Deno.test("adaptive discovery gives the top hit in full and the others compact; detail full gives all", async () => {
  await withStore((store) => {
    for (const [i, id] of ["ses_a", "ses_b", "ses_c"].entries()) {
      const contents = filler(12, id);
      contents[6] = `the okapi ${"okapi ".repeat(3 - i)}is here`;
      seed(store, id, contents, 1_000 * (i + 1));
    }
    const adaptive = discovery(searchSessions(store, { query: "okapi" }));
    assert.equal(adaptive.count, 3);
    const [top, ...rest] = adaptive.results;
    assert.equal(top.detail, "full");
    assert.equal(top.messages.length, 11);
    assert.equal(top.bookend_start.length, 3);
    for (const hit of rest) {
      assert.equal(hit.detail, "compact");
      assert.deepEqual(hit.messages.map((m) => m.id), [hit.match_message_id]);
      assert.match(hit.messages[0].content!, /okapi/);
      assert.deepEqual([hit.messages_before, hit.messages_after], [0, 0]);
      assert.deepEqual([hit.bookend_start, hit.bookend_end], [[], []]);
    }
    const full = discovery(searchSessions(store, { query: "okapi", detail: "full" }));
    assert.deepEqual(full.results.map((hit) => hit.detail), ["full", "full", "full"]);
    assert.ok(full.results.every((hit) => hit.messages.length === 11));
  });
});

Deno.test("search results show times as ISO strings", async () => {
  await withStore((store) => {
    const ids = seed(
      store,
      "ses_t",
      ["the ibis flies", "so it does"],
      Date.UTC(2025, 0, 2, 3, 4, 5),
    );
    store.endSession("ses_t", "exit", Date.UTC(2025, 0, 2, 4, 0, 0));
    const [hit] = discovery(searchSessions(store, { query: "ibis" })).results;
    assert.equal(hit.started_at, "2025-01-02T03:04:05.000Z");
    assert.equal(hit.messages[0].timestamp, "2025-01-02T03:04:05.000Z");
    assert.equal(hit.messages[1].timestamp, "2025-01-02T03:04:05.001Z");
    const window = scroll(
      searchSessions(store, { session_id: "ses_t", around_message_id: ids[1] }),
    );
    assert.equal(window.messages[1].timestamp, "2025-01-02T03:04:05.001Z");
    const listed = searchSessions(store, {});
    assert.ok(listed.shape === "browse");
    assert.deepEqual([listed.sessions[0].started_at, listed.sessions[0].ended_at], [
      "2025-01-02T03:04:05.000Z",
      "2025-01-02T04:00:00.000Z",
    ]);
  });
});

Deno.test("internal sessions (subagent, tool, kanban, cron) are hidden from browse and discovery unless asked", async () => {
  await withStore((store) => {
    const sources = ["cli", "subagent", "tool", "kanban", "cron", "telegram"];
    sources.forEach((source, i) => {
      store.createSession({ id: `ses_${source}`, source, startedAt: 100 + i });
      store.appendMessages(`ses_${source}`, [{
        role: "user",
        content: `the heron from ${source}`,
      }]);
    });
    const found = discovery(searchSessions(store, { query: "heron", limit: 10 }));
    assert.deepEqual(found.results.map((hit) => hit.source).sort(), ["cli", "telegram"]);
    const all = discovery(
      searchSessions(store, { query: "heron", limit: 10, include_internal: true }),
    );
    assert.deepEqual(all.results.map((hit) => hit.source).sort(), [...sources].sort());

    const browsed = searchSessions(store, { limit: 50 });
    assert.ok(browsed.shape === "browse");
    assert.deepEqual(browsed.sessions.map((s) => s.source), ["cli", "telegram"]);
    const everything = searchSessions(store, { limit: 50, include_internal: true });
    assert.ok(everything.shape === "browse");
    assert.deepEqual(everything.sessions.map((s) => s.source), sources);

    // An internal session is still read when asked for by id.
    const read = scroll(searchSessions(store, { session_id: "ses_cron" }));
    assert.equal(read.messages[0].content, "the heron from cron");
  });
});

Deno.test("the session_search tool caps its answer at 12 KB and marks what it cut", async () => {
  await withStore(async (store) => {
    const huge = (tag: string) => `${tag} ${"lorem ipsum dolor sit amet ".repeat(800)}`;
    for (const id of ["ses_1", "ses_2", "ses_3", "ses_4", "ses_5"]) {
      const contents = Array.from({ length: 14 }, (_, i) => huge(`${id}-${i}`));
      contents[7] = `the pangolin ${huge(id)}`;
      seed(store, id, contents);
    }
    const tools = new ToolRegistry([createSessionSearchTool(store)]);
    const context = {
      sessionId: "ses_live",
      cwd: "/",
      home: "/",
      signal: new AbortController().signal,
      approve: () => Promise.resolve(false),
    };
    const call = (args: unknown) =>
      tools.execute({ id: "c", name: "session_search", arguments: JSON.stringify(args) }, context);

    const found = await call({ query: "pangolin", limit: 5 });
    assert.equal(found.ok, true, found.content);
    assert.ok(new TextEncoder().encode(found.content).length <= MAX_SEARCH_RESULT_BYTES);
    const result = JSON.parse(found.content);
    assert.equal(result.truncated, true);
    const [top] = result.results;
    assert.equal(top.detail, "full");
    const match = top.messages.find((m: { id: number }) => m.id === top.match_message_id);
    assert.match(match.content, /^the pangolin/);
    assert.equal(match.truncated, true);
    assert.ok(result.count >= 1 && result.count + (result.omitted ?? 0) === 5);

    const window = JSON.parse((await call({ session_id: "ses_2", window: 20 })).content);
    assert.ok(JSON.stringify(window).length <= MAX_SEARCH_RESULT_BYTES);
    assert.equal(window.truncated, true);
    assert.ok(window.messages.some((m: { id: number }) => m.id === window.around_message_id));

    // Uncapped, the same search is the stored text exactly (herald sessions search, the API).
    const [whole] = discovery(searchSessions(store, { query: "pangolin" })).results;
    assert.ok(whole.messages.every((m) => m.truncated === undefined));
    assert.ok(JSON.stringify(whole).length > MAX_SEARCH_RESULT_BYTES);
  });
});

Deno.test("a browse listing that would pass the cap leaves out the oldest sessions", async () => {
  await withStore((store) => {
    for (let i = 0; i < 50; i++) {
      store.createSession({
        id: `ses_${String(i).padStart(3, "0")}`,
        source: "cli",
        title: `${"a long title ".repeat(7)}${i}`,
        startedAt: 1_000 + i,
      });
    }
    const result = searchSessions(store, { limit: 50 }, { maxBytes: 4_096 });
    assert.ok(result.shape === "browse");
    assert.ok(JSON.stringify(result).length <= 4_096);
    assert.equal(result.truncated, true);
    assert.equal(result.count + result.omitted!, 50);
    assert.equal(result.sessions.at(-1)!.id, "ses_049", "the newest session is kept");
  });
});
