/**
 * A kanban board for tests: a real SQLite `kanban.db` in a temporary
 * folder, with a clock the test controls, and the small checks the board
 * tests share.
 *
 * @module
 */

import { join } from "node:path";
import { openSqliteBoard } from "../adapters/kanban/mod.ts";
import { HeraldError } from "../core/errors.ts";
import type { BoardStore } from "../core/kanban/mod.ts";
import { tempDir } from "./_helpers.ts";

/** The instant every test board's clock starts at. */
export const T0: number = Date.UTC(2026, 10, 24, 9, 0);

/** A test board, its clock and its file; disposing closes every connection and removes it. */
export interface TestBoard extends AsyncDisposable {
  board: BoardStore;
  clock: { now: number };
  path: string;
  dir: string;
  /** Another connection to the same database. */
  open(): BoardStore;
}

/**
 * A board in a temporary root. Its clock stands at `clock.now` (the test
 * moves it by hand) or, with `tickMs`, moves that far at each reading.
 * `open()` gives another connection to the same database (another
 * process's view); every connection is closed on dispose.
 */
export async function openTestBoard(options: { tickMs?: number } = {}): Promise<TestBoard> {
  const dir = await tempDir();
  const clock = { now: T0 };
  const tick = options.tickMs;
  const now = tick === undefined ? () => clock.now : () => (clock.now += tick);
  const path = join(dir.path, "kanban.db");
  const opened: BoardStore[] = [];
  const open = () => {
    const store = openSqliteBoard(path, { now });
    opened.push(store);
    return store;
  };
  const board = open();
  return {
    board,
    clock,
    path,
    dir: dir.path,
    open,
    async [Symbol.asyncDispose]() {
      for (const store of opened) store.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** An `assert.rejects` check: a HeraldError with `code` (and `text` in its message). */
export function heraldError(code: string, text?: string): (error: unknown) => boolean {
  return (error: unknown) =>
    error instanceof HeraldError && error.code === code &&
    (text === undefined || error.message.includes(text));
}

/** The kinds of the event log (of one task, or all), oldest first. */
export async function eventKinds(board: BoardStore, taskId?: string): Promise<string[]> {
  return (await board.events(taskId)).map((event) => event.kind);
}
