/**
 * `/api/pairing`: listing pending pairing requests and paired people,
 * approving a code and revoking a person, over the profile's real
 * `pairing.json` (requests written through the pairing store as the
 * gateway writes them). Bad input is a 400, an unknown code or person a
 * 404, and nothing stored is lost on either.
 */

import assert from "node:assert/strict";
import { openPairingStore } from "../../adapters/channels/pairing_store.ts";
import { tempDir } from "../_helpers.ts";
import { readOr, routesApp } from "./_routes.ts";

type Json = Record<string, unknown>;

/** The moment every test's clock shows. */
const NOW = 1_700_000_000_000;

/**
 * A test app whose clock shows {@link NOW} until a test moves `clock.now`,
 * with pending requests from Ann (telegram) and Bo (line).
 */
async function appWithRequests(root: string) {
  const clock = { now: NOW };
  const routes = await routesApp(root, { now: () => clock.now });
  const store = openPairingStore(routes.main.home);
  const ann = await store.request(
    { platform: "telegram", userId: "111", userName: "Ann", chatId: "111" },
    NOW - 60_000,
  );
  const bo = await store.request({ platform: "line", userId: "U222", chatId: "U222" }, NOW);
  return { ...routes, clock, store, ann: ann!, bo: bo! };
}

Deno.test("GET /api/pairing lists the pending requests and paired people of the profile", async () => {
  await using home = await tempDir();
  const { json, ann, bo } = await appWithRequests(home.path);
  const { status, body } = await json("GET", "/api/pairing");
  assert.equal(status, 200);
  assert.equal(body.profile, "default");
  assert.deepEqual(body.pending, [
    {
      platform: "telegram",
      user_id: "111",
      user_name: "Ann",
      chat_id: "111",
      code: ann.code,
      requested_at: NOW - 60_000,
      expires_at: ann.expiresAt,
    },
    {
      platform: "line",
      user_id: "U222",
      user_name: null,
      chat_id: "U222",
      code: bo.code,
      requested_at: NOW,
      expires_at: bo.expiresAt,
    },
  ]);
  assert.deepEqual(body.approved, []);
  const work = await json("GET", "/api/pairing?profile=work");
  assert.deepEqual([work.body.pending, work.body.approved], [[], []], "another profile's store");
});

Deno.test("approving a code pairs its sender, in any case and with dashes; revoking takes the access away", async () => {
  await using home = await tempDir();
  const { json, store, ann, bo } = await appWithRequests(home.path);
  const typed = `${ann.code.slice(0, 4).toLowerCase()}-${ann.code.slice(4)}`;
  const approved = await json("POST", "/api/pairing/approve", {
    code: typed,
    platform: "telegram",
  });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  assert.deepEqual(approved.body, {
    ok: true,
    platform: "telegram",
    user_id: "111",
    user_name: "Ann",
    approved_at: NOW,
  });
  assert.equal(await store.isPaired("telegram", "111"), true);
  const listed = (await json("GET", "/api/pairing")).body;
  assert.deepEqual((listed.pending as Json[]).map((p) => p.code), [bo.code]);
  assert.deepEqual((listed.approved as Json[]).map((u) => u.user_id), ["111"]);

  const revoked = await json("POST", "/api/pairing/revoke", {
    platform: "telegram",
    user_id: "111",
  });
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  assert.deepEqual(revoked.body, { ok: true, platform: "telegram", user_id: "111", revoked: true });
  assert.equal(await store.isPaired("telegram", "111"), false);
  const after = (await json("GET", "/api/pairing")).body;
  assert.deepEqual(after.approved, []);
  assert.deepEqual((after.pending as Json[]).map((p) => p.code), [bo.code], "Bo still waits");
});

Deno.test("approving works without a platform, and in the profile the body names", async () => {
  await using home = await tempDir();
  const { json, work } = await routesApp(home.path, { now: () => NOW });
  const request = await openPairingStore(work.home).request(
    { platform: "line", userId: "U9", chatId: "U9" },
    NOW,
  );
  const approved = await json("POST", "/api/pairing/approve", {
    code: request!.code,
    profile: "work",
  });
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  assert.equal(approved.body.user_id, "U9");
  assert.equal(await openPairingStore(work.home).isPaired("line", "U9"), true);
});

Deno.test("an unknown or expired code, a code of another platform and an unknown person are 404s that change nothing", async () => {
  await using home = await tempDir();
  const { json, main, ann, clock } = await appWithRequests(home.path);
  const before = await readOr(`${main.home}/pairing.json`);

  const unknown = await json("POST", "/api/pairing/approve", { code: "ZZZZ9999" });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error?.code, "pairing_code_unknown");
  assert.match(unknown.body.error!.message, /No pending pairing request has the code "ZZZZ9999"/);

  const elsewhere = await json("POST", "/api/pairing/approve", {
    code: ann.code,
    platform: "line",
  });
  assert.equal(elsewhere.status, 404);
  assert.match(elsewhere.body.error!.message, /No pending line pairing request .* on telegram/);

  const nobody = await json("POST", "/api/pairing/revoke", {
    platform: "telegram",
    user_id: "999",
  });
  assert.equal(nobody.status, 404);
  assert.equal(nobody.body.error?.code, "pairing_user_unknown");

  assert.equal(await readOr(`${main.home}/pairing.json`), before, "pairing.json is untouched");

  // An hour later Ann's code has expired.
  clock.now = ann.expiresAt + 1;
  const expired = await json("POST", "/api/pairing/approve", { code: ann.code });
  assert.equal(expired.status, 404);
  assert.match(expired.body.error!.message, /codes expire after 1 hour/);
});

Deno.test("bad input is a 400 naming the field, and nothing is written", async () => {
  await using home = await tempDir();
  const { json, main } = await appWithRequests(home.path);
  const before = await readOr(`${main.home}/pairing.json`);
  const cases: [string, unknown, RegExp][] = [
    ["/api/pairing/approve", {}, /"code" \(the pairing code, such as ABCD2345\) is required/],
    ["/api/pairing/approve", { code: 42 }, /"code"/],
    ["/api/pairing/approve", { code: "hello!" }, /"hello!" is not a pairing code/],
    ["/api/pairing/approve", { code: "ABCD2345", platform: "tele gram" }, /"platform" must be/],
    ["/api/pairing/revoke", { user_id: "111" }, /"platform" is required/],
    ["/api/pairing/revoke", { platform: "telegram" }, /"user_id" is required/],
    ["/api/pairing/revoke", { platform: "telegram", user_id: "  " }, /"user_id" must not be empty/],
    ["/api/pairing/revoke", { platform: "tele:gram", user_id: "1" }, /"platform" must be/],
    ["/api/pairing/revoke", "not json", /must be a JSON object/],
  ];
  for (const [path, body, message] of cases) {
    const answer = await json("POST", path, body);
    assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}: ${answer.status}`);
    assert.match(answer.body.error!.message, message, JSON.stringify(body));
  }
  assert.equal(await readOr(`${main.home}/pairing.json`), before);
});

Deno.test("a pairing file Herald did not write is a 422 naming it, and it is left as it was", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.mkdir(main.home, { recursive: true });
  const file = `${main.home}/pairing.json`;
  await Deno.writeTextFile(file, "{ not json");
  const listed = await json("GET", "/api/pairing");
  assert.equal(listed.status, 422);
  assert.equal(listed.body.error?.code, "pairing_file_invalid");
  const approved = await json("POST", "/api/pairing/approve", { code: "ABCD2345" });
  assert.equal(approved.status, 422);
  assert.equal(await Deno.readTextFile(file), "{ not json");
});

Deno.test("the pairing routes answer 401 without the session token", async () => {
  await using home = await tempDir();
  const { request, store, ann } = await appWithRequests(home.path);
  const attempts: [string, string, unknown?][] = [
    ["GET", "/api/pairing"],
    ["POST", "/api/pairing/approve", { code: ann.code }],
    ["POST", "/api/pairing/revoke", { platform: "telegram", user_id: "111" }],
  ];
  for (const [method, path, body] of attempts) {
    const response = await request(path, {
      method,
      auth: false,
      ...(body === undefined ? {} : {
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      }),
    });
    assert.equal(response.status, 401, `${method} ${path}`);
    assert.ok(!(await response.text()).includes(ann.code), "no code leaks to a stranger");
  }
  assert.equal(await store.isPaired("telegram", "111"), false);
  assert.equal((await store.list(ann.requestedAt)).pending.length, 2);
});
