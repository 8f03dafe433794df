/**
 * The gateway's delivery ledger in the profile's `state.db` (table
 * `delivery_obligations`, migration 6), behind core's {@link DeliveryLedger}.
 * Every write is one `BEGIN IMMEDIATE` transaction and the connection waits
 * for another process's write lock (busy timeout), so the gateway and
 * another Herald process may use one database at once. The reply, the
 * inbound message's reply context and the platform's message ids are
 * stored as JSON. Recording a reply that answers an inbound journal entry
 * settles that entry in the same transaction (adapters/sqlite/inbound_journal.ts).
 *
 * @module
 */

import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { ChatAddress, OutboundReply } from "../../core/channels/contract.ts";
import type {
  DeliveryLedger,
  NewObligation,
  Obligation,
  ObligationStatus,
} from "../../core/channels/ports.ts";
import { NotFoundError } from "../../core/errors.ts";
import { openConnection } from "./_connection.ts";
import { INBOUND_TABLE } from "./inbound_journal.ts";

/** The ledger with its connection, closed by its owner. */
export interface SqliteDeliveryLedger extends DeliveryLedger {
  record(obligation: NewObligation): Obligation;
  markSending(id: number): void;
  markDelivered(id: number, messageIds: readonly string[]): void;
  markFailed(id: number, error: string, final: boolean): void;
  unfinished(platform: string, since: number, maxAttempts: number): Obligation[];
  prune(before: number): number;
  /** The obligation `id`, or undefined (for status views and tests). */
  get(id: number): Obligation | undefined;
  /** The platform's message ids recorded when `id` was delivered ([] before). */
  messageIds(id: number): string[];
  /** Closes the connection; later calls fail. Closing twice is harmless. */
  close(): void;
}

/** Options of {@link openDeliveryLedger}. */
export interface DeliveryLedgerOptions {
  /** The clock stamping `created_at` and `updated_at` (ms since the epoch; default `Date.now`). */
  now?: () => number;
}

/** A row of `delivery_obligations`. */
interface ObligationRow {
  id: number;
  platform: string;
  chat_id: string;
  thread_id: string | null;
  reply: string;
  context: string | null;
  session_id: string | null;
  status: ObligationStatus;
  attempts: number;
  created_at: number;
  updated_at: number;
  last_error: string | null;
  message_ids: string | null;
}

const COLUMNS = "id, platform, chat_id, thread_id, reply, context, session_id, status, " +
  "attempts, created_at, updated_at, last_error, message_ids";

/** The longest error text kept per obligation (a platform's error body can be large). */
const MAX_ERROR_CHARS = 2000;

/**
 * Opens the ledger in the state database at `dbPath` (creating the file,
 * not its folder) and brings the schema up to date.
 *
 * @throws StoreError when the file cannot be used (not a database, newer schema, locked).
 *
 * @example
 * ```ts
 * const ledger = openDeliveryLedger(paths.stateDb);
 * const owed = ledger.record({ to: { platform: "telegram", chatId: "42" }, reply });
 * ledger.markSending(owed.id);
 * ledger.markDelivered(owed.id, ["1001"]);
 * ledger.close();
 * ```
 */
export function openDeliveryLedger(
  dbPath: string,
  options: DeliveryLedgerOptions = {},
): SqliteDeliveryLedger {
  const now = options.now ?? Date.now;
  const { use, write, close } = openConnection(dbPath);
  const row = (db: DatabaseSync, id: number) =>
    db.prepare(`SELECT ${COLUMNS} FROM delivery_obligations WHERE id = ?`).get(id) as
      | ObligationRow
      | undefined;
  /** Runs an update of obligation `id` in a write transaction; a missing row is an error. */
  const update = (id: number, sql: string, values: SQLInputValue[]) =>
    write((db) => {
      const { changes } = db.prepare(sql).run(...values);
      if (Number(changes) === 0) {
        throw new NotFoundError(
          "Delivery obligation",
          String(id),
          "it was pruned or never recorded",
        );
      }
    });

  return {
    record(obligation) {
      const at = now();
      const values: SQLInputValue[] = [
        obligation.to.platform,
        obligation.to.chatId,
        obligation.to.threadId ?? null,
        JSON.stringify(obligation.reply),
        contextJson(obligation.context),
        obligation.sessionId ?? null,
        at,
        at,
      ];
      return write((db) => {
        if (obligation.settles !== undefined) {
          // The message this answers needs nothing more once its answer is owed.
          db.prepare(
            `UPDATE ${INBOUND_TABLE} SET settled_at = ? WHERE id = ? AND settled_at IS NULL`,
          ).run(at, obligation.settles);
        }
        const { lastInsertRowid } = db.prepare(
          "INSERT INTO delivery_obligations (platform, chat_id, thread_id, reply, context, " +
            "session_id, status, attempts, created_at, updated_at) " +
            "VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)",
        ).run(...values);
        return toObligation(row(db, Number(lastInsertRowid))!);
      });
    },

    markSending(id) {
      update(
        id,
        "UPDATE delivery_obligations SET status = 'sending', attempts = attempts + 1, " +
          "updated_at = ? WHERE id = ?",
        [now(), id],
      );
    },

    markDelivered(id, messageIds) {
      update(
        id,
        "UPDATE delivery_obligations SET status = 'delivered', message_ids = ?, " +
          "last_error = NULL, updated_at = ? WHERE id = ?",
        [JSON.stringify([...messageIds]), now(), id],
      );
    },

    markFailed(id, error, final) {
      update(
        id,
        "UPDATE delivery_obligations SET status = ?, last_error = ?, updated_at = ? WHERE id = ?",
        [final ? "failed" : "pending", error.slice(0, MAX_ERROR_CHARS), now(), id],
      );
    },

    unfinished(platform, since, maxAttempts) {
      return use((db) =>
        (db.prepare(
          `SELECT ${COLUMNS} FROM delivery_obligations ` +
            "WHERE status IN ('pending', 'sending') AND platform = ? AND created_at >= ? " +
            "AND attempts < ? ORDER BY created_at, id",
        ).all(platform, since, maxAttempts) as unknown as ObligationRow[]).map(toObligation)
      );
    },

    prune(before) {
      return write((db) =>
        Number(
          db.prepare(
            "DELETE FROM delivery_obligations " +
              "WHERE status IN ('delivered', 'failed') AND updated_at < ?",
          ).run(before).changes,
        )
      );
    },

    get(id) {
      return use((db) => {
        const found = row(db, id);
        return found ? toObligation(found) : undefined;
      });
    },

    messageIds(id) {
      return use((db) => {
        const found = row(db, id);
        return found?.message_ids ? JSON.parse(found.message_ids) as string[] : [];
      });
    },

    close,
  };
}

/** The reply context as JSON text, or null when there is none or it is not plain JSON. */
function contextJson(context: unknown): string | null {
  if (context === undefined) return null;
  try {
    return JSON.stringify(context) ?? null;
  } catch {
    return null;
  }
}

function toObligation(row: ObligationRow): Obligation {
  const to: ChatAddress = {
    platform: row.platform,
    chatId: row.chat_id,
    ...(row.thread_id === null ? {} : { threadId: row.thread_id }),
  };
  return {
    id: Number(row.id),
    to,
    reply: JSON.parse(row.reply) as OutboundReply,
    ...(row.context === null ? {} : { context: JSON.parse(row.context) }),
    ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    status: row.status,
    attempts: Number(row.attempts),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
  };
}
