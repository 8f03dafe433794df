/**
 * Small file-system helpers shared by the skills adapters.
 *
 * @module
 */

import { join } from "node:path";
import { isDirectory as isDirectoryOrThrow, isFile as isFileOrThrow, missing } from "../fs/read.ts";

/** Entries of `dir` sorted by name; a missing folder (or a file in its place) has none. */
export async function readDirSorted(dir: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch (error) {
    if (missing(error)) return [];
    throw error;
  }
  return entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** True when `path` is a folder (following a symbolic link); an unreadable path is not one. */
export function isDirectory(path: string): Promise<boolean> {
  return isDirectoryOrThrow(path).catch(() => false);
}

/** True when `path` is a file (following a symbolic link); an unreadable path is not one. */
export function isFile(path: string): Promise<boolean> {
  return isFileOrThrow(path).catch(() => false);
}

/** True when an entry of `dir` is a folder, following a symbolic link. */
export async function entryIsDirectory(dir: string, entry: Deno.DirEntry): Promise<boolean> {
  return entry.isDirectory || (entry.isSymlink && await isDirectory(join(dir, entry.name)));
}

/** Names never treated as skill content: caches, editor and OS litter. */
const JUNK = new Set([".DS_Store", "Thumbs.db", "__pycache__", ".pytest_cache", ".git"]);

/** True for a file or folder name that a scan or a hash skips. */
export function isJunk(name: string): boolean {
  return JUNK.has(name) || name.endsWith(".pyc");
}

/**
 * Files under `dir`, relative with `/` separators, sorted; hidden names and
 * junk are skipped. Stops after `limit` files.
 */
export async function listFiles(
  dir: string,
  options: { skipHidden?: boolean; limit?: number } = {},
): Promise<string[]> {
  const files: string[] = [];
  const limit = options.limit ?? Infinity;
  async function walk(folder: string, prefix: string): Promise<void> {
    for (const entry of await readDirSorted(folder)) {
      if (files.length >= limit) return;
      if (isJunk(entry.name) || (options.skipHidden && entry.name.startsWith("."))) continue;
      const path = join(folder, entry.name);
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (await entryIsDirectory(folder, entry)) await walk(path, rel);
      else if (entry.isFile || (entry.isSymlink && await isFile(path))) files.push(rel);
    }
  }
  await walk(dir, "");
  return files.sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
}
