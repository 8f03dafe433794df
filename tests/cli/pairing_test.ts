import assert from "node:assert/strict";
import { join } from "node:path";
import { captureOutput, run } from "../../cli/app.ts";
import { openPairingStore, PAIRING_FILE } from "../../adapters/channels/pairing_store.ts";
import { tempDir } from "../_helpers.ts";

async function herald(home: string, ...argv: string[]) {
  const io = captureOutput();
  const code = await run(argv, { io, env: { HERALD_HOME: home, HOME: "/nonexistent" } });
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** What the gateway does for a stranger: a pending request in the profile's store. */
async function stranger(profileHome: string, userId: string, userName?: string) {
  const request = await openPairingStore(profileHome).request(
    { platform: "telegram", userId, chatId: userId, ...(userName ? { userName } : {}) },
    Date.now(),
  );
  assert.ok(request);
  return request;
}

Deno.test("pairing list shows pending codes and paired people, as JSON and as text", async () => {
  await using home = await tempDir();
  const empty = await herald(home.path, "pairing", "list");
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /No pending pairing requests\nNo paired people\n/);

  const request = await stranger(home.path, "111", "Ann");
  const json = await herald(home.path, "pairing", "list", "--json");
  assert.equal(json.code, 0, json.stderr);
  const view = JSON.parse(json.stdout);
  assert.equal(view.profile, "default");
  assert.deepEqual(view.approved, []);
  assert.deepEqual(view.pending, [{
    platform: "telegram",
    user_id: "111",
    user_name: "Ann",
    chat_id: "111",
    code: request.code,
    requested_at: request.requestedAt,
    expires_at: request.expiresAt,
  }]);
  const text = await herald(home.path, "pairing", "list");
  assert.match(text.stdout, new RegExp(`${request.code} {2}telegram:111 \\(Ann\\)`));
  assert.match(text.stdout, /expires in \d+ min/);
});

Deno.test("pairing approve takes the code in any case and the person is paired", async () => {
  await using home = await tempDir();
  const request = await stranger(home.path, "111", "Ann");
  const approved = await herald(
    home.path,
    "pairing",
    "approve",
    request.code.toLowerCase(),
    "--json",
  );
  assert.equal(approved.code, 0, approved.stderr);
  const user = JSON.parse(approved.stdout);
  assert.deepEqual(
    { platform: user.platform, user_id: user.user_id, user_name: user.user_name },
    { platform: "telegram", user_id: "111", user_name: "Ann" },
  );
  assert.equal(typeof user.approved_at, "number");
  assert.equal(await openPairingStore(home.path).isPaired("telegram", "111"), true);

  const listed = JSON.parse((await herald(home.path, "pairing", "list", "--json")).stdout);
  assert.deepEqual(listed.pending, []);
  assert.deepEqual(listed.approved.map((u: { user_id: string }) => u.user_id), ["111"]);
  const text = await herald(home.path, "pairing", "list");
  assert.match(text.stdout, /Paired:\n {2}telegram:111 \(Ann\) {2}since /);
});

Deno.test("pairing approve says so in text", async () => {
  await using home = await tempDir();
  const request = await stranger(home.path, "111");
  const approved = await herald(home.path, "pairing", "approve", request.code);
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal(approved.stdout, "Approved telegram:111: they can talk to the bot now\n");
});

Deno.test("an unknown code exits 2 and says how many requests are pending", async () => {
  await using home = await tempDir();
  await stranger(home.path, "111");
  await stranger(home.path, "222");
  const result = await herald(home.path, "pairing", "approve", "ABCD2345");
  assert.equal(result.code, 2);
  assert.match(result.stderr, /No pending pairing request has the code "ABCD2345"/);
  assert.match(result.stderr, /2 pairing requests are pending/);

  const json = await herald(home.path, "pairing", "approve", "ABCD2345", "--json");
  assert.equal(json.code, 2);
  assert.equal(JSON.parse(json.stdout).error.code, "pairing_code_unknown");
});

Deno.test("text that cannot be a code exits 2 and says what a code looks like", async () => {
  await using home = await tempDir();
  const result = await herald(home.path, "pairing", "approve", "hello");
  assert.equal(result.code, 2);
  assert.match(result.stderr, /"hello" is not a pairing code: a code is 8 letters and digits/);
  assert.match(result.stderr, /no pairing request is pending/);
});

Deno.test("pairing revoke takes a paired person's access away", async () => {
  await using home = await tempDir();
  const request = await stranger(home.path, "111");
  await openPairingStore(home.path).approve(request.code, Date.now());

  const revoked = await herald(home.path, "pairing", "revoke", "telegram:111", "--json");
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.deepEqual(JSON.parse(revoked.stdout), {
    platform: "telegram",
    user_id: "111",
    revoked: true,
  });
  assert.equal(await openPairingStore(home.path).isPaired("telegram", "111"), false);

  const again = await herald(home.path, "pairing", "revoke", "telegram:111");
  assert.equal(again.code, 2);
  assert.match(again.stderr, /Nobody is paired or waiting as telegram:111/);
});

Deno.test("a revoke target without a platform and an id exits 2", async () => {
  await using home = await tempDir();
  for (const target of ["telegram", "telegram:", ":111"]) {
    const result = await herald(home.path, "pairing", "revoke", target);
    assert.equal(result.code, 2, target);
    assert.match(result.stderr, /give <platform>:<user_id>/);
  }
});

Deno.test("-p works on the named profile's pairing store", async () => {
  await using home = await tempDir();
  const created = await herald(home.path, "profile", "create", "work");
  assert.equal(created.code, 0, created.stderr);
  const request = await stranger(join(home.path, "profiles", "work"), "111");

  const inDefault = await herald(home.path, "pairing", "approve", request.code);
  assert.equal(inDefault.code, 2);
  const list = await herald(home.path, "-p", "work", "pairing", "list");
  assert.match(list.stdout, /approve with `herald pairing approve <code> -p work`/);
  const approved = await herald(home.path, "-p", "work", "pairing", "approve", request.code);
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal(
    await openPairingStore(join(home.path, "profiles", "work")).isPaired("telegram", "111"),
    true,
  );
});

Deno.test("a corrupted pairing.json exits 1 naming the file, and stays as it was", async () => {
  await using home = await tempDir();
  const path = join(home.path, PAIRING_FILE);
  await Deno.writeTextFile(path, "not json");
  const result = await herald(home.path, "pairing", "list");
  assert.equal(result.code, 1);
  assert.match(result.stderr, new RegExp(`${path}: not valid JSON`));
  assert.equal(await Deno.readTextFile(path), "not json");
});
