/**
 * `/api/sessions`, `/api/skills` and `/api/bundles` for a profile: the
 * stored sessions (list, search, show, messages, delete with their files)
 * and the skill catalog and bundle files.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { ProfilePaths } from "../../adapters/home/mod.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import { captureOutput, run } from "../../cli/app.ts";
import { tempDir } from "../_helpers.ts";
import { routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

function seedSessions(paths: ProfilePaths): string[] {
  const store = openStateStore(paths.stateDb);
  try {
    const first = store.createSession({ source: "cli", title: "Fix the parser", startedAt: 1000 });
    store.appendMessages(first.id, [
      { role: "user", content: "The YAML parser chokes on tabs" },
      { role: "assistant", content: "Tabs are not allowed for indentation in YAML." },
    ]);
    const second = store.createSession({ source: "telegram", title: "Groceries", startedAt: 2000 });
    store.appendMessages(
      second.id,
      Array.from({ length: 7 }, (_, i) => ({
        role: i % 2 === 0 ? "user" as const : "assistant" as const,
        content: `message ${i}`,
      })),
    );
    return [first.id, second.id];
  } finally {
    store.close();
  }
}

Deno.test("sessions are listed newest first with a preview, filtered by source and paged", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const empty = await json("GET", "/api/sessions?profile=work");
  assert.deepEqual(empty.body.sessions, [], "no state.db yet is no sessions");
  const [first, second] = seedSessions(work);
  const all = (await json("GET", "/api/sessions?profile=work")).body.sessions as Json[];
  assert.deepEqual(all.map((s) => s.id), [second, first]);
  assert.equal(all[1].preview, "The YAML parser chokes on tabs");
  assert.equal(all[0].message_count, 7);
  const telegram = (await json("GET", "/api/sessions?profile=work&source=telegram")).body;
  assert.deepEqual((telegram.sessions as Json[]).map((s) => s.id), [second]);
  const paged = (await json("GET", "/api/sessions?profile=work&limit=1&offset=1")).body;
  assert.deepEqual((paged.sessions as Json[]).map((s) => s.id), [first]);
  assert.equal((await json("GET", "/api/sessions?limit=0")).status, 400);
  assert.equal((await json("GET", "/api/sessions?offset=x")).status, 400);
  const defaultProfile = (await json("GET", "/api/sessions")).body.sessions;
  assert.deepEqual(defaultProfile, [], "the default profile has its own database");
});

Deno.test("session search finds stored messages with the shared search", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const [first] = seedSessions(work);
  const { status, body } = await json("GET", "/api/sessions/search?profile=work&q=tabs");
  assert.equal(status, 200);
  assert.equal(body.shape, "discovery");
  const results = body.results as Json[];
  assert.equal(results.length, 1);
  assert.equal(results[0].session_id, first);
  assert.ok(
    (results[0].messages as Json[]).some((m) => String(m.content).includes("chokes on tabs")),
  );
  assert.equal((await json("GET", "/api/sessions/search?profile=work")).status, 400);
  const badRole = await json("GET", "/api/sessions/search?profile=work&q=tabs&role=robot");
  assert.equal(badRole.status, 400);
  assert.equal(badRole.body.error?.code, "bad_role_filter");
  const none = await json("GET", "/api/sessions/search?q=tabs");
  assert.equal(none.body.count, 0);
});

Deno.test("a session and its messages are returned page by page, oldest first or latest", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const [, second] = seedSessions(work);
  const one = await json("GET", `/api/sessions/${second}?profile=work`);
  assert.equal((one.body.session as Json).title, "Groceries");
  const page = (await json("GET", `/api/sessions/${second}/messages?profile=work&limit=3&offset=2`))
    .body;
  assert.equal(page.total, 7);
  assert.deepEqual((page.messages as Json[]).map((m) => m.content), [
    "message 2",
    "message 3",
    "message 4",
  ]);
  const latest = (await json(
    "GET",
    `/api/sessions/${second}/messages?profile=work&limit=2&order=latest`,
  )).body;
  assert.deepEqual((latest.messages as Json[]).map((m) => m.content), ["message 5", "message 6"]);
  assert.equal((await json("GET", "/api/sessions/ses_nope?profile=work")).status, 404);
  assert.equal((await json("GET", "/api/sessions/ses_nope/messages?profile=work")).status, 404);
  assert.equal((await json("GET", `/api/sessions/${second}`)).status, 404, "other profile");
});

Deno.test("deleting a session removes its rows, transcript and request dumps", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const [first, second] = seedSessions(work);
  await Deno.writeTextFile(join(work.sessions, `${first}.jsonl`), "{}\n");
  await Deno.writeTextFile(join(work.requestDumps, `${first}-1-1.json`), "{}");
  await Deno.writeTextFile(join(work.requestDumps, `${second}-1-1.json`), "{}");
  const { status, body } = await json("DELETE", `/api/sessions/${first}`, { profile: "work" });
  assert.equal(status, 200);
  assert.equal(body.files, 2);
  assert.equal((await json("GET", `/api/sessions/${first}?profile=work`)).status, 404);
  const left = [...Deno.readDirSync(work.requestDumps)].map((e) => e.name);
  assert.deepEqual(left, [`${second}-1-1.json`]);
  assert.equal((await json("DELETE", `/api/sessions/${first}?profile=work`)).status, 404);
});

Deno.test("skills come from the profile's catalog", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const dir = join(work.skills, "dev", "code-review");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    join(dir, "SKILL.md"),
    "---\nname: code-review\ndescription: Review a diff\n---\nLook carefully.\n",
  );
  const { body } = await json("GET", "/api/skills?profile=work");
  assert.deepEqual(body.skills, [{
    name: "code-review",
    slug: "code-review",
    command: "/code-review",
    description: "Review a diff",
    category: "dev",
    version: null,
    platforms: null,
    path: "dev/code-review",
    dir,
    available: true,
    origin: "user",
    note: null,
  }]);
  // The default profile has only the bundled skills it was seeded with on first use.
  const defaults = (await json("GET", "/api/skills")).body.skills as { origin: string }[];
  assert.ok(defaults.length > 0);
  assert.ok(defaults.every((skill) => skill.origin === "bundled"));
});

Deno.test("bundles are created, listed, shown and deleted, with missing skills reported", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const created = await json("POST", "/api/bundles", {
    profile: "work",
    name: "Backend",
    skills: ["code-review", "debugging"],
    description: "Server work",
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const bundle = created.body.bundle as Json;
  assert.equal(bundle.command, "/backend");
  assert.deepEqual(bundle.missing, ["code-review", "debugging"]);
  assert.equal(bundle.file, join(work.skillBundles, "backend.yaml"));

  const again = await json("POST", "/api/bundles", {
    profile: "work",
    name: "backend",
    skills: ["x"],
  });
  assert.equal(again.status, 409);
  const forced = await json("POST", "/api/bundles", {
    profile: "work",
    name: "backend",
    skills: ["x"],
    force: true,
  });
  assert.equal(forced.status, 200);
  assert.equal(forced.body.replaced, true);
  const invalid = await json("POST", "/api/bundles", { profile: "work", name: "x", skills: [] });
  assert.equal(invalid.status, 400);

  const list = (await json("GET", "/api/bundles?profile=work")).body.bundles as Json[];
  assert.deepEqual(list.map((b) => b.slug), ["backend"]);
  const shown = await json("GET", "/api/bundles/Backend?profile=work");
  assert.deepEqual((shown.body.bundle as Json).skills, ["x"]);
  assert.equal((await json("GET", "/api/bundles/backend")).status, 404, "other profile");
  const deleted = await json("DELETE", "/api/bundles/backend?profile=work");
  assert.equal(deleted.status, 200);
  const gone = await json("DELETE", "/api/bundles/backend?profile=work");
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error?.code, "bundle_not_found");
});

Deno.test("a page of messages opened around one message is centred on it and says where it starts", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path);
  const [first, second] = seedSessions(work);
  const all = (await json("GET", `/api/sessions/${second}/messages?profile=work`)).body
    .messages as Json[];
  const target = all[4].id;
  const page = (await json(
    "GET",
    `/api/sessions/${second}/messages?profile=work&limit=3&around=${target}`,
  )).body;
  assert.equal(page.start, 3);
  assert.equal(page.around, target);
  assert.deepEqual((page.messages as Json[]).map((m) => m.content), [
    "message 3",
    "message 4",
    "message 5",
  ]);
  const atEnd = (await json(
    "GET",
    `/api/sessions/${second}/messages?profile=work&limit=4&around=${all[6].id}`,
  )).body;
  assert.equal(atEnd.start, 3, "the page stays inside the session");
  assert.equal((atEnd.messages as Json[]).length, 4);
  const elsewhere = await json(
    "GET",
    `/api/sessions/${first}/messages?profile=work&around=${target}`,
  );
  assert.equal(elsewhere.status, 404);
  assert.equal(elsewhere.body.error?.code, "message_not_in_session");
  const bad = await json("GET", `/api/sessions/${second}/messages?profile=work&around=zero`);
  assert.equal(bad.status, 400);
});

Deno.test("a session is exported as a file holding what `herald sessions export` prints", async () => {
  await using home = await tempDir();
  const { request, work } = await routesApp(home.path);
  const [first] = seedSessions(work);
  const response = await request(`/api/sessions/${first}/export?profile=work`);
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("content-disposition"),
    `attachment; filename="herald-${first}.json"`,
  );
  const text = await response.text();
  const io = captureOutput();
  const code = await run(["-p", "work", "sessions", "export", first], {
    io,
    env: { HERALD_HOME: home.path },
  });
  assert.equal(code, 0, io.stderr);
  assert.equal(text, io.stdout);
  const exported = JSON.parse(text);
  assert.equal(exported.format, "herald.session.v1");
  assert.equal(exported.messages.length, 2);
  const missing = await request("/api/sessions/ses_nope/export?profile=work");
  assert.equal(missing.status, 404);
});
