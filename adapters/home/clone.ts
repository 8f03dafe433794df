/**
 * Copying one profile home into another for `profile create --clone` and
 * `--clone-all`. Files keep their modes (and `.env` is always 0600) and
 * symbolic links stay links.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { DEFAULT_PROFILE } from "../../core/profiles/mod.ts";
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
]);

/**
 * Copies what `mode` selects from the `source` profile home into `target`,
 * an existing empty folder. Returns the copied paths relative to the home
 * (top-level entries for `all`), sorted. Missing sources are skipped.
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
): Promise<string[]> {
  const copied: string[] = [];
  if (mode === "config") {
    for (const entry of CLONE_CONFIG_ENTRIES) {
      const from = join(source.home, entry);
      if (!(await pathExists(from))) continue;
      const to = join(target, entry);
      await Deno.mkdir(dirname(to), { recursive: true, mode: 0o700 });
      await copyTree(from, to);
      copied.push(entry);
    }
    await keepSecretsPrivate(target);
    return copied;
  }
  if (!(await pathExists(source.home))) return copied; // a default home not used yet
  const fromRoot = source.name === DEFAULT_PROFILE;
  for await (const entry of Deno.readDir(source.home)) {
    if (CLONE_ALL_EXCLUDED.has(entry.name) || isTemporary(entry.name)) continue;
    if (fromRoot && CLONE_ALL_ROOT_EXCLUDED.has(entry.name)) continue;
    if (await copyTree(join(source.home, entry.name), join(target, entry.name))) {
      copied.push(entry.name);
    }
  }
  await keepSecretsPrivate(target);
  return copied.sort();
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
