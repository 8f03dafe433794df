/**
 * The stored side of one session, the same for every turn runtime: the
 * row is created with the first message (with a title given before, or the
 * first line), messages are appended to state.db and the transcript, and
 * the title, the end and the deletion go to the same row. Herald's own
 * loop and the Codex runtime both keep their sessions through it.
 *
 * @module
 */

import { NotFoundError } from "../errors.ts";
import { SessionTitleTakenError } from "../sessions/titles.ts";
import type { SessionFiles } from "../sessions/files.ts";
import type { NewMessage, SessionStore, StoredMessage } from "../sessions/store.ts";

/** Where a session is kept and what its row starts with. */
export interface SessionRecordOptions {
  store: SessionStore;
  /** Transcript files; omitted in tests that need none. */
  files?: SessionFiles;
  /** Surface that owns the session: `cli`, `dashboard`, `telegram`, ... */
  source: string;
  cwd: string;
  now?: () => number;
}

/** The title a session gets from its first message: its first line, at most 80 characters. */
export function titleFrom(text: string): string {
  const line = text.trim().split("\n")[0];
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

/**
 * One session's row and messages.
 *
 * @example
 * ```ts
 * const record = new SessionRecord({ store, source: "cli", cwd });
 * const id = record.ensure("Fix the build", { model: "gpt-5", systemPrompt: null });
 * await record.append([{ role: "user", content: "Fix the build" }]);
 * ```
 */
export class SessionRecord {
  readonly #options: SessionRecordOptions;
  #id: string | undefined;
  /** A title given before anything was stored (`/title`); stored with the session. */
  #pendingTitle: string | undefined;

  /** A record of the stored session `id`, or of one not stored yet. */
  constructor(options: SessionRecordOptions, id?: string) {
    this.#options = options;
    this.#id = id;
  }

  /** The stored id; undefined until the first message is stored. */
  get id(): string | undefined {
    return this.#id;
  }

  /** The current time of the session's clock. */
  now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /**
   * The session's id, creating its row first when nothing is stored yet
   * (titled by a pending `/title`, else by `firstText`'s first line).
   */
  ensure(firstText: string, row: { model: string | null; systemPrompt: string | null }): string {
    if (!this.#id) {
      this.#id = this.#options.store.createSession({
        source: this.#options.source,
        model: row.model,
        title: this.#pendingTitle ?? (titleFrom(firstText) || null),
        systemPrompt: row.systemPrompt,
        cwd: this.#options.cwd,
        startedAt: this.now(),
      }).id;
    }
    return this.#id;
  }

  /** Appends `messages` to the stored session (which must exist) and its transcript. */
  async append(messages: readonly NewMessage[]): Promise<StoredMessage[]> {
    const id = this.#id;
    if (!id) throw new Error("SessionRecord.append before the session was stored");
    const stored = this.#options.store.appendMessages(id, messages);
    await this.#options.files?.appendTranscript(id, stored);
    return stored;
  }

  /** The stored title, or the pending one; null when none. */
  get title(): string | null {
    if (!this.#id) return this.#pendingTitle ?? null;
    return this.#options.store.getSession(this.#id)?.title ?? null;
  }

  /**
   * Gives the session a title, unique within the profile; before anything
   * is stored it is kept and stored with the first message.
   *
   * @throws SessionTitleTakenError when another session has it.
   */
  setTitle(title: string): void {
    const { store } = this.#options;
    if (this.#id) {
      store.updateSession(this.#id, { title });
      return;
    }
    const holder = store.findSessionByTitle(title);
    if (holder) throw new SessionTitleTakenError(title, holder.id);
    this.#pendingTitle = title;
  }

  /** Records `ended_at` and `end_reason`; nothing when nothing was stored (or it was deleted). */
  end(reason: string): void {
    if (!this.#id) return;
    try {
      this.#options.store.endSession(this.#id, reason, this.now());
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // deleted meanwhile: nothing to end
    }
  }

  /** Deletes the session's rows and files. Returns false when nothing was stored. */
  async deleteStored(): Promise<boolean> {
    if (!this.#id) return false;
    const deleted = this.#options.store.deleteSession(this.#id);
    await this.#options.files?.deleteSessionFiles(this.#id);
    return deleted;
  }
}
