/**
 * Which session each chat continues, kept across gateway restarts:
 * `gateway_chats.json` in the profile home, `{ version, chats: { "<platform>:<chat>[:<thread>]":
 * { session_id, updated_at } } }`, behind core's {@link ChatSessionStore}.
 *
 * A JSON file rather than a table in state.db: the gateway writes it only
 * when a chat's session changes (its first turn, `/new`, `/exit`), one
 * gateway per profile writes it, and it sits beside `pairing.json` where a
 * person can read or edit it; a table would add a migration every other
 * state.db reader must know for a handful of rare writes. Every change is
 * made under the file's lock (adapters/fs/file_lock.ts) on the file as it
 * is now, and written atomically. A file that cannot be read as one is set
 * aside as `gateway_chats.json.corrupt-<time>` before the next write, never
 * overwritten; its chats start new sessions (their old ones stay stored).
 *
 * @module
 */

import { isRecord } from "../../core/_util/json.ts";
import { join } from "node:path";
import { type ChatAddress, formatAddress } from "../../core/channels/contract.ts";
import type { ChatSessionStore } from "../../core/gateway/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { missing, readTextOrEmpty } from "../fs/read.ts";

/** The file's name in a profile home. */
export const CHAT_SESSIONS_FILE = "gateway_chats.json";

const FORMAT_VERSION = 1;

interface ChatEntry {
  session_id: string;
  updated_at: number;
}

/** The file's content; `corrupt` when it exists but is not one. */
interface ChatFile {
  chats: Map<string, ChatEntry>;
  corrupt: boolean;
}

/** Reads the file's text: absent or empty is no chats; anything else unreadable is corrupt. */
function parseChatSessions(text: string): ChatFile {
  const chats = new Map<string, ChatEntry>();
  if (text.trim() === "") return { chats, corrupt: false };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { chats, corrupt: true };
  }
  if (!isRecord(value) || value.version !== FORMAT_VERSION || !isRecord(value.chats)) {
    return { chats, corrupt: true };
  }
  for (const [key, entry] of Object.entries(value.chats)) {
    if (!isRecord(entry) || typeof entry.session_id !== "string" || entry.session_id === "") {
      continue;
    }
    const updated = typeof entry.updated_at === "number" ? entry.updated_at : 0;
    chats.set(key, { session_id: entry.session_id, updated_at: updated });
  }
  return { chats, corrupt: false };
}

function serialize(chats: Map<string, ChatEntry>): string {
  const sorted = [...chats].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({ version: FORMAT_VERSION, chats: Object.fromEntries(sorted) }, null, 2) +
    "\n";
}

/** The chat-session store with where it keeps its file. */
export interface FileChatSessionStore extends ChatSessionStore {
  readonly path: string;
  get(address: ChatAddress): Promise<string | undefined>;
  set(address: ChatAddress, sessionId: string): Promise<void>;
  delete(address: ChatAddress): Promise<void>;
  /** Every chat the file names, by key order (`herald send --list`). */
  list(): Promise<ChatAddress[]>;
}

/** `telegram:-100123:7` → its address; undefined for a key that is not one. */
function addressOf(key: string): ChatAddress | undefined {
  const colon = key.indexOf(":");
  if (colon <= 0) return undefined;
  const [chatId, threadId, ...more] = key.slice(colon + 1).split(":");
  if (chatId === "" || threadId === "" || more.length > 0) return undefined;
  return {
    platform: key.slice(0, colon),
    chatId,
    ...(threadId === undefined ? {} : { threadId }),
  };
}

/**
 * Opens the chat-session store of the profile at `home`. Nothing is read
 * or created until it is used.
 *
 * @example
 * ```ts
 * const chats = openChatSessionStore(paths.home);
 * await chats.set({ platform: "telegram", chatId: "42" }, "ses_1");
 * await chats.get({ platform: "telegram", chatId: "42" }); // "ses_1"
 * ```
 */
export function openChatSessionStore(
  home: string,
  now: () => number = Date.now,
): FileChatSessionStore {
  const path = join(home, CHAT_SESSIONS_FILE);
  const change = async (edit: (chats: Map<string, ChatEntry>) => boolean) => {
    await Deno.mkdir(home, { recursive: true });
    await withFileLock(path, async () => {
      const file = parseChatSessions(await readTextOrEmpty(path));
      if (file.corrupt) await setAside(path, now());
      if (edit(file.chats) || file.corrupt) {
        await writeFileAtomic(path, serialize(file.chats), { mode: 0o600 });
      }
    });
  };
  return {
    path,
    async get(address) {
      return parseChatSessions(await readTextOrEmpty(path)).chats.get(formatAddress(address))
        ?.session_id;
    },
    set(address, sessionId) {
      return change((chats) => {
        const key = formatAddress(address);
        if (chats.get(key)?.session_id === sessionId) return false;
        chats.set(key, { session_id: sessionId, updated_at: now() });
        return true;
      });
    },
    delete(address) {
      return change((chats) => chats.delete(formatAddress(address)));
    },
    async list() {
      const keys = [...parseChatSessions(await readTextOrEmpty(path)).chats.keys()].sort();
      return keys.map(addressOf).filter((address) => address !== undefined);
    },
  };
}

/** Renames an unreadable file aside, keeping what it held. */
async function setAside(path: string, time: number): Promise<void> {
  try {
    await Deno.rename(path, `${path}.corrupt-${time}`);
  } catch (error) {
    if (!missing(error)) throw error;
  }
}
