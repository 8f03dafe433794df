/**
 * Copying one profile home into another for `profile create --clone` and
 * `--clone-all`. Files keep their modes (and `.env` is always 0600) and
 * symbolic links stay links. The messaging platforms' secrets (bot tokens)
 * are left out of the copied `.env` unless `keepChannels` is set, so two
 * profiles never serve the same bot.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { DEFAULT_PROFILE, stripChannelSecrets } from "../../core/profiles/mod.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import type { CloneMode } from "../../core/usecases/ports_home.ts";
import type { ProfilePaths } from "./layout.ts";
import { pathExists } from "../fs/read.ts";

export type { CloneMode } from "../../core/usecases/ports_home.ts";

/** What `--clone` copies, relative to the profile home. */
export const CLONE_CONFIG_ENTRIES: readonly string[] = [
  "config.yaml",
  ".env",
  "SOUL.md",
  "skills",
  "skill-bundles",
  "memories/MEMORY.md",
  "memories/USER.md",
];

/**
 * What `--clone-all` leaves out, at the top of the home: the history of the
 * source profile (state database, transcripts, request dumps, logs, backups,
 * snapshots, checkpoints), scheduled jobs (which would otherwise run twice)
 * and files that belong to a running process.
 */
export const CLONE_ALL_EXCLUDED: ReadonlySet<string> = new Set([
  "state.db",
  "state.db-wal",
  "state.db-shm",
  "state.db-journal",
  "sessions",
  "request-dumps",
  "backups",
  "state-snapshots",
  "checkpoints",
  "logs",
  "cron",
  "gateway.pid",
  "gateway_state.json",
  "processes.json",
]);

/**
 * What `--clone-all` also leaves out when the source is the default profile,
 * whose home is the root: the other profiles, the shared kanban board and
 * the root's own bookkeeping.
 */
export const CLONE_ALL_ROOT_EXCLUDED: ReadonlySet<string> = new Set([
  "profiles",
  "kanban.db",
  "kanban.db-wal",
  "kanban.db-shm",
  "kanban",
  "active_profile",
  ".herald-bootstrap-complete",
  "bin",
  "node_modules",
  // The installer's default checkout (installers/install.sh: $HERALD_HOME/herald-agent).
  "herald-agent",
]);

/** What {@link copyProfileContents} copied. */
export interface ClonedContents {
  /** Paths relative to the home (top-level entries for `all`), sorted. */
  copied: string[];
  /** Messaging secrets left out of the copied `.env` (none with `keepChannels`). */
  strippedSecrets: string[];
}

/** Options of {@link copyProfileContents}. */
export interface CloneOptions {
  /** Keep the messaging platforms' secrets in the copied `.env` (`--clone-channels`). */
  keepChannels?: boolean;
}

/**
 * Copies what `mode` selects from the `source` profile home into `target`,
 * an existing empty folder, leaving the messaging secrets out of `.env`
 * unless `options.keepChannels`. Missing sources are skipped.
 *
 * @example
 * ```ts
 * await copyProfileContents(profilePaths(root, "default"), stagingDir, "config");
 * ```
 */
export async function copyProfileContents(
  source: ProfilePaths,
  target: string,
  mode: CloneMode,
  options: CloneOptions = {},
): Promise<ClonedContents> {
  const copied = mode === "config"
    ? await copyConfigEntries(source, target)
    : await copyAllEntries(source, target);
  await keepSecretsPrivate(target);
  const strippedSecrets = options.keepChannels ? [] : await stripChannels(target);
  return { copied, strippedSecrets };
}

async function copyConfigEntries(source: ProfilePaths, target: string): Promise<string[]> {
  const copied: string[] = [];
  for (const entry of CLONE_CONFIG_ENTRIES) {
    const from = join(source.home, entry);
    if (!(await pathExists(from))) continue;
    const to = join(target, entry);
    await Deno.mkdir(dirname(to), { recursive: true, mode: 0o700 });
    await copyTree(from, to);
    copied.push(entry);
  }
  return copied;
}

async function copyAllEntries(source: ProfilePaths, target: string): Promise<string[]> {
  const copied: string[] = [];
  if (!(await pathExists(source.home))) return copied; // a default home not used yet
  const fromRoot = source.name === DEFAULT_PROFILE;
  for await (const entry of Deno.readDir(source.home)) {
    if (CLONE_ALL_EXCLUDED.has(entry.name) || isTemporary(entry.name)) continue;
    if (fromRoot && CLONE_ALL_ROOT_EXCLUDED.has(entry.name)) continue;
    if (await copyTree(join(source.home, entry.name), join(target, entry.name))) {
      copied.push(entry.name);
    }
  }
  return copied.sort();
}

/** Removes the messaging secrets from the copied `.env`; returns their names. */
async function stripChannels(target: string): Promise<string[]> {
  const env = join(target, ".env");
  const info = await Deno.lstat(env).catch(() => undefined);
  if (!info?.isFile) return [];
  const { text, removed } = stripChannelSecrets(await Deno.readTextFile(env));
  if (removed.length > 0) await writeFileAtomic(env, text, { mode: 0o600 });
  return removed;
}

/** `.env` holds secrets: a copy is 0600 whatever the source's mode was. */
async function keepSecretsPrivate(target: string): Promise<void> {
  const env = join(target, ".env");
  const info = await Deno.lstat(env).catch(() => undefined);
  if (info?.isFile) await Deno.chmod(env, 0o600);
}

/** Leftovers of an interrupted atomic write (`.<name>.<random>.tmp`). */
function isTemporary(name: string): boolean {
  return name.startsWith(".") && name.endsWith(".tmp");
}

/** Copies `from` to `to` (file, folder or link); false when it was skipped. */
async function copyTree(from: string, to: string): Promise<boolean> {
  const info = await Deno.lstat(from);
  const mode = (info.mode ?? 0o600) & 0o777;
  if (info.isSymlink) {
    await Deno.symlink(await Deno.readLink(from), to);
    return true;
  }
  if (info.isDirectory) {
    await Deno.mkdir(to, { mode: 0o700 });
    for await (const entry of Deno.readDir(from)) {
      if (isTemporary(entry.name)) continue;
      await copyTree(join(from, entry.name), join(to, entry.name));
    }
    await Deno.chmod(to, mode | 0o700);
    return true;
  }
  if (!info.isFile) return false; // sockets, pipes, devices: nothing to copy
  await Deno.copyFile(from, to);
  await Deno.chmod(to, mode);
  return true;
}
