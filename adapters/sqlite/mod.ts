/**
 * SQLite adapters (node:sqlite). `openStateStore` opens a profile's
 * `state.db` as core's `SessionStore`; `openDeliveryLedger` opens the
 * gateway's delivery ledger in the same file.
 *
 * @example
 * ```ts
 * import { openStateStore } from "./adapters/sqlite/mod.ts";
 * const store = openStateStore(`${home}/state.db`);
 * store.close();
 * ```
 *
 * @module
 */

export { openStateStore, type StateStore } from "./state_store.ts";
export {
  type DeliveryLedgerOptions,
  openDeliveryLedger,
  type SqliteDeliveryLedger,
} from "./delivery_ledger.ts";
export {
  type InboundJournalOptions,
  openInboundJournal,
  type SqliteInboundJournal,
} from "./inbound_journal.ts";
export { newSessionId } from "./ids.ts";
export { migrate, type Migration, STATE_MIGRATIONS, STATE_SCHEMA_VERSION } from "./migrations.ts";
export { immediate, openDatabase, toStoreError } from "./_db.ts";
