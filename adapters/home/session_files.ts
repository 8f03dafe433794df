/**
 * Transcripts (`sessions/<id>.jsonl`) and request dumps
 * (`request-dumps/<id>-<time>-<n>.json`) of a profile.
 *
 * @module
 */

import { join } from "node:path";
import type { SessionFiles, TranscriptEntry } from "../../core/sessions/files.ts";
import type { ProfilePaths } from "./layout.ts";

/** Session files stored under a profile home. */
export function profileSessionFiles(paths: ProfilePaths): SessionFiles {
  const transcript = (id: string) => join(paths.sessions, `${id}.jsonl`);
  return {
    async appendTranscript(sessionId: string, entries: readonly TranscriptEntry[]) {
      const lines = entries.map((entry) => JSON.stringify(entry) + "\n").join("");
      await Deno.writeTextFile(transcript(sessionId), lines, { append: true, mode: 0o600 });
    },
    async dumpRequest(sessionId: string, sequence: number, request: unknown) {
      const name = `${sessionId}-${Date.now()}-${sequence}.json`;
      await Deno.writeTextFile(join(paths.requestDumps, name), JSON.stringify(request, null, 2), {
        mode: 0o600,
      });
    },
    async deleteSessionFiles(sessionId: string) {
      let removed = 0;
      const remove = async (path: string) => {
        try {
          await Deno.remove(path);
          removed++;
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
      };
      await remove(transcript(sessionId));
      try {
        for await (const entry of Deno.readDir(paths.requestDumps)) {
          if (entry.isFile && entry.name.startsWith(`${sessionId}-`)) {
            await remove(join(paths.requestDumps, entry.name));
          }
        }
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      return removed;
    },
  };
}
