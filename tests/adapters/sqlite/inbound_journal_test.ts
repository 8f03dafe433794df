/**
 * The inbound journal in a real state.db: entries kept per platform in
 * order, settling idempotent, and the ledger settling an entry in the very
 * transaction that records its answer (seen from a second connection).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openDeliveryLedger, openInboundJournal } from "../../../adapters/sqlite/mod.ts";
import type { JournaledMessage } from "../../../core/channels/ports.ts";
import { tempDir } from "../../_helpers.ts";

function message(platform: string, chatId: string, text: string): JournaledMessage {
  return {
    chat: { platform, chatId },
    chatKind: "direct",
    userId: `u-${chatId}`,
    text,
    attachments: [{ kind: "file", name: "a.txt", size: 3 }],
    replyContext: { replyToken: "t", receivedAt: 5 },
    receivedAt: 5,
  };
}

Deno.test("the journal keeps each platform's messages in order until settled; settling twice is harmless", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.db");
  let now = 1000;
  const journal = openInboundJournal(path, { now: () => now });
  try {
    const a = journal.record(message("telegram", "1", "first"));
    now = 2000;
    const b = journal.record(message("telegram", "1", "second"));
    journal.record(message("line", "U1", "other platform"));
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

Deno.test("recording an answer settles the message it answers in the same transaction", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "state.db");
  const journal = openInboundJournal(path);
  const ledger = openDeliveryLedger(path);
  try {
    const id = journal.record(message("telegram", "1", "question"));
    const other = journal.record(message("telegram", "1", "next"));
    const owed = ledger.record({
      to: { platform: "telegram", chatId: "1" },
      reply: { parts: [{ kind: "text", text: "answer" }] },
      settles: id,
    });
    assert.equal(owed.status, "pending");
    assert.deepEqual(journal.unsettled("telegram").map((entry) => entry.id), [other]);
    // A record whose entry is already gone still records the answer.
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
