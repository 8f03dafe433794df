/**
 * The request guard tried as an attacker would, over a real socket so that
 * paths reach the server exactly as written: every registered /api route,
 * plain and in encoded, double-encoded and dot-segment forms, without the
 * token; WebSocket upgrades with a foreign Origin; Host headers that only
 * look like loopback; bodies over the limit. Routes are read from the app
 * itself, so a route added later is covered without anyone remembering.
 */

import assert from "node:assert/strict";
import { createApp, isApiPath, PUBLIC_API_PATHS } from "../../server/app.ts";
import { MAX_REQUEST_BODY_BYTES } from "../../server/limits.ts";
import { tempDir } from "../_helpers.ts";
import { TEST_TOKEN, testDeps } from "./_app.ts";
import { startLiveServer, upgradeStatus } from "./_live.ts";
import { rawRequest } from "./_raw_http.ts";

const WEBSOCKET_PATHS = new Set(["/api/ws", "/api/pty"]);

/** Every distinct `[method, concrete path]` the app registers under /api, params filled in. */
function registeredApiRoutes(root: string): [string, string][] {
  const app = createApp(testDeps(root));
  const seen = new Map<string, [string, string]>();
  for (const route of app.routes) {
    if (!isApiPath(route.path) || route.path.includes("*")) continue;
    const method = route.method === "ALL" ? "GET" : route.method;
    const path = route.path.replace(/:(\w+)(\{[^}]*\})?/g, "x1");
    seen.set(`${method} ${path}`, [method, path]);
  }
  return [...seen.values()];
}

const hex = (char: string, upper = false) => {
  const code = `%${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
  return upper ? code.toUpperCase() : code;
};

/** The path with the first character of segment `index` percent-encoded. */
function encodeSegmentStart(path: string, index: number, doubled = false): string {
  const segments = path.split("/");
  const segment = segments[index + 1];
  const escape = hex(segment[0]);
  segments[index + 1] = (doubled ? escape.replace("%", "%25") : escape) + segment.slice(1);
  return segments.join("/");
}

/** Forms a router might read as `path`, which must all need the token (401). */
function encodedForms(path: string): string[] {
  const count = path.split("/").length - 1;
  const forms = [path, `/${hex("a", true)}pi${path.slice(4)}`];
  for (let i = 0; i < count; i++) forms.push(encodeSegmentStart(path, i));
  forms.push(path.replace(/[a-z]/g, (char) => hex(char)));
  return forms;
}

/** Ambiguous forms, refused outright (400) whatever they would have routed to. */
function ambiguousForms(path: string): string[] {
  const count = path.split("/").length - 1;
  const forms: string[] = [];
  for (let i = 0; i < count; i++) forms.push(encodeSegmentStart(path, i, true));
  forms.push(
    `/x/..${path}`,
    `/.${path}`,
    `/%2e%2e${path}`,
    `/x/%2E%2E${path}`,
    `/x/%2e.${path}`,
    `/${path}`,
    path.replace("/api/", "/api%2f"),
    path.replace("/api/", "/api%5C"),
    path.replace("/api/", "/api\\"),
    path.replace("/api/", "/api/%00"),
    path.replace("/api/", "/api/%zz"),
    path.replace("/api/", "/api/%ff"),
  );
  return forms;
}

Deno.test("every /api route needs the token in its plain, encoded and double-encoded forms", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  const routes = registeredApiRoutes(home.path);
  assert.ok(routes.length >= 40, `only ${routes.length} routes found`);
  const wrong: string[] = [];
  let checked = 0;
  for (const [method, path] of routes) {
    if (PUBLIC_API_PATHS.has(path) || WEBSOCKET_PATHS.has(path)) continue;
    const body = method === "GET" || method === "HEAD" ? undefined : '{"key":"A","value":"b"}';
    // text/plain needs no CORS preflight: what a hostile page can send.
    const headers = { "Content-Type": "text/plain", Origin: "https://evil.example" };
    for (const target of encodedForms(path)) {
      const response = await rawRequest(server.port, { method, target, headers, body });
      checked++;
      if (response.status !== 401) wrong.push(`${method} ${target} -> ${response.status}`);
    }
    for (const target of ambiguousForms(path)) {
      const response = await rawRequest(server.port, { method, target, headers, body });
      checked++;
      if (response.status !== 400) wrong.push(`${method} ${target} -> ${response.status}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked > 500, `only ${checked} requests checked`);
});

Deno.test("an encoded path reaches the same route with the token: the guard and routing read one path", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  const headers = { "X-Herald-Session-Token": TEST_TOKEN };
  const plain = await rawRequest(server.port, { target: "/api/config", headers });
  const encoded = await rawRequest(server.port, { target: "/%61pi/%63onfig", headers });
  assert.equal(plain.status, 200);
  assert.equal(encoded.status, 200);
  assert.deepEqual(JSON.parse(encoded.body).config, JSON.parse(plain.body).config);
  const refused = await rawRequest(server.port, { target: "/x/../api/config", headers });
  assert.equal(refused.status, 400);
  assert.equal(JSON.parse(refused.body).error.code, "ambiguous_path");
});

Deno.test("WebSocket upgrades in encoded forms are refused for a foreign origin and without the token", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  for (const path of WEBSOCKET_PATHS) {
    for (const target of encodedForms(path)) {
      assert.equal(
        await upgradeStatus(server.port, `${target}?token=${TEST_TOKEN}`, {
          Origin: "https://evil.example",
        }),
        403,
        `${target} with a foreign origin`,
      );
      assert.equal(await upgradeStatus(server.port, target), 401, `${target} without a token`);
    }
    for (const target of ambiguousForms(path)) {
      const status = await upgradeStatus(server.port, `${target}?token=${TEST_TOKEN}`, {
        Origin: "https://evil.example",
      });
      assert.ok(status === 400 || status === 403, `${target} -> ${status}`);
    }
  }
});

Deno.test("the Host check parses name and port exactly", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  const port = server.port;
  const expected: [string, number][] = [
    [`127.0.0.1:${port}`, 200],
    [`localhost:${port}`, 200],
    [`LOCALHOST:${port}`, 200],
    [`[::1]:${port}`, 200],
    ["localhost", 200],
    ["127.0.0.2", 200],
    ["localhost:evil.example", 403],
    ["127.0.0.1:evil.example", 403],
    ["127.0.0.1:99999", 403],
    ["127.0.0.1:", 403],
    ["127.0.0.1.evil.example", 403],
    ["localhost.evil.example:80", 403],
    ["::1", 403],
    ["[::1]evil", 403],
    ["evil.example", 403],
    ["a b", 403],
    ["user@localhost", 403],
  ];
  const seen: [string, number][] = [];
  for (const [host] of expected) {
    const response = await rawRequest(port, { target: "/", headers: { Host: host } });
    seen.push([host, response.status]);
    if (response.status !== 200) {
      assert.ok(!response.body.includes(TEST_TOKEN), `${host} got the token`);
    }
  }
  assert.deepEqual(seen, expected);
});

Deno.test("a malformed Host on a public bind is refused, never a 500 that echoes the token", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path, { bindHost: "0.0.0.0" });
  for (const host of ["a b", "localhost:evil.example", "[zz]:1", "x:99999"]) {
    const response = await rawRequest(server.port, {
      target: `/api/ws?token=${TEST_TOKEN}`,
      headers: {
        Host: host,
        Origin: `http://127.0.0.1:${server.port}`,
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
      },
    });
    assert.equal(response.status, 403, host);
    assert.ok(!response.body.includes(TEST_TOKEN), host);
  }
});

Deno.test("a public bind accepts the page's own origin, whatever address the machine was reached by", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path, { bindHost: "0.0.0.0" });
  const port = server.port;
  for (const path of WEBSOCKET_PATHS) {
    const target = `${path}?token=${TEST_TOKEN}${path === "/api/pty" ? "&cols=80&rows=24" : ""}`;
    for (const address of ["192.168.1.20", "herald-box.lan", "[fd00::5]"]) {
      const host = `${address}:${port}`;
      const own = await upgradeStatus(port, target, { Host: host, Origin: `http://${host}` });
      assert.equal(own, 101, `${path} from http://${host}`);
      const other = await upgradeStatus(port, target, {
        Host: host,
        Origin: `http://evil.example:${port}`,
      });
      assert.equal(other, 403, `${path} from a foreign origin`);
    }
  }
});

Deno.test("request bodies over the limit are refused with 413, by Content-Length or while chunked", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  const headers = { "X-Herald-Session-Token": TEST_TOKEN, "Content-Type": "application/json" };
  const big = JSON.stringify({ key: "BIG", value: "x".repeat(MAX_REQUEST_BODY_BYTES) });
  const declared = await rawRequest(server.port, {
    method: "PUT",
    target: "/api/env",
    headers,
    body: big,
  });
  assert.equal(declared.status, 413);
  assert.equal(JSON.parse(declared.body).error.code, "body_too_large");
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  const chunked = await rawRequest(server.port, {
    method: "PUT",
    target: "/api/env",
    headers,
    body: {
      chunks: [
        new TextEncoder().encode('{"key":"BIG","value":"'),
        ...Array.from({ length: MAX_REQUEST_BODY_BYTES / chunk.length + 2 }, () => chunk),
      ],
    },
  });
  assert.equal(chunked.status, 413);
  assert.equal(JSON.parse(chunked.body).error.code, "body_too_large");
  const env = await rawRequest(server.port, { target: "/api/env", headers });
  assert.deepEqual(JSON.parse(env.body).variables, [], "nothing was stored");
  const small = await rawRequest(server.port, {
    method: "PUT",
    target: "/api/env",
    headers,
    body: JSON.stringify({ key: "SMALL", value: "x".repeat(1000) }),
  });
  assert.equal(small.status, 200);
});
