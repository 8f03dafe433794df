/**
 * One connection to the state database with its schema brought up to date,
 * as the small stores over it (the delivery ledger, the inbound journal)
 * use it: reads through {@link Connection.use}, each write one
 * `BEGIN IMMEDIATE` transaction through {@link Connection.write}, every
 * node:sqlite error turned into a StoreError naming the file.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { immediate, openDatabase, toStoreError } from "./_db.ts";
import { migrate } from "./migrations.ts";

/** An open, migrated connection. */
export interface Connection {
  /** Runs `work` on the connection (fails once closed). */
  use<T>(work: (db: DatabaseSync) => T): T;
  /** Runs `work` in a write transaction. */
  write<T>(work: (db: DatabaseSync) => T): T;
  /** Closes the connection; later calls fail. Closing twice is harmless. */
  close(): void;
}

/**
 * Opens the state database at `dbPath` (creating the file, not its folder)
 * and migrates it.
 *
 * @throws StoreError when the file cannot be used (not a database, newer schema, locked).
 */
export function openConnection(dbPath: string): Connection {
  const db = openDatabase(dbPath);
  try {
    migrate(db, dbPath);
  } catch (error) {
    db.close();
    throw error;
  }
  let open: DatabaseSync | undefined = db;
  const use = <T>(work: (db: DatabaseSync) => T): T => {
    try {
      if (!open) throw new Error("database is not open");
      return work(open);
    } catch (error) {
      throw toStoreError(dbPath, error);
    }
  };
  return {
    use,
    write: (work) => use((db) => immediate(db, () => work(db))),
    close() {
      const closing = open;
      open = undefined;
      closing?.close();
    },
  };
}
