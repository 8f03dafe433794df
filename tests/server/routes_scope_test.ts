/**
 * Profile scoping of every management route: an unknown profile is a 404
 * (never a 200 or 500) whether it comes in the query or the body, and on
 * writes the body's profile wins over the query's.
 */

import assert from "node:assert/strict";
import { tempDir } from "../_helpers.ts";
import { readOr, routesApp } from "./_routes.ts";

/** Every scoped route, with a body that would be valid for a write. */
const SCOPED: { method: string; path: string; body?: Record<string, unknown> }[] = [
  { method: "GET", path: "/api/config" },
  { method: "PUT", path: "/api/config", body: { set: { "agent.max_turns": 7 } } },
  { method: "GET", path: "/api/config/raw" },
  { method: "PUT", path: "/api/config/raw", body: { text: "agent:\n  max_turns: 8\n" } },
  { method: "GET", path: "/api/env" },
  { method: "PUT", path: "/api/env", body: { key: "SOME_TOKEN", value: "v" } },
  { method: "DELETE", path: "/api/env", body: { key: "SOME_TOKEN" } },
  { method: "POST", path: "/api/env/reveal", body: { key: "SOME_TOKEN" } },
  { method: "GET", path: "/api/model/info" },
  { method: "GET", path: "/api/model/options" },
  { method: "GET", path: "/api/model/auxiliary" },
  { method: "POST", path: "/api/model/set", body: { model: "m-1" } },
  { method: "GET", path: "/api/mcp/servers" },
  { method: "POST", path: "/api/mcp/servers", body: { name: "s", command: "true" } },
  { method: "DELETE", path: "/api/mcp/servers/s", body: {} },
  { method: "PUT", path: "/api/mcp/servers/s/enabled", body: { enabled: false } },
  { method: "POST", path: "/api/mcp/servers/s/test", body: {} },
  { method: "GET", path: "/api/mcp/catalog" },
  { method: "POST", path: "/api/mcp/catalog/install", body: { name: "everything" } },
  { method: "GET", path: "/api/messaging/platforms" },
  { method: "PUT", path: "/api/messaging/platforms/telegram", body: { enabled: true } },
  { method: "POST", path: "/api/messaging/platforms/telegram/test", body: {} },
  { method: "GET", path: "/api/pairing" },
  { method: "POST", path: "/api/pairing/approve", body: { code: "ABCD2345" } },
  { method: "POST", path: "/api/pairing/revoke", body: { platform: "telegram", user_id: "1" } },
  { method: "GET", path: "/api/providers/oauth" },
  { method: "POST", path: "/api/providers/oauth/openrouter/start", body: {} },
  {
    method: "POST",
    path: "/api/providers/oauth/openrouter/complete",
    body: { state: "s", code: "c" },
  },
  { method: "GET", path: "/api/sessions" },
  { method: "GET", path: "/api/sessions/search?q=hello" },
  { method: "GET", path: "/api/sessions/ses_x" },
  { method: "GET", path: "/api/sessions/ses_x/messages" },
  { method: "GET", path: "/api/sessions/ses_x/export" },
  { method: "DELETE", path: "/api/sessions/ses_x", body: {} },
  { method: "GET", path: "/api/skills" },
  { method: "GET", path: "/api/skills/s" },
  { method: "GET", path: "/api/bundles" },
  { method: "GET", path: "/api/bundles/b" },
  { method: "POST", path: "/api/bundles", body: { name: "b", skills: ["x"] } },
  { method: "PUT", path: "/api/bundles/b", body: { name: "b", skills: ["x"] } },
  { method: "DELETE", path: "/api/bundles/b", body: {} },
];

function withQuery(path: string, profile: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}profile=${profile}`;
}

Deno.test("every scoped route answers 404 for an unknown profile in the query, and writes nothing", async () => {
  await using home = await tempDir();
  const { json, main, work } = await routesApp(home.path);
  const before = [await readOr(main.config), await readOr(main.env), await readOr(work.config)];
  for (const route of SCOPED) {
    for (const ghost of ["ghost", "../etc", "Not A Name"]) {
      const path = withQuery(route.path, encodeURIComponent(ghost));
      const response = await json(route.method, path, route.body);
      const label = `${route.method} ${path}`;
      assert.equal(response.status, 404, label);
      assert.equal(response.body.error?.code, "profile_not_found", label);
    }
  }
  const after = [await readOr(main.config), await readOr(main.env), await readOr(work.config)];
  assert.deepEqual(after, before);
});

Deno.test("every scoped write answers 404 for an unknown profile in the body, even with a good query", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  for (const route of SCOPED.filter((r) => r.method !== "GET")) {
    const path = withQuery(route.path, "work");
    const response = await json(route.method, path, { ...route.body, profile: "ghost" });
    assert.equal(response.status, 404, `${route.method} ${route.path}`);
    assert.equal(response.body.error?.code, "profile_not_found", `${route.method} ${route.path}`);
  }
});

Deno.test("on writes the body's profile wins over the query's", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  for (const route of SCOPED.filter((r) => r.method !== "GET")) {
    const path = withQuery(route.path, "ghost");
    const response = await json(route.method, path, { ...route.body, profile: "work" });
    assert.notEqual(
      response.body.error?.code,
      "profile_not_found",
      `${route.method} ${route.path}`,
    );
    assert.ok(response.status < 500, `${route.method} ${route.path}: ${response.status}`);
  }
  const written = await json("PUT", "/api/env?profile=default", {
    key: "WHERE",
    value: "work",
    profile: "work",
  });
  assert.equal(written.body.profile, "work");
  const inWork = await json("POST", "/api/env/reveal?profile=work", { key: "WHERE" });
  assert.equal(inWork.body.value, "work");
  const inDefault = await json("POST", "/api/env/reveal", { key: "WHERE" });
  assert.equal(inDefault.status, 404);
});

Deno.test("without a profile the default home is used, and a pinned dashboard serves only its profile", async () => {
  await using home = await tempDir();
  const { json } = await routesApp(home.path);
  const unscoped = await json("GET", "/api/config");
  assert.equal(unscoped.body.profile, "default");
  const scoped = await json("GET", "/api/config?profile=work");
  assert.equal(scoped.body.profile, "work");

  await using pinnedHome = await tempDir();
  const app = await routesApp(pinnedHome.path, { pinnedProfile: "work" });
  assert.equal((await app.json("GET", "/api/env")).body.profile, "work");
  const other = await app.json("GET", "/api/env?profile=default");
  assert.equal(other.status, 404);
});
