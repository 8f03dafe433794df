/**
 * The files a session keeps beside the database: a transcript and, when
 * enabled, request dumps. Declared here next to the store contract
 * (store.ts); written by adapters/home/session_files.ts.
 *
 * @module
 */

/** A line of the transcript: one stored message. */
export interface TranscriptEntry {
  id: number;
  role: string;
  content: string | null;
  toolCalls?: unknown[] | null;
  toolCallId?: string | null;
  toolName?: string | null;
  timestamp: number;
}

/** Per-session files under the profile home. */
export interface SessionFiles {
  /** Appends messages to the session's transcript. */
  appendTranscript(sessionId: string, entries: readonly TranscriptEntry[]): Promise<void>;
  /** Saves one model request (`agent.dump_requests`). */
  dumpRequest(sessionId: string, sequence: number, request: unknown): Promise<void>;
  /** Deletes the session's transcript and request dumps; returns how many files went. */
  deleteSessionFiles(sessionId: string): Promise<number>;
}
