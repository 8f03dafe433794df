/**
 * Which Codex thread each session of a profile runs in: a small JSON map
 * in the profile home (`codex_threads.json`, 0600), changed under its
 * cross-process lock and written atomically, so a resumed session goes on
 * in its thread. The newest {@link MAX_THREADS} entries are kept.
 *
 * @module
 */

import { join } from "node:path";
import type { CodexThreads } from "../../core/agent/codex_session.ts";
import { missing, withFileLock, writeFileAtomic } from "../fs/mod.ts";

/** Entries kept; older sessions resume in a new thread. */
export const MAX_THREADS = 1_000;

async function readMap(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (missing(error)) return {};
    throw error;
  }
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) {
      return Object.fromEntries(
        Object.entries(value).filter((entry): entry is [string, string] =>
          typeof entry[1] === "string"
        ),
      );
    }
  } catch {
    // A damaged map: sessions resume in new threads, and the next write replaces it.
  }
  return {};
}

/**
 * The thread map of the profile whose home is `home`.
 *
 * @example
 * ```ts
 * const threads = codexThreads(paths.home);
 * await threads.set("ses_1", "019a...");
 * ```
 */
export function codexThreads(home: string): CodexThreads {
  const path = join(home, "codex_threads.json");
  return {
    async get(sessionId) {
      return (await readMap(path))[sessionId];
    },
    async set(sessionId, threadId) {
      await withFileLock(path, async () => {
        const map = await readMap(path);
        if (map[sessionId] === threadId) return;
        delete map[sessionId];
        map[sessionId] = threadId;
        const entries = Object.entries(map).slice(-MAX_THREADS);
        await writeFileAtomic(path, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`, {
          mode: 0o600,
        });
      });
    },
  };
}
