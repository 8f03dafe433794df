/**
 * The gateway's inbound journal in the profile's `state.db` (table
 * `gateway_inbound`, migration 7), behind core's {@link InboundJournal}.
 * A message is a row from the moment the gateway took it in; it is settled
 * (`settled_at`) once it needs nothing more, by the delivery ledger in the
 * transaction that records the message's answer
 * (adapters/sqlite/delivery_ledger.ts), and kept a day after that with the
 * platform's id of it (migration 8), so the same message sent again after a
 * crash is not taken in twice. Every
 * write is one `BEGIN IMMEDIATE` transaction, so the gateway and another
 * Herald process may use the database at once.
 *
 * @module
 */

import type { InboundJournal, JournaledMessage, JournalEntry } from "../../core/channels/ports.ts";
import { openConnection } from "./_connection.ts";

/** The journal with its connection, closed by its owner. */
export interface SqliteInboundJournal extends InboundJournal {
  record(message: JournaledMessage): number | null;
  settle(id: number): void;
  unsettled(platform: string): JournalEntry[];
  expire(before: number): JournalEntry[];
  /** Closes the connection; later calls fail. Closing twice is harmless. */
  close(): void;
}

/** Options of {@link openInboundJournal}. */
export interface InboundJournalOptions {
  /** The clock stamping `created_at` (ms since the epoch; default `Date.now`). */
  now?: () => number;
}

/** A row of `gateway_inbound`. */
interface EntryRow {
  id: number;
  message: string;
  created_at: number;
}

/** The journal's table, named here for the ledger's settling delete. */
export const INBOUND_TABLE = "gateway_inbound";

/**
 * Opens the journal in the state database at `dbPath` (creating the file,
 * not its folder) and brings the schema up to date.
 *
 * @throws StoreError when the file cannot be used (not a database, newer schema, locked).
 *
 * @example
 * ```ts
 * const journal = openInboundJournal(paths.stateDb);
 * const id = journal.record({ chat, chatKind: "direct", userId: "42", text: "hi", attachments: [], receivedAt });
 * journal.settle(id);
 * journal.close();
 * ```
 */
export function openInboundJournal(
  dbPath: string,
  options: InboundJournalOptions = {},
): SqliteInboundJournal {
  const now = options.now ?? Date.now;
  const { use, write, close } = openConnection(dbPath);
  const select = `SELECT id, message, created_at FROM ${INBOUND_TABLE}`;

  return {
    record(message) {
      const text = JSON.stringify(message);
      return write((db) => {
        const { changes, lastInsertRowid } = db.prepare(
          `INSERT OR IGNORE INTO ${INBOUND_TABLE} (platform, message, created_at, message_key) ` +
            "VALUES (?, ?, ?, ?)",
        ).run(message.chat.platform, text, now(), messageKey(message));
        return Number(changes) === 0 ? null : Number(lastInsertRowid);
      });
    },

    settle(id) {
      write((db) =>
        db.prepare(
          `UPDATE ${INBOUND_TABLE} SET settled_at = ? WHERE id = ? AND settled_at IS NULL`,
        ).run(now(), id)
      );
    },

    unsettled(platform) {
      return use((db) =>
        (db.prepare(`${select} WHERE platform = ? AND settled_at IS NULL ORDER BY id`)
          .all(platform) as unknown as EntryRow[]).map(toEntry)
      );
    },

    expire(before) {
      return write((db) => {
        const rows = db.prepare(
          `${select} WHERE settled_at IS NULL AND created_at < ? ORDER BY id`,
        ).all(before) as unknown as EntryRow[];
        db.prepare(
          `UPDATE ${INBOUND_TABLE} SET settled_at = ? WHERE settled_at IS NULL AND created_at < ?`,
        ).run(now(), before);
        db.prepare(`DELETE FROM ${INBOUND_TABLE} WHERE settled_at < ?`).run(before);
        return rows.map(toEntry);
      });
    },

    close,
  };
}

/**
 * The key that recognises a message sent again: its platform, chat and the
 * platform's id of it; null when the platform gave no id.
 */
function messageKey(message: JournaledMessage): string | null {
  if (message.messageId === undefined) return null;
  return JSON.stringify([message.chat.platform, message.chat.chatId, message.messageId]);
}

function toEntry(row: EntryRow): JournalEntry {
  return {
    id: Number(row.id),
    message: JSON.parse(row.message) as JournaledMessage,
    createdAt: Number(row.created_at),
  };
}
