import assert from "node:assert/strict";
import { join } from "node:path";
import { openPairingStore, PAIRING_FILE } from "../../../adapters/channels/pairing_store.ts";
import { PAIRING_CODE_TTL_MS, PAIRING_MAX_PENDING } from "../../../core/pairing/mod.ts";
import { HeraldError } from "../../../core/errors.ts";
import { tempDir } from "../../_helpers.ts";
import { raceWorkers } from "../../_workers.ts";

const T0 = 1_700_000_000_000;
const WORKER = new URL("./_pairing_worker.ts", import.meta.url).pathname;

function asker(userId: string, platform = "telegram") {
  return { platform, userId, chatId: `chat-${userId}` };
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<HeraldError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof HeraldError, String(error));
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}`);
}

Deno.test("a request gets a code, kept in a 0600 pairing.json in the profile home", async () => {
  await using home = await tempDir();
  const store = openPairingStore(join(home.path, "profiles", "work"));
  const request = await store.request({ ...asker("111"), userName: "Ann" }, T0);
  assert.ok(request);
  assert.match(request.code, /^[A-HJKMNP-Z2-9]{8}$/);
  assert.deepEqual(request, {
    platform: "telegram",
    userId: "111",
    userName: "Ann",
    chatId: "chat-111",
    code: request.code,
    requestedAt: T0,
    expiresAt: T0 + PAIRING_CODE_TTL_MS,
  });
  const path = join(home.path, "profiles", "work", PAIRING_FILE);
  assert.equal(store.path, path);
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  const saved = JSON.parse(await Deno.readTextFile(path));
  assert.equal(saved.version, 1);
  assert.equal(saved.pending[0].code, request.code);
  assert.equal(saved.pending[0].user_name, "Ann");
  assert.deepEqual((await store.list(T0)).pending, [request]);
});

Deno.test("asking again gets the same code until it expires, then a new one", async () => {
  await using home = await tempDir();
  const store = openPairingStore(home.path);
  const first = await store.request(asker("111"), T0);
  const again = await store.request(asker("111"), T0 + 30 * 60_000);
  assert.equal(again?.code, first?.code);
  assert.equal(again?.expiresAt, first?.expiresAt);
  const later = await store.request(asker("111"), T0 + PAIRING_CODE_TTL_MS);
  assert.ok(later);
  assert.notEqual(later.code, first?.code);
  assert.equal(later.requestedAt, T0 + PAIRING_CODE_TTL_MS);
  assert.equal((await store.list(T0 + PAIRING_CODE_TTL_MS)).pending.length, 1);
});

Deno.test("an expired code cannot be approved and is not listed", async () => {
  await using home = await tempDir();
  const store = openPairingStore(home.path);
  const request = await store.request(asker("111"), T0);
  assert.ok(request);
  assert.deepEqual((await store.list(T0 + PAIRING_CODE_TTL_MS)).pending, []);
  const error = await rejectsWith(
    store.approve(request.code, T0 + PAIRING_CODE_TTL_MS),
    "pairing_code_unknown",
  );
  assert.equal(error.kind, "not_found");
  assert.equal(error.details.pending, 0);
  assert.equal(await store.isPaired("telegram", "111"), false);
});

Deno.test("approving a code pairs its sender on that platform, in any case", async () => {
  await using home = await tempDir();
  const store = openPairingStore(home.path);
  const request = await store.request({ ...asker("111"), userName: "Ann" }, T0);
  await store.request(asker("222"), T0 + 1);
  assert.ok(request);
  const typed = `${request.code.slice(0, 4).toLowerCase()}-${request.code.slice(4)}`;
  const user = await store.approve(typed, T0 + 10);
  assert.deepEqual(user, {
    platform: "telegram",
    userId: "111",
    userName: "Ann",
    approvedAt: T0 + 10,
  });
  assert.equal(await store.isPaired("telegram", "111"), true);
  assert.equal(await store.isPaired("line", "111"), false);
  const list = await store.list(T0 + 10);
  assert.deepEqual(list.pending.map((p) => p.userId), ["222"]);
  assert.deepEqual(list.approved, [user]);
  const error = await rejectsWith(store.approve(request.code, T0 + 20), "pairing_code_unknown");
  assert.equal(error.details.pending, 1);
  assert.match(error.message, /1 pairing request is pending/);
});

Deno.test("at most 20 requests wait per platform; a waiting person still gets their code", async () => {
  await using home = await tempDir();
  const store = openPairingStore(home.path);
  const codes: string[] = [];
  for (let i = 0; i < PAIRING_MAX_PENDING; i++) {
    const request = await store.request(asker(`u${i}`), T0 + i);
    assert.ok(request, `request ${i}`);
    codes.push(request.code);
  }
  assert.equal(new Set(codes).size, PAIRING_MAX_PENDING);
  assert.equal(await store.request(asker("stranger"), T0 + 100), null);
  assert.equal((await store.request(asker("u3"), T0 + 100))?.code, codes[3]);
  assert.ok(await store.request(asker("stranger", "line"), T0 + 100), "other platforms have room");
  await store.approve(codes[0], T0 + 200);
  assert.ok(await store.request(asker("stranger"), T0 + 200), "an approval makes room");
  assert.equal(await store.request(asker("another"), T0 + 200), null);
  assert.ok(
    await store.request(asker("another"), T0 + 1 + PAIRING_CODE_TTL_MS),
    "expiry makes room",
  );
});

Deno.test("revoking removes a paired person or a pending request, and says whether there was one", async () => {
  await using home = await tempDir();
  const store = openPairingStore(home.path);
  const paired = await store.request(asker("111"), T0);
  await store.approve(paired!.code, T0);
  await store.request(asker("222"), T0);
  assert.equal(await store.revoke("telegram", "111"), true);
  assert.equal(await store.isPaired("telegram", "111"), false);
  assert.equal(await store.revoke("telegram", "222"), true);
  assert.deepEqual(await store.list(T0), { pending: [], approved: [] });
  assert.equal(await store.revoke("telegram", "333"), false);
});

Deno.test("a store with no file is empty and reading it creates nothing", async () => {
  await using home = await tempDir();
  const store = openPairingStore(join(home.path, "missing"));
  assert.deepEqual(await store.list(T0), { pending: [], approved: [] });
  assert.equal(await store.isPaired("telegram", "1"), false);
  assert.equal(await store.revoke("telegram", "1"), false);
  await assert.rejects(Deno.stat(join(home.path, "missing", PAIRING_FILE)), Deno.errors.NotFound);
});

Deno.test("a corrupted pairing.json is reported with its path and never overwritten", async () => {
  await using home = await tempDir();
  const path = join(home.path, PAIRING_FILE);
  const store = openPairingStore(home.path);
  const broken = '{"version": 1, "pending": [';
  await Deno.writeTextFile(path, broken);
  for (
    const attempt of [
      () => store.request(asker("111"), T0),
      () => store.list(T0),
      () => store.isPaired("telegram", "111"),
      () => store.approve("ABCD2345", T0),
      () => store.revoke("telegram", "111"),
    ]
  ) {
    const error = await rejectsWith(attempt(), "pairing_file_invalid");
    assert.ok(error.message.startsWith(`${path}: not valid JSON`), error.message);
    assert.match(error.message, /move it aside/);
  }
  assert.equal(await Deno.readTextFile(path), broken);
});

Deno.test("a pairing.json entry of the wrong shape is named by its place in the file", async () => {
  await using home = await tempDir();
  const path = join(home.path, PAIRING_FILE);
  const store = openPairingStore(home.path);
  const cases: [unknown, RegExp][] = [
    [[], /expected a JSON object/],
    [{ version: 7, pending: [], approved: [] }, /"version" is 7/],
    [{ version: 1, pending: {} }, /"pending" is not a list/],
    [
      {
        version: 1,
        pending: [{
          platform: "telegram",
          user_id: "1",
          chat_id: "1",
          requested_at: 1,
          expires_at: 2,
        }],
      },
      /pending\[0\]\.code is missing/,
    ],
    [
      { version: 1, approved: [{ platform: "telegram", user_id: "1", approved_at: "yesterday" }] },
      /approved\[0\]\.approved_at is missing or not a number/,
    ],
  ];
  for (const [content, reason] of cases) {
    const text = JSON.stringify(content);
    await Deno.writeTextFile(path, text);
    const error = await rejectsWith(store.request(asker("111"), T0), "pairing_file_invalid");
    assert.match(error.message, reason);
    assert.ok(error.message.includes(path));
    assert.equal(await Deno.readTextFile(path), text);
  }
});

Deno.test("two stores on one file requesting and approving at once lose nothing", async () => {
  await using home = await tempDir();
  const gateway = openPairingStore(home.path);
  const cli = openPairingStore(home.path);
  const requests = await Promise.all(
    Array.from(
      { length: 16 },
      (_, i) =>
        (i % 2 === 0 ? gateway : cli).request(asker(`u${i}`, i < 8 ? "telegram" : "line"), T0 + i),
    ),
  );
  assert.ok(requests.every((r) => r !== null));
  assert.equal(new Set(requests.map((r) => r!.code)).size, 16);
  assert.equal((await gateway.list(T0 + 20)).pending.length, 16);

  await Promise.all(
    requests.map((r, i) => (i % 2 === 0 ? cli : gateway).approve(r!.code, T0 + 30)),
  );
  const list = await cli.list(T0 + 30);
  assert.equal(list.pending.length, 0);
  assert.equal(list.approved.length, 16);
  for (let i = 0; i < 16; i++) {
    assert.ok(await gateway.isPaired(i < 8 ? "telegram" : "line", `u${i}`), `u${i}`);
  }
});

Deno.test("two processes changing one pairing.json at once lose nothing", async () => {
  await using home = await tempDir();
  const platforms = ["alpha", "beta"];
  const perWorker = 40;
  const results = await raceWorkers({
    script: WORKER,
    target: home.path,
    labels: platforms,
    count: perWorker,
    barrier: join(home.path, "barrier"),
  });
  const decoder = new TextDecoder();
  results.forEach((result, i) =>
    assert.equal(result.code, 0, `worker ${platforms[i]}: ${decoder.decode(result.stderr)}`)
  );

  const list = await openPairingStore(home.path).list(Date.now());
  assert.equal(list.pending.length, 0);
  for (const platform of platforms) {
    const ids = list.approved.filter((u) => u.platform === platform).map((u) => u.userId).sort();
    assert.deepEqual(ids, Array.from({ length: perWorker }, (_, i) => `u${i}`).sort(), platform);
  }
});
