/**
 * The dashboard app's shell: the public status probe, the token gate on every
 * registered /api route, CORS, the Host guard, 404 JSON and the page.
 */

import assert from "node:assert/strict";
import { PUBLIC_API_PATHS } from "../../server/app.ts";
import { tempDir } from "../_helpers.ts";
import { TEST_TOKEN, testApp } from "./_app.ts";

Deno.test("status is public and says what is running", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  const response = await request("/api/status", { auth: false });
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.equal(body.version, "0.0.0-test");
  assert.equal(body.home, home.path);
  assert.deepEqual(body.profiles, ["default"]);
  assert.equal(typeof body.uptime_seconds, "number");
  assert.equal(body.gateway.running, false);
});

Deno.test("every registered /api route but status answers 401 without the token and not 401 with it", async () => {
  await using home = await tempDir();
  const { app, request } = testApp(home.path);
  const routes = app.routes
    .filter((route) => route.path.startsWith("/api/") && route.path !== "/api/*")
    .filter((route) => route.method !== "ALL" || route.path !== "/api/*");
  const seen = new Set<string>();
  let checked = 0;
  for (const route of routes) {
    const method = route.method === "ALL" ? "GET" : route.method;
    const path = route.path.replace(/:(\w+)(\{[^}]*\})?/g, "x1");
    const key = `${method} ${path}`;
    if (seen.has(key) || path.includes("*")) continue;
    seen.add(key);
    const init = method === "GET" || method === "HEAD"
      ? {}
      : { body: "{}", headers: { "content-type": "application/json" } };
    const anonymous = await request(path, { ...init, method, auth: false });
    await anonymous.body?.cancel();
    if (PUBLIC_API_PATHS.has(path)) {
      assert.notEqual(anonymous.status, 401, key);
      continue;
    }
    assert.equal(anonymous.status, 401, `${key} without the token`);
    const authorised = await request(path, { ...init, method });
    await authorised.body?.cancel();
    assert.notEqual(authorised.status, 401, `${key} with the token`);
    checked++;
  }
  assert.ok(checked >= 1, "no /api routes were checked");
});

Deno.test("the token is accepted as the header or a Bearer authorization, and compared exactly", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  const headerOk = await request("/api/nothing-here", {
    auth: false,
    headers: { "X-Herald-Session-Token": TEST_TOKEN },
  });
  assert.equal(headerOk.status, 404);
  await headerOk.body?.cancel();
  const bearer = await request("/api/nothing-here", {
    auth: false,
    headers: { Authorization: `Bearer ${TEST_TOKEN}` },
  });
  assert.equal(bearer.status, 404);
  await bearer.body?.cancel();
  for (const wrong of [TEST_TOKEN.slice(0, -1), `${TEST_TOKEN}x`, "", TEST_TOKEN.toUpperCase()]) {
    const response = await request("/api/nothing-here", {
      auth: false,
      headers: { "X-Herald-Session-Token": wrong },
    });
    assert.equal(response.status, 401, JSON.stringify(wrong));
    assert.equal((await response.json()).error.code, "unauthorized");
  }
  const query = await request(`/api/nothing-here?token=${TEST_TOKEN}`, { auth: false });
  assert.equal(query.status, 401, "plain HTTP requests may not use ?token=");
  await query.body?.cancel();
});

Deno.test("an unknown /api path is 404 JSON and a deep page path serves the page", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  const missing = await request("/api/does/not/exist");
  assert.equal(missing.status, 404);
  assert.deepEqual((await missing.json()).error.code, "no_such_endpoint");
  const page = await request("/kanban/board/1", { auth: false });
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /text\/html/);
  const html = await page.text();
  assert.match(html, /<title>Herald<\/title>/);
  assert.ok(
    html.includes(`<meta name="herald-token" content="${TEST_TOKEN}">`),
    "a loopback page carries the token",
  );
});

Deno.test("a page served on a public bind does not embed the token", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path, { bind: { host: "192.0.2.10", port: 9219 } });
  const page = await request("/", { auth: false, headers: { host: "192.0.2.10:9219" } });
  assert.ok(!(await page.text()).includes(TEST_TOKEN));
});

Deno.test("CORS allows the null origin and the dashboard's own origins only", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  const cases: [string, string | null][] = [
    ["null", "null"],
    ["http://127.0.0.1:9219", "http://127.0.0.1:9219"],
    ["http://localhost:9219", "http://localhost:9219"],
    ["http://127.0.0.1:5555", null],
    ["https://evil.example", null],
  ];
  for (const [origin, allowed] of cases) {
    const response = await request("/api/status", { auth: false, headers: { Origin: origin } });
    await response.body?.cancel();
    assert.equal(response.headers.get("access-control-allow-origin"), allowed, origin);
  }
});

Deno.test("a loopback dashboard refuses requests for other host names (DNS rebinding)", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  const rebound = await request("/", { auth: false, headers: { host: "attacker.example:9219" } });
  assert.equal(rebound.status, 403);
  await rebound.body?.cancel();
  const local = await request("/", { auth: false, headers: { host: "localhost:9219" } });
  assert.equal(local.status, 200);
  await local.body?.cancel();
});

Deno.test("every API answer is marked no-store and nosniff, errors and the public status included", async () => {
  await using home = await tempDir();
  const { request } = testApp(home.path);
  for (
    const [path, auth] of [["/api/status", false], ["/api/sessions", true], ["/api/nope", true], [
      "/api/config",
      false,
    ]] as const
  ) {
    const response = await request(path, { auth });
    assert.equal(response.headers.get("cache-control"), "no-store", path);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
    await response.body?.cancel();
  }
});
