/**
 * Rows of the `compactions` table (context-compression checkpoints) and
 * their conversion to core's {@link CompactionRecord}.
 *
 * @module
 */

import type { CompactionRecord } from "../../core/agent/compression.ts";

/** The columns read for a checkpoint, in {@link CompactionRow} order. */
export const COMPACTION_COLUMNS =
  "id, session_id, head_through_id, tail_from_id, summary, summarised_count, created_at";

/** A `compactions` row as node:sqlite returns it. */
export interface CompactionRow {
  id: number;
  session_id: string;
  head_through_id: number;
  tail_from_id: number;
  summary: string;
  summarised_count: number;
  created_at: number;
}

/** The core record of a row. */
export function toCompaction(row: CompactionRow): CompactionRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    headThroughId: row.head_through_id,
    tailFromId: row.tail_from_id,
    summary: row.summary,
    summarisedCount: row.summarised_count,
    createdAt: row.created_at,
  };
}
