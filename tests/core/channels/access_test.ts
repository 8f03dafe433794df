import assert from "node:assert/strict";
import {
  accessPolicy,
  accessWarning,
  decideAccess,
  pairingCodeMessage,
  parseIdList,
  platformEnvPrefix,
} from "../../../core/channels/access.ts";
import {
  newPairingCode,
  normalizePairingCode,
  PAIRING_CODE_ALPHABET,
  PAIRING_CODE_LENGTH,
} from "../../../core/pairing/mod.ts";
import type { ChatKind, InboundMessage } from "../../../core/channels/contract.ts";
import { openPairingStore } from "../../../adapters/channels/pairing_store.ts";
import { tempDir } from "../../_helpers.ts";

function lookup(env: Record<string, string>) {
  return (name: string) => env[name];
}

function message(
  chatKind: ChatKind,
  userId: string,
  chatId = userId,
  platform = "telegram",
): InboundMessage {
  return {
    chat: { platform, chatId },
    chatKind,
    userId,
    text: "hello",
    attachments: [],
    receivedAt: 0,
  };
}

Deno.test("a platform's variables are named after its id upper-cased", () => {
  assert.equal(platformEnvPrefix("telegram"), "TELEGRAM");
  assert.equal(platformEnvPrefix("api_server"), "API_SERVER");
  assert.equal(platformEnvPrefix("my-chat"), "MY_CHAT");
});

Deno.test("id lists split on commas and spaces and drop empty entries", () => {
  assert.deepEqual(parseIdList(" 111, 222,,333  444 ,\n555 "), ["111", "222", "333", "444", "555"]);
  assert.deepEqual(parseIdList(""), []);
  assert.deepEqual(parseIdList(" , ,"), []);
  assert.deepEqual(parseIdList(undefined), []);
});

Deno.test("the policy joins the platform's list, the config list and the gateway-wide list", () => {
  const policy = accessPolicy(
    "telegram",
    lookup({
      TELEGRAM_ALLOWED_USERS: "111, 222",
      GATEWAY_ALLOWED_USERS: "333",
      LINE_ALLOWED_USERS: "U999",
    }),
    { allowed_users: ["444", 555, "  "] },
  );
  assert.deepEqual([...policy.users].sort(), ["111", "222", "333", "444", "555"]);
  assert.equal(policy.allowAll, false);
  assert.equal(policy.groups.size, 0);
  assert.equal(policy.rooms.size, 0);
});

Deno.test("ids keep their case: LINE ids are compared exactly", () => {
  const policy = accessPolicy("line", lookup({ LINE_ALLOWED_USERS: "Uabc123" }), {});
  assert.ok(policy.users.has("Uabc123"));
  assert.ok(!policy.users.has("UABC123"));
});

Deno.test("groups and rooms come from their own variables", () => {
  const policy = accessPolicy(
    "line",
    lookup({ LINE_ALLOWED_GROUPS: "C1,C2", LINE_ALLOWED_ROOMS: "R1" }),
    { allowed_groups: ["C3"] },
  );
  assert.deepEqual([...policy.groups], ["C1", "C2", "C3"]);
  assert.deepEqual([...policy.rooms], ["R1"]);
  assert.equal(policy.users.size, 0);
});

Deno.test("allow-all is switched on by true, 1 or yes in any case, for the platform or every platform", () => {
  for (const value of ["true", "TRUE", " yes ", "1", "Yes"]) {
    const policy = accessPolicy("telegram", lookup({ TELEGRAM_ALLOW_ALL_USERS: value }), {});
    assert.equal(policy.allowAll, true, value);
    assert.equal(policy.allowAllFrom, "TELEGRAM_ALLOW_ALL_USERS");
  }
  for (const value of ["false", "0", "", "no", "on please"]) {
    const policy = accessPolicy("telegram", lookup({ TELEGRAM_ALLOW_ALL_USERS: value }), {});
    assert.equal(policy.allowAll, false, value);
  }
  const gateway = accessPolicy("line", lookup({ GATEWAY_ALLOW_ALL_USERS: "true" }), {});
  assert.equal(gateway.allowAll, true);
  assert.equal(gateway.allowAllFrom, "GATEWAY_ALLOW_ALL_USERS");
  const other = accessPolicy("line", lookup({ TELEGRAM_ALLOW_ALL_USERS: "true" }), {});
  assert.equal(other.allowAll, false);
});

Deno.test("with no allowlist the start-up warning says everyone is denied and how to list or pair", () => {
  const warning = accessWarning(accessPolicy("telegram", lookup({}), {}));
  assert.ok(warning);
  assert.match(warning, /everyone is denied/);
  assert.match(warning, /TELEGRAM_ALLOWED_USERS/);
  assert.match(warning, /platforms\.telegram\.allowed_users/);
  assert.match(warning, /herald pairing approve <code>/);
});

Deno.test("an allowlist of people, groups or rooms needs no warning", () => {
  assert.equal(
    accessWarning(accessPolicy("telegram", lookup({ TELEGRAM_ALLOWED_USERS: "1" }), {})),
    undefined,
  );
  assert.equal(
    accessWarning(accessPolicy("line", lookup({ LINE_ALLOWED_ROOMS: "R1" }), {})),
    undefined,
  );
  assert.equal(
    accessWarning(accessPolicy("line", lookup({}), { allowed_users: ["U1"] })),
    undefined,
  );
});

Deno.test("allow-all warns that anyone who finds the bot can use it, naming the switch", () => {
  const warning = accessWarning(
    accessPolicy(
      "telegram",
      lookup({ GATEWAY_ALLOW_ALL_USERS: "1", TELEGRAM_ALLOWED_USERS: "1" }),
      {},
    ),
  );
  assert.ok(warning);
  assert.match(warning, /GATEWAY_ALLOW_ALL_USERS is on/);
  assert.match(warning, /anyone who finds the bot can use it/);
});

Deno.test("a direct chat is allowed when listed, paired after approval, and asked to pair otherwise", async () => {
  await using home = await tempDir();
  const pairing = openPairingStore(home.path);
  const policy = accessPolicy("telegram", lookup({ TELEGRAM_ALLOWED_USERS: "111" }), {});
  assert.equal(await decideAccess(message("direct", "111"), policy, pairing), "allowed");
  assert.equal(await decideAccess(message("direct", "222"), policy, pairing), "pair");

  const request = await pairing.request(
    { platform: "telegram", userId: "222", chatId: "222" },
    Date.now(),
  );
  assert.ok(request);
  assert.equal(await decideAccess(message("direct", "222"), policy, pairing), "pair");
  await pairing.approve(request.code, Date.now());
  assert.equal(await decideAccess(message("direct", "222"), policy, pairing), "allowed");
  // Pairing is per platform: the same id on another platform is a stranger.
  assert.equal(
    await decideAccess(message("direct", "222", "222", "line"), policy, pairing),
    "pair",
  );
});

Deno.test("a listed group lets any member talk; an unlisted group is denied even for a listed person", async () => {
  await using home = await tempDir();
  const pairing = openPairingStore(home.path);
  const policy = accessPolicy(
    "telegram",
    lookup({ TELEGRAM_ALLOWED_USERS: "111", TELEGRAM_ALLOWED_GROUPS: "-1001" }),
    {},
  );
  assert.equal(await decideAccess(message("group", "999", "-1001"), policy, pairing), "allowed");
  assert.equal(await decideAccess(message("group", "111", "-2002"), policy, pairing), "denied");
  assert.equal(await decideAccess(message("group", "999", "-2002"), policy, pairing), "denied");
});

Deno.test("rooms are allowed by the rooms list, not the groups list", async () => {
  await using home = await tempDir();
  const pairing = openPairingStore(home.path);
  const policy = accessPolicy(
    "line",
    lookup({ LINE_ALLOWED_GROUPS: "C1", LINE_ALLOWED_ROOMS: "R1" }),
    {},
  );
  assert.equal(await decideAccess(message("room", "U1", "R1", "line"), policy, pairing), "allowed");
  assert.equal(await decideAccess(message("room", "U1", "C1", "line"), policy, pairing), "denied");
  assert.equal(await decideAccess(message("group", "U1", "R1", "line"), policy, pairing), "denied");
  assert.equal(
    await decideAccess(message("group", "U1", "C1", "line"), policy, pairing),
    "allowed",
  );
});

Deno.test("allow-all lets every chat in, direct or group", async () => {
  await using home = await tempDir();
  const pairing = openPairingStore(home.path);
  const policy = accessPolicy("line", lookup({ LINE_ALLOW_ALL_USERS: "yes" }), {});
  assert.equal(
    await decideAccess(message("direct", "U1", "U1", "line"), policy, pairing),
    "allowed",
  );
  assert.equal(
    await decideAccess(message("group", "U1", "C9", "line"), policy, pairing),
    "allowed",
  );
  assert.equal(await decideAccess(message("room", "U1", "R9", "line"), policy, pairing), "allowed");
});

Deno.test("the pairing message gives the code and the approve command, with -p for a named profile", () => {
  const plain = pairingCodeMessage("ABCD2345", "default");
  assert.match(plain, /ABCD2345/);
  assert.match(plain, /herald pairing approve ABCD2345$/m);
  assert.doesNotMatch(plain, / -p /);
  const named = pairingCodeMessage("ABCD2345", "work");
  assert.match(named, /herald pairing approve ABCD2345 -p work$/m);
});

Deno.test("pairing codes have 8 unambiguous characters and differ", () => {
  const codes = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const code = newPairingCode();
    assert.equal(code.length, PAIRING_CODE_LENGTH);
    assert.match(code, /^[A-HJKMNP-Z2-9]{8}$/);
    codes.add(code);
  }
  assert.equal(codes.size, 500);
  for (const ambiguous of ["0", "O", "1", "I", "L"]) {
    assert.ok(!PAIRING_CODE_ALPHABET.includes(ambiguous), ambiguous);
  }
});

Deno.test("a typed code is read in any case with spaces or dashes between groups", () => {
  assert.equal(normalizePairingCode("abcd-2345"), "ABCD2345");
  assert.equal(normalizePairingCode(" abcd 2345 "), "ABCD2345");
});
