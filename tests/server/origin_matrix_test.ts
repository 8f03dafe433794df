/**
 * The WebSocket origin guard by bind (SEED 5.5), over real sockets: on a
 * loopback bind non-web origins are trusted and only cross-site web origins
 * are refused; on a public bind only the dashboard's own origins pass. The
 * token is still required. The public-bind apps believe they are bound to a
 * public address while the socket itself stays on 127.0.0.1.
 */

import assert from "node:assert/strict";
import { tempDir } from "../_helpers.ts";
import { TEST_TOKEN } from "./_app.ts";
import { closeSocket, openSocket, RpcClient, startLiveServer, upgradeStatus } from "./_live.ts";

const WS = `/api/ws?token=${TEST_TOKEN}`;

async function statusFor(port: number, origin: string | undefined, host?: string) {
  const headers: Record<string, string> = {};
  if (origin !== undefined) headers.Origin = origin;
  if (host !== undefined) headers.Host = host;
  return await upgradeStatus(port, WS, headers);
}

Deno.test("loopback bind: non-web origins and the dashboard's own origin are accepted, cross-site is 403", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  const port = server.port;
  const expected: [string | undefined, number][] = [
    [undefined, 101],
    ["null", 101],
    ["file://", 101],
    ["app://herald", 101],
    [`http://127.0.0.1:${port}`, 101],
    [`http://localhost:${port}`, 101],
    ["https://evil.example", 403],
    ["http://evil.example", 403],
    [`http://127.0.0.1:${port + 1}`, 403],
    [`https://127.0.0.1:${port}`, 403],
  ];
  const seen: [string | undefined, number][] = [];
  for (const [origin] of expected) seen.push([origin, await statusFor(port, origin)]);
  assert.deepEqual(seen, expected);
});

Deno.test("loopback bind: the token is checked at the upgrade whatever the origin", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  for (const origin of [undefined, "app://herald", `http://127.0.0.1:${server.port}`]) {
    const headers: Record<string, string> = origin ? { Origin: origin } : {};
    assert.equal(await upgradeStatus(server.port, "/api/ws", headers), 401, `${origin}`);
    assert.equal(await upgradeStatus(server.port, "/api/ws?token=nope", headers), 401, `${origin}`);
  }
  assert.equal(
    await upgradeStatus(server.port, "/api/ws", { Origin: "https://evil.example" }),
    403,
    "a cross-site origin is refused before the token is looked at",
  );
});

for (const bindHost of ["0.0.0.0", "192.0.2.10"]) {
  Deno.test(`public bind ${bindHost}: non-web and cross-site origins are 403, the dashboard's own origin is accepted`, async () => {
    await using home = await tempDir();
    await using server = startLiveServer(home.path, { bindHost });
    const port = server.port;
    const own = bindHost === "0.0.0.0" ? `http://127.0.0.1:${port}` : `http://${bindHost}:${port}`;
    const host = `${bindHost === "0.0.0.0" ? "127.0.0.1" : bindHost}:${port}`;
    const expected: [string | undefined, number][] = [
      [undefined, 403],
      ["null", 403],
      ["file://", 403],
      ["app://herald", 403],
      ["https://evil.example", 403],
      [`http://${bindHost}:${port + 1}`, 403],
      [own, 101],
    ];
    const seen: [string | undefined, number][] = [];
    for (const [origin] of expected) seen.push([origin, await statusFor(port, origin, host)]);
    assert.deepEqual(seen, expected);
    assert.equal(
      await upgradeStatus(server.port, "/api/ws", { Origin: own, Host: host }),
      401,
      "the own origin still needs the token",
    );
  });
}

Deno.test("the pty endpoint has the same guard: cross-site 403 and no token 401 before anything starts", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  assert.equal(
    await upgradeStatus(server.port, `/api/pty?token=${TEST_TOKEN}`, {
      Origin: "https://evil.example",
    }),
    403,
  );
  assert.equal(await upgradeStatus(server.port, "/api/pty", { Origin: "app://herald" }), 401);
});

Deno.test("a real WebSocket client with an app-scheme origin talks JSON-RPC; a cross-site one is refused", async () => {
  await using home = await tempDir();
  await using server = startLiveServer(home.path);
  await using client = await RpcClient.connect(server.wsUrl("/api/ws"), {
    Origin: "app://herald",
  });
  const check = await client.call<{ ready: boolean }>("setup.runtime_check");
  assert.equal(check.ready, false);
  await assert.rejects(
    openSocket(server.wsUrl("/api/ws"), { Origin: "https://evil.example" }),
    /handshake .* failed/,
  );
  const own = await openSocket(server.wsUrl("/api/ws"), {
    Origin: `http://127.0.0.1:${server.port}`,
  });
  await closeSocket(own);
});
