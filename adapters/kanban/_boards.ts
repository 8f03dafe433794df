/**
 * The board list's SQL: listing, creating (or bringing back) and removing
 * boards by slug, each run inside the store's transaction or read. Private
 * to adapters/kanban.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { HeraldError } from "../../core/errors.ts";
import { type Board, DEFAULT_BOARD } from "../../core/kanban/mod.ts";
import { requireBoard } from "./_checks.ts";
import { boardName, plain, plainAll } from "./_schema.ts";

/** The boards not removed, `default` first, then by slug. */
export function selectBoards(db: DatabaseSync): Board[] {
  return plainAll<Board>(
    db.prepare(
      "SELECT slug, name, created_at FROM boards WHERE removed_at IS NULL " +
        "ORDER BY slug <> 'default', slug",
    ).all(),
  );
}

/** Creates the board `slug`, or brings a removed one back (renamed when `name` is given). */
export function upsertBoard(
  db: DatabaseSync,
  slug: string,
  name: string | undefined,
  at: number,
): Board {
  const found = db.prepare("SELECT removed_at FROM boards WHERE slug = ?").get(slug);
  if (found) {
    db.prepare(
      "UPDATE boards SET removed_at = NULL, name = coalesce(?, name) WHERE slug = ?",
    ).run(name?.trim() || null, slug);
  } else {
    db.prepare("INSERT INTO boards (slug, name, created_at) VALUES (?, ?, ?)")
      .run(slug, name?.trim() || boardName(slug), at);
  }
  return plain<Board>(
    db.prepare("SELECT slug, name, created_at FROM boards WHERE slug = ?").get(slug),
  );
}

/** Fails (conflict) for the default board, which cannot be removed. */
export function refuseDefaultBoard(slug: string): void {
  if (slug !== DEFAULT_BOARD) return;
  throw new HeraldError(
    "kanban_default_board",
    "conflict",
    `The "${DEFAULT_BOARD}" board cannot be removed`,
    { details: { board: slug } },
  );
}

/** Marks the board `slug` removed (its tasks are kept); NotFoundError when there is none. */
export function markBoardRemoved(db: DatabaseSync, slug: string, at: number): void {
  requireBoard(db, slug);
  db.prepare("UPDATE boards SET removed_at = ? WHERE slug = ?").run(at, slug);
}
