/**
 * The real `herald` as a subprocess: a stranger's pending pairing request
 * (written the way the gateway writes it) is listed, approved and revoked,
 * and a bad code exits 2.
 */

import assert from "node:assert/strict";
import { openPairingStore } from "../../adapters/channels/pairing_store.ts";
import { tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";

Deno.test("herald pairing lists, approves and revokes a stranger's request", async () => {
  await using home = await tempDir();
  const store = openPairingStore(home.path);
  const request = await store.request(
    { platform: "line", userId: "Uabc", userName: "Ann", chatId: "Uabc" },
    Date.now(),
  );
  assert.ok(request);

  const listed = await runHerald({ args: ["pairing", "list", "--json"], home: home.path });
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    JSON.parse(listed.stdout).pending.map((p: { code: string }) => p.code),
    [request.code],
  );

  const bad = await runHerald({ args: ["pairing", "approve", "ZZZZ2222"], home: home.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /1 pairing request is pending/);

  const approved = await runHerald({
    args: ["pairing", "approve", request.code, "--json"],
    home: home.path,
  });
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal(JSON.parse(approved.stdout).user_id, "Uabc");
  assert.equal(await store.isPaired("line", "Uabc"), true);

  const revoked = await runHerald({ args: ["pairing", "revoke", "line:Uabc"], home: home.path });
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(await store.isPaired("line", "Uabc"), false);
});
