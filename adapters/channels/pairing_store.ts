/**
 * The profile's pairing store: `pairing.json` in the profile home (0600),
 * holding the pending pairing requests and the people approved by pairing.
 * Every change takes the file's lock (adapters/fs/file_lock.ts), reads the
 * file inside it and writes it atomically, so the gateway, `herald pairing`
 * and the dashboard never lose each other's change. Reads take no lock: an
 * atomic write is seen whole or not at all.
 *
 * A file that is not what Herald writes is never overwritten: every use of
 * the store fails with a {@link HeraldError} naming the file and what is
 * wrong, until the owner fixes or moves it aside.
 *
 * ```json
 * {
 *   "version": 1,
 *   "pending": [{ "platform": "telegram", "user_id": "111", "user_name": "Ann",
 *                 "chat_id": "111", "code": "ABCD2345",
 *                 "requested_at": 1700000000000, "expires_at": 1700003600000 }],
 *   "approved": [{ "platform": "telegram", "user_id": "222", "approved_at": 1700000000000 }]
 * }
 * ```
 *
 * @module
 */

import { isRecord } from "../../core/_util/json.ts";
import { join } from "node:path";
import {
  newPairingCode,
  normalizePairingCode,
  type PairedUser,
  PAIRING_CODE_TTL_MS,
  PAIRING_MAX_PENDING,
  type PairingList,
  type PairingRequest,
  type PairingStore,
} from "../../core/pairing/mod.ts";
import { HeraldError } from "../../core/errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { readTextOrEmpty } from "../fs/read.ts";

/** The name of the pairing file in a profile home. */
export const PAIRING_FILE = "pairing.json";

const FORMAT_VERSION = 1;

/** The file's content, in memory. */
interface PairingData {
  pending: PairingRequest[];
  approved: PairedUser[];
}

/**
 * Opens the pairing store of the profile at `home`. Nothing is read or
 * created until it is used; the first change creates the folder and file.
 *
 * @example
 * ```ts
 * const pairing = openPairingStore(paths.home);
 * const request = await pairing.request({ platform: "telegram", userId: "111", chatId: "111" }, Date.now());
 * await pairing.approve(request!.code, Date.now());
 * await pairing.isPaired("telegram", "111"); // true
 * ```
 */
export function openPairingStore(home: string): PairingStore & { readonly path: string } {
  const path = join(home, PAIRING_FILE);
  const read = async () => parsePairingFile(await readTextOrEmpty(path), path);
  const change = async <T>(edit: (data: PairingData) => { result: T; changed: boolean }) => {
    await Deno.mkdir(home, { recursive: true });
    return await withFileLock(path, async () => {
      const data = await read();
      const { result, changed } = edit(data);
      if (changed) {
        await writeFileAtomic(path, serialize(data), { mode: 0o600, forceMode: true });
      }
      return result;
    });
  };

  return {
    path,
    request(request, now) {
      return change((data) => {
        const dropped = dropExpired(data, now);
        const mine = data.pending.find((p) =>
          p.platform === request.platform && p.userId === request.userId
        );
        if (mine) return { result: { ...mine }, changed: dropped };
        const waiting = data.pending.filter((p) => p.platform === request.platform).length;
        if (waiting >= PAIRING_MAX_PENDING) return { result: null, changed: dropped };
        const taken = new Set(data.pending.map((p) => p.code));
        let code = newPairingCode();
        while (taken.has(code)) code = newPairingCode();
        const created: PairingRequest = {
          platform: request.platform,
          userId: request.userId,
          ...(request.userName === undefined ? {} : { userName: request.userName }),
          chatId: request.chatId,
          code,
          requestedAt: now,
          expiresAt: now + PAIRING_CODE_TTL_MS,
        };
        data.pending.push(created);
        return { result: { ...created }, changed: true };
      });
    },

    async isPaired(platform, userId) {
      const data = await read();
      return data.approved.some((user) => user.platform === platform && user.userId === userId);
    },

    async list(now) {
      const data = await read();
      return {
        pending: data.pending.filter((p) => p.expiresAt > now)
          .sort((a, b) => a.requestedAt - b.requestedAt),
        approved: [...data.approved].sort((a, b) => a.approvedAt - b.approvedAt),
      } satisfies PairingList;
    },

    approve(code, now, platform) {
      const wanted = normalizePairingCode(code);
      return change((data) => {
        dropExpired(data, now);
        const index = data.pending.findIndex((p) => p.code === wanted);
        if (index < 0) {
          throw unknownCode(code, data.pending.length, path);
        }
        const found = data.pending[index];
        if (platform !== undefined && found.platform !== platform) {
          throw new HeraldError(
            "pairing_code_unknown",
            "not_found",
            `No pending ${platform} pairing request has the code "${code}" (that code was given ` +
              `on ${found.platform}); check the platform, or approve it without one`,
            { details: { code, platform } },
          );
        }
        const [request] = data.pending.splice(index, 1);
        const user: PairedUser = {
          platform: request.platform,
          userId: request.userId,
          ...(request.userName === undefined ? {} : { userName: request.userName }),
          approvedAt: now,
        };
        data.approved = data.approved.filter((u) =>
          !(u.platform === user.platform && u.userId === user.userId)
        );
        data.approved.push(user);
        return { result: { ...user }, changed: true };
      });
    },

    revoke(platform, userId) {
      return change((data) => {
        const before = data.pending.length + data.approved.length;
        const other = (entry: { platform: string; userId: string }) =>
          !(entry.platform === platform && entry.userId === userId);
        data.pending = data.pending.filter(other);
        data.approved = data.approved.filter(other);
        const found = data.pending.length + data.approved.length < before;
        return { result: found, changed: found };
      });
    },
  };
}

/** Removes the requests that expired at `now`; true when there were any. */
function dropExpired(data: PairingData, now: number): boolean {
  const kept = data.pending.filter((p) => p.expiresAt > now);
  const dropped = kept.length < data.pending.length;
  data.pending = kept;
  return dropped;
}

function unknownCode(code: string, pending: number, path: string): HeraldError {
  const waiting = pending === 0
    ? "no pairing request is pending"
    : `${pending} pairing request${
      pending === 1 ? " is" : "s are"
    } pending (see \`herald pairing list\`)`;
  return new HeraldError(
    "pairing_code_unknown",
    "not_found",
    `No pending pairing request has the code "${code}" (codes expire after 1 hour; ` +
      `check the spelling, or ask the person to message the bot again for a new one); ${waiting}`,
    { details: { code, pending, file: path } },
  );
}

function serialize(data: PairingData): string {
  return JSON.stringify(
    {
      version: FORMAT_VERSION,
      pending: data.pending.map((p) => ({
        platform: p.platform,
        user_id: p.userId,
        ...(p.userName === undefined ? {} : { user_name: p.userName }),
        chat_id: p.chatId,
        code: p.code,
        requested_at: p.requestedAt,
        expires_at: p.expiresAt,
      })),
      approved: data.approved.map((u) => ({
        platform: u.platform,
        user_id: u.userId,
        ...(u.userName === undefined ? {} : { user_name: u.userName }),
        approved_at: u.approvedAt,
      })),
    },
    null,
    2,
  ) + "\n";
}

/** The error for a pairing file that is not what Herald writes. */
function corrupt(path: string, reason: string, cause?: unknown): HeraldError {
  return new HeraldError(
    "pairing_file_invalid",
    "parse",
    `${path}: ${reason}; fix the file or move it aside (Herald leaves it untouched, ` +
      "and no pairing change is saved until then)",
    { details: { file: path, reason }, ...(cause === undefined ? {} : { cause }) },
  );
}

/**
 * Reads the text of a pairing file; "" (no file) is an empty store.
 *
 * @throws HeraldError `pairing_file_invalid` naming the file and the first problem.
 */
export function parsePairingFile(text: string, path: string): PairingData {
  if (text.trim() === "") return { pending: [], approved: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, `not valid JSON (${(error as Error).message})`, error);
  }
  if (!isRecord(value)) throw corrupt(path, "expected a JSON object");
  if (value.version !== FORMAT_VERSION) {
    throw corrupt(
      path,
      `"version" is ${JSON.stringify(value.version)}, this Herald reads version ${FORMAT_VERSION}`,
    );
  }
  const pending = listAt(value, "pending", path).map((entry, i) => {
    const field = fieldReader(entry, `pending[${i}]`, path);
    return {
      platform: field.text("platform"),
      userId: field.text("user_id"),
      ...optional("userName", field.optionalText("user_name")),
      chatId: field.text("chat_id"),
      code: field.text("code"),
      requestedAt: field.time("requested_at"),
      expiresAt: field.time("expires_at"),
    } satisfies PairingRequest;
  });
  const approved = listAt(value, "approved", path).map((entry, i) => {
    const field = fieldReader(entry, `approved[${i}]`, path);
    return {
      platform: field.text("platform"),
      userId: field.text("user_id"),
      ...optional("userName", field.optionalText("user_name")),
      approvedAt: field.time("approved_at"),
    } satisfies PairedUser;
  });
  return { pending, approved };
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function listAt(value: Record<string, unknown>, key: string, path: string): unknown[] {
  const list = value[key] ?? [];
  if (!Array.isArray(list)) throw corrupt(path, `"${key}" is not a list`);
  return list;
}

/** Reads the typed fields of one entry, failing with the entry's place in the file. */
function fieldReader(entry: unknown, where: string, path: string) {
  if (!isRecord(entry)) throw corrupt(path, `${where} is not an object`);
  const text = (key: string): string => {
    const value = entry[key];
    if (typeof value !== "string" || value === "") {
      throw corrupt(path, `${where}.${key} is missing or not a non-empty string`);
    }
    return value;
  };
  return {
    text,
    optionalText: (key: string): string | undefined =>
      entry[key] === undefined ? undefined : text(key),
    time(key: string): number {
      const value = entry[key];
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw corrupt(path, `${where}.${key} is missing or not a number`);
      }
      return value;
    },
  };
}
