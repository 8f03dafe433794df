/**
 * The files a gateway process keeps, and the locks that keep gateways
 * apart:
 *
 * - `gateway.pid` in the profile home: the gateway's pid, and an OS lock
 *   (`flock`) on it for as long as the process lives. The lock is what
 *   makes one gateway per profile: a second one cannot take it, and a
 *   crashed or killed gateway releases it at once, so a pid file whose lock
 *   is free is stale whatever pid it names (a reused pid is never taken
 *   for the gateway).
 * - `gateway.json` in the profile home: the state file (pid, start time,
 *   heartbeat, each platform's state; core/usecases/gateway.ts), written
 *   atomically.
 * - `gateway-locks/<platform>-<hash>.lock` in the root home: one per bot
 *   credential a running gateway uses (the hash of the channel's
 *   `credentialKey`), locked while it runs and naming the profile that
 *   holds it, so two profiles never run the same bot.
 *
 * Lock files are opened close-on-exec, so the programs the agent starts
 * never inherit (and never keep) a lock.
 *
 * @module
 */

import { sha256Hex } from "../../core/_util/hash.ts";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic.ts";
import { missing, readTextOrEmpty } from "../fs/read.ts";
import {
  type GatewayProcessFiles,
  type GatewayStateRecord,
  parseGatewayState,
} from "../../core/usecases/gateway.ts";

/** The pid file's name in a profile home. */
export const GATEWAY_PID_FILE = "gateway.pid";
/** The state file's name in a profile home. */
export const GATEWAY_STATE_FILE = "gateway.json";
/** The folder of credential locks in the root home. */
export const CREDENTIAL_LOCKS_DIR = "gateway-locks";

/** How long taking the pid file's lock is retried while a status reader peeks at it (ms). */
const ACQUIRE_RETRY_MS = 1_500;
const RETRY_STEP_MS = 50;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The gateway files of one profile home (see the module documentation). */
export interface GatewayFiles extends GatewayProcessFiles {
  readonly pidPath: string;
  readonly statePath: string;
  /** Where `herald gateway start` sends the process's output. */
  readonly logPath: string;
  /**
   * Takes the profile's gateway lock for this process and writes `pid`
   * into the pid file; `{ held: false }` with the other gateway's pid when
   * one runs.
   */
  acquire(pid: number): Promise<PidLock | { held: false; pid?: number }>;
  /** Writes the state file atomically. */
  writeState(record: GatewayStateRecord): Promise<void>;
}

/** The profile's gateway lock, held by this process. */
export interface PidLock {
  held: true;
  /** Removes the pid file and releases the lock. Safe to call twice. */
  release(): Promise<void>;
}

/**
 * Whether process `pid` runs. Linux reads /proc (a zombie counts as gone);
 * other Unix systems ask `ps`; where neither answers it is assumed alive
 * (the pid file's lock decides).
 */
export async function processAlive(pid: number): Promise<boolean> {
  const stat = await procStat(pid);
  if (stat !== undefined) return stat.state !== "Z" && stat.state !== "X";
  if (Deno.build.os === "linux") return false;
  const ps = await psField(pid, "stat");
  return ps === undefined ? Deno.build.os === "windows" : ps !== "" && !ps.startsWith("Z");
}

/** The process group of `pid`, when it can be found out. */
export async function processGroupOf(pid: number): Promise<number | undefined> {
  const stat = await procStat(pid);
  if (stat !== undefined) return stat.pgrp;
  const ps = await psField(pid, "pgid");
  const pgid = ps === undefined ? NaN : Number(ps);
  return Number.isInteger(pgid) && pgid > 0 ? pgid : undefined;
}

/** State and group from /proc/<pid>/stat; undefined off Linux or when there is no such process. */
async function procStat(pid: number): Promise<{ state: string; pgrp: number } | undefined> {
  if (Deno.build.os !== "linux") return undefined;
  let text: string;
  try {
    text = await Deno.readTextFile(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], pgrp: Number(fields[2]) };
}

/** `ps -o <field>= -p <pid>`, trimmed; "" when no such process; undefined when `ps` cannot run. */
async function psField(pid: number, field: string): Promise<string | undefined> {
  if (Deno.build.os === "windows") return undefined;
  try {
    const output = await new Deno.Command("ps", {
      args: ["-o", `${field}=`, "-p", String(pid)],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return new TextDecoder().decode(output.stdout).trim();
  } catch {
    return undefined;
  }
}

/** True when another process holds an OS lock on `path` (peeks with a shared lock, at once released). */
async function lockHeld(path: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (missing(error)) return false;
    throw error;
  }
  try {
    const free = await file.tryLock(false);
    if (free) await file.unlock();
    return !free;
  } finally {
    file.close();
  }
}

/** The same file (device and inode) as the one at `path` now. */
async function stillAt(file: Deno.FsFile, path: string): Promise<boolean> {
  try {
    const [open, current] = await Promise.all([file.stat(), Deno.stat(path)]);
    return open.ino === current.ino && open.dev === current.dev;
  } catch (error) {
    if (missing(error)) return false;
    throw error;
  }
}

/**
 * Takes an exclusive OS lock on `path` (creating it), without waiting: the
 * open file, or undefined when another process holds it. A file removed by
 * its last holder while this process opened it is tried again.
 */
async function tryLockFile(path: string): Promise<Deno.FsFile | undefined> {
  for (;;) {
    const file = await Deno.open(path, { read: true, write: true, create: true, mode: 0o644 });
    let keep = false;
    try {
      if (!(await file.tryLock(true))) return undefined;
      if (await stillAt(file, path)) {
        keep = true;
        return file;
      }
    } finally {
      if (!keep) file.close();
    }
  }
}

/** Replaces the content of a locked file with `text`. */
async function rewrite(file: Deno.FsFile, text: string): Promise<void> {
  await file.truncate(0);
  await file.seek(0, Deno.SeekMode.Start);
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** Removes `path` when it is still `file`, then closes (and so unlocks) it. */
async function removeAndClose(file: Deno.FsFile, path: string): Promise<void> {
  try {
    if (await stillAt(file, path)) await Deno.remove(path).catch(() => {});
  } finally {
    file.close();
  }
}

function parsePid(text: string): number | undefined {
  const pid = Number(text.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * The gateway files of the profile at `home`.
 *
 * @example
 * ```ts
 * const files = gatewayFiles(paths.home);
 * const lock = await files.acquire(Deno.pid);
 * if (!lock.held) throw new Error(`already running (pid ${lock.pid})`);
 * ```
 */
export function gatewayFiles(home: string): GatewayFiles {
  const pidPath = join(home, GATEWAY_PID_FILE);
  const statePath = join(home, GATEWAY_STATE_FILE);
  const readPid = async () => parsePid(await readTextOrEmpty(pidPath));
  const readState = async () => parseGatewayState(await readTextOrEmpty(statePath));
  const writeState = (record: GatewayStateRecord) =>
    writeFileAtomic(statePath, JSON.stringify(record, null, 2) + "\n", { mode: 0o644 });

  return {
    pidPath,
    statePath,
    logPath: join(home, "logs", "gateway.log"),
    readPid,
    readState,
    writeState,
    async isRunning(pid) {
      return await lockHeld(pidPath) && await processAlive(pid);
    },
    async clearStale(pid) {
      // Holding the lock proves no gateway runs; a gateway starting meanwhile
      // waits for it, then sees the file gone and makes its own.
      const file = await tryLockFile(pidPath);
      if (!file) return false;
      try {
        const record = await readState();
        if (record && record.pid === pid && record.status !== "stopped") {
          await writeState({ ...record, status: "stopped" });
        }
        return true;
      } finally {
        await removeAndClose(file, pidPath);
      }
    },
    async acquire(pid) {
      await Deno.mkdir(home, { recursive: true });
      // A status reader peeking at the lock holds it for a moment: try again briefly.
      const deadline = Date.now() + ACQUIRE_RETRY_MS;
      let file = await tryLockFile(pidPath);
      while (!file && Date.now() < deadline) {
        await delay(RETRY_STEP_MS);
        file = await tryLockFile(pidPath);
      }
      if (!file) {
        const other = await readPid();
        return other === undefined ? { held: false } : { held: false, pid: other };
      }
      const lock = file;
      await rewrite(lock, `${pid}\n`);
      let released: Promise<void> | undefined;
      return {
        held: true,
        release: () => released ??= removeAndClose(lock, pidPath),
      };
    },
  };
}

/** Who holds a credential lock. */
export interface CredentialHolder {
  profile: string;
  pid: number;
}

/** A bot credential held by this gateway. */
export interface CredentialLock {
  held: true;
  /** Releases the lock (the file stays, unlocked). Safe to call twice. */
  release(): void;
}

/** The lock file of `platform`'s credential `key` under the root home `root`. */
export async function credentialLockPath(
  root: string,
  platform: string,
  key: string,
): Promise<string> {
  const safe = platform.replace(/[^A-Za-z0-9_-]/g, "_");
  return join(root, CREDENTIAL_LOCKS_DIR, `${safe}-${(await sha256Hex(key)).slice(0, 32)}.lock`);
}

/**
 * Takes the lock of `platform`'s bot credential `key` for `holder`, or
 * says who holds it (`holder` undefined when the holder has not written
 * its name yet). The key itself is never written: the file is named by its
 * hash.
 */
export async function acquireCredentialLock(
  root: string,
  platform: string,
  key: string,
  holder: CredentialHolder,
): Promise<CredentialLock | { held: false; holder?: CredentialHolder }> {
  const path = await credentialLockPath(root, platform, key);
  await Deno.mkdir(join(root, CREDENTIAL_LOCKS_DIR), { recursive: true });
  const file = await tryLockFile(path);
  if (!file) {
    const other = parseHolder(await readTextOrEmpty(path));
    return other === undefined ? { held: false } : { held: false, holder: other };
  }
  await rewrite(file, JSON.stringify({ ...holder, platform }) + "\n");
  let released = false;
  return {
    held: true,
    release() {
      if (released) return;
      released = true;
      file.close();
    },
  };
}

function parseHolder(text: string): CredentialHolder | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown>;
    if (typeof value.profile === "string" && typeof value.pid === "number") {
      return { profile: value.profile, pid: value.pid };
    }
  } catch {
    // Being written, or not ours: the caller says "another profile".
  }
  return undefined;
}
