/**
 * Kanban board adapters: {@link openSqliteBoard} opens the shared
 * `kanban.db` at the Herald root as core's BoardStore.
 *
 * @example
 * ```ts
 * import { openSqliteBoard } from "./adapters/kanban/mod.ts";
 * const board = openSqliteBoard(`${root}/kanban.db`);
 * board.close();
 * ```
 *
 * @module
 */

export { openSqliteBoard, type SqliteBoardOptions } from "./sqlite_board.ts";
