/**
 * Where a language server's program comes from. A bare name (such as
 * `typescript-language-server`) is looked up in Herald's own checkout's
 * `node_modules/.bin` first (a source checkout has the pinned servers
 * there once deno has run), then on PATH; a path is taken as it is,
 * relative to the working directory. The workspace's own `node_modules`
 * is not searched: writing a file in a repository must not run programs
 * that repository ships. Not found: the server is skipped.
 *
 * @module
 */

import { isAbsolute, join } from "node:path";
import { heraldCheckout } from "../process/herald_command.ts";

function runnable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** Options of {@link resolveServerProgram}. */
export interface ResolveOptions {
  /** Folder relative program paths are read against. */
  cwd: string;
  /** PATH to search. */
  path?: string;
  /** Herald's checkout (default: {@link heraldCheckout}); its node_modules/.bin is searched first. */
  checkout?: string;
}

/**
 * The absolute path of `program`, or undefined when it is nowhere.
 *
 * @example
 * ```ts
 * resolveServerProgram("pyright-langserver", { cwd: "/work", path: Deno.env.get("PATH") });
 * // "/opt/herald/node_modules/.bin/pyright-langserver"
 * ```
 */
export function resolveServerProgram(program: string, options: ResolveOptions): string | undefined {
  if (program.includes("/")) {
    const path = isAbsolute(program) ? program : join(options.cwd, program);
    return runnable(path) ? path : undefined;
  }
  const checkout = "checkout" in options ? options.checkout : heraldCheckout();
  const folders = [
    ...(checkout ? [join(checkout, "node_modules", ".bin")] : []),
    ...(options.path ?? "").split(":").filter((folder) => folder !== ""),
  ];
  for (const folder of folders) {
    const candidate = join(folder, program);
    if (runnable(candidate)) return candidate;
  }
  return undefined;
}
