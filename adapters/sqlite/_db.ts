/**
 * Private helpers shared by the SQLite adapters: opening a connection with
 * Herald's pragmas, running an immediate write transaction, and turning
 * node:sqlite's message-only errors into {@link StoreError}s.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { HeraldError, StoreError } from "../../core/errors.ts";

/** How long a connection waits for another process's write lock, in milliseconds. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens `file` (creating the file, not its folder) and applies the
 * connection pragmas. `busy_timeout` comes first, before anything that may
 * take a lock (switching to WAL does), so a second process opening the same
 * file waits for the first instead of failing.
 */
export function openDatabase(file: string): DatabaseSync {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file);
  } catch (error) {
    throw toStoreError(file, error);
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const mode = switchToWal(db);
    if (mode !== "wal" && !isInMemory(file)) {
      throw new StoreError(
        file,
        `could not switch to WAL journal mode (it stays "${mode}"); ` +
          "keep the Herald home on a local file system",
      );
    }
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    return db;
  } catch (error) {
    db.close();
    throw toStoreError(file, error);
  }
}

/**
 * Sets `journal_mode = WAL` (a no-op once the file is in WAL mode) and
 * returns the resulting mode. Switching a new file needs an exclusive lock
 * that SQLite does not wait for: when two processes switch at the same
 * moment, one gets "database is locked" at once, whatever the busy timeout
 * says. So a locked switch is retried, with a short growing pause, until
 * the busy timeout has passed.
 */
function switchToWal(db: DatabaseSync): string {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let attempt = 0;; attempt++) {
    try {
      const row = db.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode: string };
      return row.journal_mode;
    } catch (error) {
      if (!isLocked(error) || Date.now() >= deadline) throw error;
      sleepSync(Math.min(2 ** attempt, 50) + Math.random() * 5);
    }
  }
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|database is busy/i.test(error.message);
}

/** Blocks the thread for `ms` milliseconds (opening a store is synchronous). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isInMemory(file: string): boolean {
  return file === "" || file === ":memory:" || file.startsWith("file::memory:");
}

/**
 * Runs `work` inside `BEGIN IMMEDIATE` ... `COMMIT`, rolling back when it
 * throws. Immediate transactions take the write lock up front, so a second
 * writer waits (up to the busy timeout) instead of failing on the
 * read-to-write upgrade that a deferred transaction would attempt.
 */
export function immediate<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) {
      try {
        db.exec("ROLLBACK");
      } catch {
        // The original error says more than a failed rollback would.
      }
    }
    throw error;
  }
}

/**
 * Wraps an error from node:sqlite into a {@link StoreError} for `file`.
 * node:sqlite errors carry only a message (no errcode), so the message is
 * matched to a reason the user can act on. Without a `context`, Herald's own
 * errors and argument errors (TypeError, RangeError) pass through unchanged;
 * with one (for example the bulk-import row that failed), every error
 * becomes a StoreError whose reason starts with the context.
 */
export function toStoreError(file: string, error: unknown, context?: string): Error {
  if (context === undefined) {
    if (error instanceof HeraldError) return error;
    if (error instanceof TypeError || error instanceof RangeError) return error;
    return new StoreError(file, describe(error), { cause: error });
  }
  const reason = error instanceof StoreError ? error.reason : describe(error);
  return new StoreError(file, `${context}: ${reason}`, { cause: error });
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/file is not a database/i.test(message)) {
    return "the file is not a SQLite database (or it is encrypted); " +
      "move it aside and Herald will create a new one";
  }
  if (/database disk image is malformed/i.test(message)) {
    return "the database is corrupt; restore it from a backup or move it aside";
  }
  if (/database is locked|database is busy/i.test(message)) {
    return "another process is holding the database locked; " +
      "close other Herald processes using this profile and try again";
  }
  if (/unable to open database file/i.test(message)) {
    return "cannot open the file; check that its folder exists and is writable";
  }
  if (/readonly database/i.test(message)) {
    return "the database is read-only; check the permissions of the file and its folder";
  }
  if (/database or disk is full/i.test(message)) {
    return "the disk is full; free some space and try again";
  }
  if (/FOREIGN KEY constraint failed/.test(message)) {
    return "the session it belongs to does not exist";
  }
  if (/UNIQUE constraint failed: sessions\.id/.test(message)) {
    return "a session with that id already exists";
  }
  if (/database is not open/i.test(message)) {
    return "the store is closed";
  }
  return message;
}
