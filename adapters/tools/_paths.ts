/**
 * Path handling shared by the file tools: `~` expansion and resolution
 * against the session's working directory.
 *
 * @module
 */

import { isAbsolute, relative, resolve } from "node:path";

/** The user's home folder: the `HOME` (or `USERPROFILE`) variable, read when called. */
export function userHome(): string {
  return Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "/";
}

/**
 * Resolves a path the model gave: `~` and `~/x` expand to `home`, relative
 * paths are taken from `cwd`.
 *
 * @example
 * ```ts
 * resolveToolPath("src/a.ts", "/work", "/home/me"); // "/work/src/a.ts"
 * resolveToolPath("~/notes.md", "/work", "/home/me"); // "/home/me/notes.md"
 * ```
 */
export function resolveToolPath(path: string, cwd: string, home: string = userHome()): string {
  if (path === "~") return resolve(home);
  if (path.startsWith("~/")) return resolve(home, path.slice(2));
  return resolve(cwd, path);
}

/** `path` relative to `cwd` when it lies inside it, otherwise the absolute path. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === "") return ".";
  return rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}
