/**
 * Session search speed on a large state.db: a 3-term discovery query with
 * windows and bookends against the bare FTS5 `MATCH` + bm25 query it starts
 * from, and browse, all on the same database in the same run.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { searchSessions } from "../core/sessions/search.ts";
import type { SessionStore } from "../core/sessions/store.ts";
import { toFtsQuery } from "../core/sessions/fts_query.ts";

/** Figures of the search benchmark. */
export interface SearchBenchResult {
  queries: string[];
  runs: number;
  bareMedianMs: number;
  discoveryMedianMs: number;
  ratio: number;
  browseMedianMs: number;
  hitsPerQuery: number[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timed(work: () => unknown): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

/**
 * Times discovery against the bare ranked FTS query (same candidate count)
 * on `path`, alternating the two (and which goes first), `runs` times per query.
 */
export function benchSessionSearch(
  store: SessionStore,
  path: string,
  queries: string[],
  runs = 15,
): SearchBenchResult {
  const raw = new DatabaseSync(path, { readOnly: true });
  try {
    const bare = raw.prepare(
      "SELECT rowid, bm25(messages_fts) AS score FROM messages_fts WHERE messages_fts MATCH ? " +
        "ORDER BY score LIMIT 150",
    );
    const bareTimes: number[] = [];
    const discoveryTimes: number[] = [];
    const hitsPerQuery: number[] = [];
    for (const query of queries) {
      const fts = toFtsQuery(query);
      hitsPerQuery.push(
        (raw.prepare("SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?").get(
          fts,
        ) as {
          n: number;
        }).n,
      );
      bare.all(fts);
      searchSessions(store, { query });
      for (let i = 0; i < runs; i++) {
        // Alternate which goes first, so neither profits from the other's warm cache.
        if (i % 2 === 0) bareTimes.push(timed(() => bare.all(fts)));
        discoveryTimes.push(timed(() => searchSessions(store, { query })));
        if (i % 2 === 1) bareTimes.push(timed(() => bare.all(fts)));
      }
    }
    const browseTimes = Array.from(
      { length: runs * 3 },
      () => timed(() => searchSessions(store, {})),
    );
    const bareMedianMs = median(bareTimes);
    const discoveryMedianMs = median(discoveryTimes);
    return {
      queries,
      runs,
      bareMedianMs,
      discoveryMedianMs,
      ratio: discoveryMedianMs / bareMedianMs,
      browseMedianMs: median(browseTimes),
      hitsPerQuery,
    };
  } finally {
    raw.close();
  }
}
