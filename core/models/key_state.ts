/**
 * The key pools' state as kept on disk (`auth_state.json` in the profile
 * home), so `herald auth list` can show each key's state and a new process
 * does not walk into a cooldown another one found. Per key it holds the
 * masked key (to notice that the variable now holds another key), the end
 * of its cooldown and its last error. Never a key.
 *
 * @module
 */

import { z } from "zod";
import { MODEL_FAILURES } from "./failure.ts";
import { type KeyStatus, maskKey, type PooledKey } from "./key_pool.ts";

/** The name of the state file in a profile home. */
export const KEY_STATE_FILE = "auth_state.json";

/** One key's record. */
const KeyRecordSchema = z.object({
  /** The key masked (`sk-…abcd`): a record whose mask differs belongs to an older key. */
  key: z.string(),
  /** ISO time until which the key rests, or null. */
  cooldown_until: z.string().nullable().default(null),
  /** The key's last failure, or null. */
  last_error: z.object({
    status: z.number().int().nullable(),
    failure: z.enum(MODEL_FAILURES),
    at: z.string(),
  }).nullable().default(null),
  /** ISO time of the last change. */
  updated_at: z.string(),
});

/** The whole file: records by provider, then by key source (`OPENAI_API_KEY_2`). */
const KeyStateFileSchema = z.object({
  version: z.literal(1),
  providers: z.record(z.string(), z.record(z.string(), KeyRecordSchema)),
});

/** One key's record. */
export type KeyRecord = z.infer<typeof KeyRecordSchema>;

/** The state file's content. */
export type KeyStateFile = z.infer<typeof KeyStateFileSchema>;

/**
 * Where the state lives: reading it, and changing it under a lock so two
 * processes do not lose each other's records. adapters/models implements it.
 */
export interface KeyStateStore {
  /** Path of the file, for messages and views. */
  readonly path: string;
  /** The file's content; a missing or unreadable file is an empty state. */
  read(): Promise<KeyStateFile>;
  /** Applies `change` to the content as it is now and writes the result atomically. */
  update(change: (state: KeyStateFile) => KeyStateFile): Promise<void>;
}

/** A state with no records. */
export function emptyKeyState(): KeyStateFile {
  return { version: 1, providers: {} };
}

/**
 * Reads the file's text; anything that is not a valid state (not JSON,
 * another version, a damaged record) is an empty state, never an error.
 */
export function parseKeyState(text: string): KeyStateFile {
  if (text.trim() === "") return emptyKeyState();
  try {
    const parsed = KeyStateFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : emptyKeyState();
  } catch {
    return emptyKeyState();
  }
}

/**
 * The state with `key`'s record set from `status` at `now` (epoch ms).
 * Keyless entries are not recorded.
 */
export function withKeyStatus(
  state: KeyStateFile,
  provider: string,
  key: PooledKey,
  status: KeyStatus,
  now: number,
): KeyStateFile {
  if (key.key === undefined) return state;
  const error = status.lastError;
  const record: KeyRecord = {
    key: maskKey(key.key),
    cooldown_until: status.cooldownUntil === undefined ? null : iso(status.cooldownUntil),
    last_error: error
      ? { status: error.status ?? null, failure: error.failure, at: iso(error.at) }
      : null,
    updated_at: iso(now),
  };
  const records = { ...(state.providers[provider] ?? {}), [key.source]: record };
  return { ...state, providers: { ...state.providers, [provider]: records } };
}

/** The state without the records of `provider` (every provider when absent). */
export function withoutKeyStatus(state: KeyStateFile, provider?: string): KeyStateFile {
  if (provider === undefined) return emptyKeyState();
  const { [provider]: _dropped, ...rest } = state.providers;
  return { ...state, providers: rest };
}

/**
 * What the file says about `key` of `provider`, as a pool status; undefined
 * when it says nothing or its record belongs to another key.
 */
export function recordedStatus(
  state: KeyStateFile,
  provider: string,
  key: PooledKey,
): KeyStatus | undefined {
  const record = key.key === undefined ? undefined : state.providers[provider]?.[key.source];
  if (!record || record.key !== maskKey(key.key!)) return undefined;
  const until = record.cooldown_until === null ? NaN : Date.parse(record.cooldown_until);
  const error = record.last_error;
  const at = error ? Date.parse(error.at) : NaN;
  return {
    rateLimitStreak: 0,
    ...(Number.isNaN(until) ? {} : { cooldownUntil: until }),
    ...(error && !Number.isNaN(at)
      ? {
        lastError: {
          ...(error.status === null ? {} : { status: error.status }),
          failure: error.failure,
          at,
        },
      }
      : {}),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
