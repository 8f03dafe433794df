import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  openDeliveryLedger,
  openStateStore,
  STATE_SCHEMA_VERSION,
} from "../../../adapters/sqlite/mod.ts";
import type { OutboundReply } from "../../../core/channels/contract.ts";
import { HeraldError } from "../../../core/errors.ts";
import { REPO_ROOT, tempDir } from "../../_helpers.ts";
import { raceWorkers } from "../../_workers.ts";

const WORKER = new URL("./_ledger_worker.ts", import.meta.url).pathname;
const TEXT: OutboundReply = { parts: [{ kind: "text", text: "hello" }] };

/** A clock the test moves by hand. */
function manualClock(start = 1_000) {
  let time = start;
  return { now: () => time, set: (next: number) => time = next };
}

Deno.test("an obligation goes pending, sending, delivered and leaves the unfinished list", async () => {
  await using dir = await tempDir();
  const clock = manualClock();
  const ledger = openDeliveryLedger(join(dir.path, "state.db"), clock);
  try {
    const owed = ledger.record({
      to: { platform: "telegram", chatId: "42", threadId: "7" },
      reply: TEXT,
      sessionId: "ses_1",
    });
    assert.deepEqual(owed, {
      id: owed.id,
      to: { platform: "telegram", chatId: "42", threadId: "7" },
      reply: TEXT,
      sessionId: "ses_1",
      status: "pending",
      attempts: 0,
      createdAt: 1_000,
      updatedAt: 1_000,
    });
    clock.set(2_000);
    ledger.markSending(owed.id);
    assert.deepEqual(
      { status: ledger.get(owed.id)?.status, attempts: ledger.get(owed.id)?.attempts },
      { status: "sending", attempts: 1 },
    );
    assert.deepEqual(ledger.unfinished("telegram", 0, 3).map((o) => o.id), [owed.id]);
    clock.set(3_000);
    ledger.markDelivered(owed.id, ["900", "901"]);
    const done = ledger.get(owed.id)!;
    assert.equal(done.status, "delivered");
    assert.equal(done.updatedAt, 3_000);
    assert.deepEqual(ledger.messageIds(owed.id), ["900", "901"]);
    assert.deepEqual(ledger.unfinished("telegram", 0, 3), []);
  } finally {
    ledger.close();
  }
});

Deno.test("a failed attempt goes back to pending with its error; a final failure leaves the list", async () => {
  await using dir = await tempDir();
  const ledger = openDeliveryLedger(join(dir.path, "state.db"));
  try {
    const owed = ledger.record({ to: { platform: "telegram", chatId: "42" }, reply: TEXT });
    ledger.markSending(owed.id);
    ledger.markFailed(owed.id, "HTTP 502 from the platform", false);
    const retry = ledger.unfinished("telegram", 0, 3);
    assert.equal(retry.length, 1);
    assert.equal(retry[0].status, "pending");
    assert.equal(retry[0].attempts, 1);
    assert.equal(retry[0].lastError, "HTTP 502 from the platform");
    ledger.markSending(owed.id);
    ledger.markFailed(owed.id, "chat not found", true);
    assert.equal(ledger.get(owed.id)?.status, "failed");
    assert.equal(ledger.get(owed.id)?.attempts, 2);
    assert.deepEqual(ledger.unfinished("telegram", 0, 3), []);
  } finally {
    ledger.close();
  }
});

Deno.test("unfinished lists one platform's recent obligations under the attempt bound, oldest first", async () => {
  await using dir = await tempDir();
  const clock = manualClock();
  const ledger = openDeliveryLedger(join(dir.path, "state.db"), clock);
  try {
    const at = (time: number, platform: string, chatId: string) => {
      clock.set(time);
      return ledger.record({ to: { platform, chatId }, reply: TEXT }).id;
    };
    const old = at(100, "telegram", "a");
    const third = at(500, "telegram", "c");
    const first = at(300, "telegram", "b");
    at(400, "line", "U1");
    const tired = at(350, "telegram", "d");
    for (let i = 0; i < 3; i++) ledger.markSending(tired);
    const sameTime = at(500, "telegram", "e");

    assert.deepEqual(ledger.unfinished("telegram", 200, 3).map((o) => o.id), [
      first,
      third,
      sameTime,
    ]);
    assert.deepEqual(ledger.unfinished("telegram", 0, 3).map((o) => o.id), [
      old,
      first,
      third,
      sameTime,
    ]);
    assert.deepEqual(
      ledger.unfinished("telegram", 0, 4).map((o) => o.id),
      [old, first, tired, third, sameTime],
    );
    assert.deepEqual(ledger.unfinished("line", 0, 3).map((o) => o.to.chatId), ["U1"]);
  } finally {
    ledger.close();
  }
});

Deno.test("prune removes settled obligations changed before the cut and keeps what is owed", async () => {
  await using dir = await tempDir();
  const clock = manualClock();
  const ledger = openDeliveryLedger(join(dir.path, "state.db"), clock);
  try {
    const delivered = ledger.record({ to: { platform: "telegram", chatId: "1" }, reply: TEXT });
    ledger.markDelivered(delivered.id, ["1"]);
    const failed = ledger.record({ to: { platform: "telegram", chatId: "2" }, reply: TEXT });
    ledger.markFailed(failed.id, "blocked", true);
    const pending = ledger.record({ to: { platform: "telegram", chatId: "3" }, reply: TEXT });
    clock.set(5_000);
    const recent = ledger.record({ to: { platform: "telegram", chatId: "4" }, reply: TEXT });
    ledger.markDelivered(recent.id, ["4"]);

    assert.equal(ledger.prune(5_000), 2);
    assert.equal(ledger.get(delivered.id), undefined);
    assert.equal(ledger.get(failed.id), undefined);
    assert.equal(ledger.get(pending.id)?.status, "pending");
    assert.equal(ledger.get(recent.id)?.status, "delivered");
    assert.equal(ledger.prune(5_000), 0);
  } finally {
    ledger.close();
  }
});

Deno.test("replies and plain-JSON contexts come back as they were recorded", async () => {
  await using dir = await tempDir();
  const ledger = openDeliveryLedger(join(dir.path, "state.db"));
  try {
    const reply: OutboundReply = {
      parts: [
        { kind: "text", text: 'ünïcode ✅ and "quotes"\nline two' },
        { kind: "media", media: { path: "/tmp/report.pdf", asDocument: true } },
      ],
      possibleDuplicate: true,
    };
    const context = { replyToken: "abc", nested: { n: 1, list: [true, null] } };
    const owed = ledger.record({ to: { platform: "line", chatId: "U1" }, reply, context });
    const [back] = ledger.unfinished("line", 0, 3);
    assert.deepEqual(back.reply, reply);
    assert.deepEqual(back.context, context);
    assert.equal(back.id, owed.id);

    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const unstorable = ledger.record({
      to: { platform: "x", chatId: "1" },
      reply,
      context: cyclic,
    });
    assert.equal("context" in ledger.get(unstorable.id)!, false);
  } finally {
    ledger.close();
  }
});

Deno.test("changing an obligation that is not in the ledger is a not-found error", async () => {
  await using dir = await tempDir();
  const ledger = openDeliveryLedger(join(dir.path, "state.db"));
  try {
    for (const change of [() => ledger.markSending(99), () => ledger.markDelivered(99, [])]) {
      assert.throws(change, (error) => error instanceof HeraldError && error.kind === "not_found");
    }
  } finally {
    ledger.close();
  }
  assert.throws(
    () => ledger.get(1),
    (error) => error instanceof HeraldError && /closed/.test(error.message),
  );
});

Deno.test("the ledger lives in state.db beside the sessions, at the newest schema", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.db");
  const store = openStateStore(path);
  const ledger = openDeliveryLedger(path);
  try {
    const session = store.createSession({ source: "telegram" });
    const owed = ledger.record({
      to: { platform: "telegram", chatId: "1" },
      reply: TEXT,
      sessionId: session.id,
    });
    store.deleteSession(session.id);
    assert.equal(
      ledger.get(owed.id)?.sessionId,
      session.id,
      "a deleted session keeps its owed reply",
    );
    assert.equal(store.schemaVersion(), STATE_SCHEMA_VERSION);
  } finally {
    ledger.close();
    store.close();
  }
});

Deno.test("two connections on one database see each other's changes", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.db");
  const gateway = openDeliveryLedger(path);
  const other = openDeliveryLedger(path);
  try {
    const a = gateway.record({ to: { platform: "telegram", chatId: "1" }, reply: TEXT });
    const b = other.record({ to: { platform: "telegram", chatId: "2" }, reply: TEXT });
    assert.notEqual(a.id, b.id);
    other.markSending(a.id);
    gateway.markDelivered(b.id, ["2"]);
    assert.equal(gateway.get(a.id)?.status, "sending");
    assert.deepEqual(other.unfinished("telegram", 0, 3).map((o) => o.id), [a.id]);
  } finally {
    gateway.close();
    other.close();
  }
});

Deno.test("two processes writing one ledger at once lose nothing", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.db");
  const platforms = ["alpha", "beta"];
  const perWorker = 300;
  const results = await raceWorkers({
    script: WORKER,
    before: ["record"],
    target: path,
    labels: platforms,
    count: perWorker,
    barrier: join(dir.path, "barrier"),
  });
  const decoder = new TextDecoder();
  results.forEach((result, i) =>
    assert.equal(result.code, 0, `worker ${platforms[i]}: ${decoder.decode(result.stderr)}`)
  );

  const raw = new DatabaseSync(path);
  try {
    const rows = raw.prepare(
      "SELECT platform, status, count(*) AS n, count(DISTINCT chat_id) AS chats, " +
        "sum(attempts) AS attempts FROM delivery_obligations GROUP BY platform, status ORDER BY platform",
    ).all();
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      platforms.map((platform) => ({
        platform,
        status: "delivered",
        n: perWorker,
        chats: perWorker,
        attempts: perWorker,
      })),
    );
  } finally {
    raw.close();
  }
});

Deno.test("after a crash mid-send the reply left sending is owed again, and nothing else", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.db");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", WORKER, "crash", path],
    cwd: REPO_ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  try {
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      line += value;
    }
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel().catch(() => {});
  }
  const ids = JSON.parse(line) as { delivered: number; midSend: number };

  const ledger = openDeliveryLedger(path);
  try {
    const owed = ledger.unfinished("telegram", 0, 3);
    assert.deepEqual(owed.map((o) => o.id), [ids.midSend]);
    assert.equal(owed[0].status, "sending");
    assert.equal(owed[0].attempts, 1);
    assert.deepEqual(owed[0].context, { replyToken: "tok" });
    assert.equal(ledger.get(ids.delivered)?.status, "delivered");
  } finally {
    ledger.close();
  }
});
