/**
 * The gateway's inbound journal in the profile's `state.db` (table
 * `gateway_inbound`, migration 7), behind core's {@link InboundJournal}.
 * A message is a row from the moment the gateway took it in until it needs
 * nothing more; the delivery ledger deletes the row in the transaction that
 * records the message's answer (adapters/sqlite/delivery_ledger.ts). Every
 * write is one `BEGIN IMMEDIATE` transaction, so the gateway and another
 * Herald process may use the database at once.
 *
 * @module
 */

import type { InboundJournal, JournaledMessage, JournalEntry } from "../../core/channels/ports.ts";
import { openConnection } from "./_connection.ts";

/** The journal with its connection, closed by its owner. */
export interface SqliteInboundJournal extends InboundJournal {
  record(message: JournaledMessage): number;
  settle(id: number): void;
  unsettled(platform: string): JournalEntry[];
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

  return {
    record(message) {
      const text = JSON.stringify(message);
      return write((db) =>
        Number(
          db.prepare(
            `INSERT INTO ${INBOUND_TABLE} (platform, message, created_at) VALUES (?, ?, ?)`,
          ).run(message.chat.platform, text, now()).lastInsertRowid,
        )
      );
    },

    settle(id) {
      write((db) => db.prepare(`DELETE FROM ${INBOUND_TABLE} WHERE id = ?`).run(id));
    },

    unsettled(platform) {
      return use((db) =>
        (db.prepare(
          `SELECT id, message, created_at FROM ${INBOUND_TABLE} WHERE platform = ? ORDER BY id`,
        ).all(platform) as unknown as EntryRow[]).map((row) => ({
          id: Number(row.id),
          message: JSON.parse(row.message) as JournaledMessage,
          createdAt: Number(row.created_at),
        }))
      );
    },

    close,
  };
}
