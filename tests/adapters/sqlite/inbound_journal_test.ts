/**
 * The inbound journal in a real state.db: entries kept per platform in
 * order until settled, settling idempotent, the ledger settling an entry in
 * the very transaction that records its answer, a message the platform
 * sends again recognised (answered or not) for a day, and expiry across
 * platforms.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  openDeliveryLedger,
  openInboundJournal,
  type SqliteInboundJournal,
} from "../../../adapters/sqlite/mod.ts";
import type { JournaledMessage } from "../../../core/channels/ports.ts";
import { tempDir } from "../../_helpers.ts";

const DAY = 24 * 60 * 60 * 1000;

function message(
  platform: string,
  chatId: string,
  text: string,
  messageId?: string,
): JournaledMessage {
  return {
    chat: { platform, chatId },
    chatKind: "direct",
    userId: `u-${chatId}`,
    text,
    attachments: [{ kind: "file", name: "a.txt", size: 3 }],
    ...(messageId === undefined ? {} : { messageId }),
    replyContext: { replyToken: "t", receivedAt: 5 },
    receivedAt: 5,
  };
}

/** Records `entry`, which must be new. */
function recorded(journal: SqliteInboundJournal, entry: JournaledMessage): number {
  const id = journal.record(entry);
  assert.notEqual(id, null, `${entry.text} was taken for a repeat`);
  return id!;
}

Deno.test("the journal keeps each platform's messages in order until settled; settling twice is harmless", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.db");
  let now = 1000;
  const journal = openInboundJournal(path, { now: () => now });
  try {
    const a = recorded(journal, message("telegram", "1", "first"));
    now = 2000;
    const b = recorded(journal, message("telegram", "1", "second"));
    recorded(journal, message("line", "U1", "other platform"));
    const listed = journal.unsettled("telegram");
    assert.deepEqual(listed.map((entry) => [entry.id, entry.message.text, entry.createdAt]), [
      [a, "first", 1000],
      [b, "second", 2000],
    ]);
    assert.deepEqual(listed[0].message, message("telegram", "1", "first"));
    journal.settle(a);
    journal.settle(a);
    assert.deepEqual(journal.unsettled("telegram").map((entry) => entry.id), [b]);
  } finally {
    journal.close();
  }
  // Kept across connections (a restart).
  const reopened = openInboundJournal(path);
  try {
    assert.deepEqual(reopened.unsettled("telegram").map((entry) => entry.message.text), ["second"]);
  } finally {
    reopened.close();
  }
});

Deno.test("a message the platform sends again is recognised, answered or not, until a day after it settled", async () => {
  await using dir = await tempDir();
  let now = 1000;
  const journal = openInboundJournal(join(dir.path, "state.db"), { now: () => now });
  try {
    const first = recorded(journal, message("telegram", "1", "hello", "77"));
    assert.equal(journal.record(message("telegram", "1", "hello", "77")), null, "still owed");
    journal.settle(first);
    assert.equal(journal.record(message("telegram", "1", "hello", "77")), null, "answered");
    // The same id in another chat or platform is another message; no id is never a repeat.
    recorded(journal, message("telegram", "2", "hello", "77"));
    recorded(journal, message("line", "1", "hello", "77"));
    recorded(journal, message("telegram", "1", "no id"));
    recorded(journal, message("telegram", "1", "no id"));

    now += DAY + 1;
    journal.expire(now - DAY);
    recorded(journal, message("telegram", "1", "hello", "77"));
  } finally {
    journal.close();
  }
});

Deno.test("expiring gives up the old unsettled entries of every platform and keeps the young", async () => {
  await using dir = await tempDir();
  let now = 1000;
  const journal = openInboundJournal(join(dir.path, "state.db"), { now: () => now });
  try {
    recorded(journal, message("telegram", "1", "old"));
    recorded(journal, message("gone", "g", "old, of a platform no longer run"));
    now = 5000;
    recorded(journal, message("gone", "g", "young"));
    const expired = journal.expire(3000);
    assert.deepEqual(expired.map((entry) => entry.message.text), [
      "old",
      "old, of a platform no longer run",
    ]);
    assert.deepEqual(journal.unsettled("telegram"), []);
    assert.deepEqual(journal.unsettled("gone").map((entry) => entry.message.text), ["young"]);
    assert.deepEqual(journal.expire(3000), []);
  } finally {
    journal.close();
  }
});

Deno.test("recording an answer settles the message it answers in the same transaction", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.db");
  const journal = openInboundJournal(path);
  const ledger = openDeliveryLedger(path);
  try {
    const id = recorded(journal, message("telegram", "1", "question", "5"));
    const other = recorded(journal, message("telegram", "1", "next", "6"));
    const owed = ledger.record({
      to: { platform: "telegram", chatId: "1" },
      reply: { parts: [{ kind: "text", text: "answer" }] },
      settles: id,
    });
    assert.equal(owed.status, "pending");
    assert.deepEqual(journal.unsettled("telegram").map((entry) => entry.id), [other]);
    assert.equal(journal.record(message("telegram", "1", "question", "5")), null);
    // A record whose entry is already settled still records the answer.
    ledger.record({
      to: { platform: "telegram", chatId: "1" },
      reply: { parts: [{ kind: "text", text: "again" }] },
      settles: id,
    });
    assert.equal(ledger.unfinished("telegram", 0, 10).length, 2);
  } finally {
    journal.close();
    ledger.close();
  }
});
