/**
 * Bulk import into a fresh state.db: N generated messages in S sessions
 * through the store's bulk path, then a full integrity check.
 *
 * @module
 */

import { join } from "node:path";
import { openStateStore } from "../adapters/sqlite/mod.ts";
import type { ImportMessage, NewSession, SessionStore } from "../core/sessions/store.ts";

/** Figures from one bulk import. */
export interface BulkImportResult {
  messages: number;
  sessions: number;
  importSeconds: number;
  integritySeconds: number;
  integrity: string[];
  databaseMegabytes: number;
}

/** A deterministic generator of chat-like messages over a skewed vocabulary. */
export function generatedCorpus(total: number, sessionCount: number): {
  sessions: () => Generator<NewSession & { id: string }>;
  messages: () => Generator<ImportMessage>;
} {
  const words = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`);
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => words[Math.floor(words.length * random() ** 3)];
  const sessionId = (s: number) => `ses_${s.toString().padStart(8, "0")}`;
  const perSession = Math.max(1, Math.floor(total / sessionCount));
  return {
    *sessions() {
      for (let s = 0; s < sessionCount; s++) {
        yield { id: sessionId(s), source: "import", startedAt: 1_700_000_000_000 + s };
      }
    },
    *messages() {
      for (let i = 0; i < total; i++) {
        const length = 5 + Math.floor(random() * 11);
        const assistant = i % 2 === 1;
        yield {
          sessionId: sessionId(Math.min(sessionCount - 1, Math.floor(i / perSession))),
          role: assistant ? "assistant" : "user",
          content: Array.from({ length }, word).join(" "),
          toolCalls: assistant && i % 10 === 1 ? [{ id: `c${i}`, name: "terminal" }] : null,
          timestamp: 1_700_000_000_000 + i,
        };
      }
    },
  };
}

/**
 * Imports `total` messages in `sessionCount` sessions into a new database in
 * a temporary folder and checks it; then hands the open store to `after`
 * (benchmarks that need a large database) before everything is deleted.
 */
export async function benchBulkImport(
  total: number,
  sessionCount: number,
  after?: (store: SessionStore, path: string) => void,
): Promise<BulkImportResult> {
  const dir = await Deno.makeTempDir({ prefix: "herald-bench-" });
  try {
    const path = join(dir, "state.db");
    const corpus = generatedCorpus(total, sessionCount);
    const store = openStateStore(path);
    try {
      const started = performance.now();
      const counts = store.bulkImport(corpus.sessions(), corpus.messages());
      const imported = performance.now();
      const integrity = store.checkIntegrity();
      const checked = performance.now();
      after?.(store, path);
      return {
        messages: counts.messages,
        sessions: counts.sessions,
        importSeconds: (imported - started) / 1000,
        integritySeconds: (checked - imported) / 1000,
        integrity,
        databaseMegabytes: (await Deno.stat(path)).size / 1e6,
      };
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
