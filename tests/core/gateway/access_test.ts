/**
 * Who the gateway runner answers: an unknown person's direct message gets
 * a pairing code (sent through the ledger like any reply) and, once the
 * owner approved it, answers; strangers beyond the pairing store's bound
 * get a short refusal; groups answer only when listed.
 */

import assert from "node:assert/strict";
import { pairingCodeMessage } from "../../../core/channels/access.ts";
import { PAIRING_MAX_PENDING } from "../../../core/pairing/mod.ts";
import { PAIRING_REPLY_COOLDOWN_MS } from "../../../core/gateway/runner.ts";
import { PAIRING_FULL_TEXT } from "../../../core/gateway/mod.ts";
import { openPairingStore } from "../../../adapters/channels/pairing_store.ts";
import { tempDir } from "../../_helpers.ts";
import { settle, until } from "./_fixtures.ts";
import { allowOnly } from "./_access.ts";
import { rig } from "./_rig.ts";

Deno.test("an unknown person's direct message gets a pairing code; after approval the same person gets answers", async () => {
  await using home = await tempDir();
  const pairing = openPairingStore(home.path);
  await using r = await rig({ access: () => allowOnly(["owner"]), pairing });
  await r.channel.say("dm-ann", "hello?", { userId: "ann" });
  await until(() => r.channel.sent.length === 1, "the pairing code");
  const [request] = (await pairing.list(r.clock.now())).pending;
  assert.deepEqual([request.userId, request.chatId, request.userName], [
    "ann",
    "dm-ann",
    "User ann",
  ]);
  assert.deepEqual(r.channel.textsTo("dm-ann"), [pairingCodeMessage(request.code, "work")]);
  assert.equal(r.ledger.rows.length, 1, "the code was owed like any reply");
  assert.equal(r.backend.opened, 0, "no conversation for a stranger");

  // Within the cooldown another message gets nothing (one sender cannot make the bot spam).
  await r.channel.say("dm-ann", "still me", { userId: "ann" });
  await until(() => r.logs.some((line) => line.includes("ignored another message")), "the log");
  assert.equal(r.channel.sent.length, 1);
  // After it, the same code again.
  await r.clock.advance(PAIRING_REPLY_COOLDOWN_MS);
  await r.channel.say("dm-ann", "still me", { userId: "ann" });
  await until(() => r.channel.sent.length === 2, "the same code again");
  assert.equal(r.channel.textsTo("dm-ann")[1], pairingCodeMessage(request.code, "work"));

  await pairing.approve(request.code.toLowerCase(), r.clock.now());
  await r.channel.say("dm-ann", "now?", { userId: "ann" });
  await until(() => r.channel.sent.length === 3, "an answer");
  assert.equal(r.channel.textsTo("dm-ann")[2], "echo: now?");
  assert.ok(r.logs.every((line) => !line.includes("hello?")));
});

Deno.test("when too many people wait to be paired, the next stranger gets a short refusal", async () => {
  await using home = await tempDir();
  await using r = await rig({ access: () => allowOnly([]), pairing: openPairingStore(home.path) });
  for (let i = 0; i < PAIRING_MAX_PENDING; i++) {
    await r.channel.say(`dm-${i}`, "hi", { userId: `stranger${i}` });
  }
  await r.channel.say("dm-late", "hi", { userId: "late" });
  await until(() => r.channel.sent.length === PAIRING_MAX_PENDING + 1, "every reply");
  assert.match(r.channel.textsTo("dm-0")[0], /Your pairing code is/);
  assert.deepEqual(r.channel.textsTo("dm-late"), [PAIRING_FULL_TEXT]);
  assert.ok(r.logs.some((line) => line.includes("pairing refused for user late")));
});

Deno.test("a listed group is answered for any member, and no pairing code is ever posted in a group", async () => {
  await using r = await rig({ access: () => allowOnly(["owner"], ["team"]) });
  await r.channel.say("team", "status?", { chatKind: "group", userId: "someone" });
  await r.channel.say("other", "status?", { chatKind: "group", userId: "owner" });
  await until(() => r.channel.sent.length === 1, "the team's answer");
  await settle();
  assert.deepEqual(r.channel.sent.map((s) => [s.to.chatId, s.texts[0]]), [[
    "team",
    "echo: status?",
  ]]);
  assert.equal((await r.pairing.list(r.clock.now())).pending.length, 0);
});
