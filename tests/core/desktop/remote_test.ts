import assert from "node:assert/strict";
import { probeRemoteDashboard, resolveRemoteDashboard } from "../../../core/desktop/remote.ts";

Deno.test("remote attach needs both variables, and neither means not configured", () => {
  assert.deepEqual(resolveRemoteDashboard({}), { ok: true, configured: false });
  const onlyUrl = resolveRemoteDashboard({ HERALD_DESKTOP_REMOTE_URL: "http://box:9219" });
  assert.ok(
    !onlyUrl.ok && onlyUrl.code === "remote_incomplete" &&
      /HERALD_DESKTOP_REMOTE_TOKEN/.test(onlyUrl.message),
  );
  const onlyToken = resolveRemoteDashboard({ HERALD_DESKTOP_REMOTE_TOKEN: "t" });
  assert.ok(!onlyToken.ok && /HERALD_DESKTOP_REMOTE_URL is not set/.test(onlyToken.message));
});

Deno.test("remote attach accepts http and https only, and the WebSocket scheme follows", () => {
  const plain = resolveRemoteDashboard({
    HERALD_DESKTOP_REMOTE_URL: "http://box:9219/",
    HERALD_DESKTOP_REMOTE_TOKEN: "t",
  });
  assert.ok(plain.ok && plain.configured);
  assert.equal(plain.remote.webSocketUrl, "ws://box:9219/api/ws");
  assert.equal(plain.remote.statusUrl, "http://box:9219/api/status");
  const secure = resolveRemoteDashboard({
    HERALD_DESKTOP_REMOTE_URL: "https://herald.example.com/base",
    HERALD_DESKTOP_REMOTE_TOKEN: "t",
  });
  assert.ok(secure.ok && secure.configured);
  assert.equal(secure.remote.webSocketUrl, "wss://herald.example.com/base/api/ws");
  for (
    const bad of [
      "ftp://box",
      "ws://box:9219",
      "not a url",
      "http://user:pw@box",
      "http://box/?token=x",
    ]
  ) {
    const result = resolveRemoteDashboard({
      HERALD_DESKTOP_REMOTE_URL: bad,
      HERALD_DESKTOP_REMOTE_TOKEN: "t",
    });
    assert.ok(!result.ok && result.code === "remote_bad_url", bad);
  }
});

Deno.test("the liveness probe reads /api/status with the token and reports why it failed", async () => {
  const seen: string[] = [];
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seen.push(`${new URL(request.url).pathname} ${request.headers.get("x-herald-session-token")}`);
    return new URL(request.url).pathname === "/api/status"
      ? Response.json({ version: "9.9.9" })
      : new Response("no", { status: 404 });
  });
  const resolved = resolveRemoteDashboard({
    HERALD_DESKTOP_REMOTE_URL: `http://127.0.0.1:${server.addr.port}`,
    HERALD_DESKTOP_REMOTE_TOKEN: "tok",
  });
  assert.ok(resolved.ok && resolved.configured);
  assert.deepEqual(await probeRemoteDashboard(resolved.remote, fetch), {
    alive: true,
    version: "9.9.9",
  });
  assert.deepEqual(seen, ["/api/status tok"]);
  const wrong = { ...resolved.remote, statusUrl: `http://127.0.0.1:${server.addr.port}/nope` };
  const failed = await probeRemoteDashboard(wrong, fetch);
  assert.ok(!failed.alive && /HTTP 404/.test(failed.reason));
});
