/**
 * The API server's stored state, in files under the channel's data folder:
 *
 * - `responses/<id>.json`: a stored response (what `GET /v1/responses/{id}`
 *   returns) and the session its turn ran in, so `previous_response_id`
 *   continues that session;
 * - `conversations.json`: each named conversation's session and latest
 *   response, so a request naming the conversation continues it without
 *   sending an id.
 *
 * Every file is written atomically; `conversations.json` changes under its
 * lock. Nothing is pruned: a response stays until `DELETE /v1/responses/{id}`.
 * A file that is not valid JSON is never overwritten: a corrupt
 * `conversations.json` is moved aside (`conversations.json.corrupt-<ms>`)
 * and the move logged, a corrupt response file reads as missing.
 *
 * @module
 */

import { isRecord } from "../../../core/_util/json.ts";
import { join } from "node:path";
import { missing, updateTextFile, writeFileAtomic } from "../../fs/mod.ts";

/** A stored response. */
export interface StoredResponse {
  id: string;
  /** The session the turn ran in; null when nothing was stored (a command's reply in a new conversation). */
  sessionId: string | null;
  /** The named conversation it belongs to, if any. */
  conversation: string | null;
  /** ms since the epoch. */
  createdAt: number;
  /** The response object, as the API returns it. */
  response: Record<string, unknown>;
}

/** Where a named conversation stands. */
export interface ConversationRecord {
  /** The session its turns run in; null until one was stored. */
  sessionId: string | null;
  /** Its latest response (null when that one was not stored). */
  responseId: string | null;
  /** ms since the epoch. */
  updatedAt: number;
}

/** What a response id looks like: `resp_` and 32 hex digits. */
export const RESPONSE_ID = /^resp_[0-9a-f]{32}$/;

const CONVERSATIONS_FILE = "conversations.json";

function asConversation(value: unknown): ConversationRecord | undefined {
  if (!isRecord(value)) return undefined;
  const { sessionId, responseId, updatedAt } = value;
  if (sessionId !== null && typeof sessionId !== "string") return undefined;
  if (responseId !== null && typeof responseId !== "string") return undefined;
  if (typeof updatedAt !== "number") return undefined;
  return { sessionId, responseId, updatedAt };
}

/** The conversations in `text` (a map from name to record), or null when it is not valid. */
function parseConversations(text: string): Map<string, ConversationRecord> | null {
  if (text.trim() === "") return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(parsed) || !isRecord(parsed.conversations)) return null;
  const map = new Map<string, ConversationRecord>();
  for (const [name, value] of Object.entries(parsed.conversations)) {
    const record = asConversation(value);
    if (record) map.set(name, record);
  }
  return map;
}

function serializeConversations(map: Map<string, ConversationRecord>): string {
  return `${JSON.stringify({ version: 1, conversations: Object.fromEntries(map) }, null, 2)}\n`;
}

/** The API server's responses and named conversations, in files under `dir`. */
export class ResponseStore {
  readonly #dir: string;
  readonly #log: (message: string) => void;

  /** A store in `dir` (created on the first write); `log` hears about corrupt files. */
  constructor(dir: string, log: (message: string) => void) {
    this.#dir = dir;
    this.#log = log;
  }

  #responsePath(id: string): string {
    return join(this.#dir, "responses", `${id}.json`);
  }

  get #conversationsPath(): string {
    return join(this.#dir, CONVERSATIONS_FILE);
  }

  /** The stored response `id`, or undefined when there is none. */
  async get(id: string): Promise<StoredResponse | undefined> {
    if (!RESPONSE_ID.test(id)) return undefined;
    let text: string;
    try {
      text = await Deno.readTextFile(this.#responsePath(id));
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
    try {
      const parsed = JSON.parse(text);
      if (isRecord(parsed) && parsed.id === id && isRecord(parsed.response)) {
        return parsed as unknown as StoredResponse;
      }
    } catch {
      // Reported below.
    }
    this.#log(`API server: stored response ${id} is not valid JSON; it reads as missing`);
    return undefined;
  }

  /** Stores `record` (replacing one with the same id). */
  async save(record: StoredResponse): Promise<void> {
    await Deno.mkdir(join(this.#dir, "responses"), { recursive: true });
    await writeFileAtomic(this.#responsePath(record.id), `${JSON.stringify(record)}\n`);
  }

  /** Deletes the stored response `id`; false when there was none. */
  async delete(id: string): Promise<boolean> {
    if (!RESPONSE_ID.test(id)) return false;
    try {
      await Deno.remove(this.#responsePath(id));
      return true;
    } catch (error) {
      if (missing(error)) return false;
      throw error;
    }
  }

  /** Where the conversation `name` stands, or undefined when it has no turn yet. */
  async conversation(name: string): Promise<ConversationRecord | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#conversationsPath);
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
    const map = parseConversations(text);
    if (map === null) {
      this.#log(
        `API server: ${this.#conversationsPath} is not valid; it is set aside on the next turn`,
      );
      return undefined;
    }
    return map.get(name);
  }

  /** Records where the conversation `name` stands now. */
  async setConversation(name: string, record: ConversationRecord): Promise<void> {
    await Deno.mkdir(this.#dir, { recursive: true });
    const path = this.#conversationsPath;
    await updateTextFile(path, async (current) => {
      let map = parseConversations(current);
      if (map === null) {
        const aside = `${path}.corrupt-${Date.now()}`;
        await Deno.rename(path, aside);
        this.#log(`API server: ${path} was not valid; moved it to ${aside} and started afresh`);
        map = new Map();
      }
      map.set(name, record);
      return serializeConversations(map);
    });
  }
}
