/**
 * Where a language server's program comes from. A bare name (such as
 * `typescript-language-server`) is looked up in Herald's own checkout's
 * `node_modules/.bin` first (a source checkout has the pinned servers
 * there once deno has run), then on PATH; a path is taken as it is,
 * relative to the working directory. The workspace's own `node_modules`
 * is not searched: writing a file in a repository must not run programs
 * that repository ships. Not found: the server is skipped, and its status
 * says where it was looked for and how to install it. A compiled Herald has
 * no checkout and no node_modules, so there PATH is the only place.
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

/** The checkout whose node_modules/.bin is searched: the option, else this one (none when compiled). */
function checkoutOf(options: ResolveOptions): string | undefined {
  return "checkout" in options ? options.checkout : heraldCheckout();
}

/** How to install the language servers Herald knows by their program's name. */
const INSTALL_HINTS: Readonly<Record<string, string>> = {
  "typescript-language-server": "npm install -g typescript-language-server typescript",
  "pyright-langserver": "npm install -g pyright",
};

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
  const checkout = checkoutOf(options);
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

/**
 * Why {@link resolveServerProgram} found no `program`, with the same
 * `options`: where it looked and what to do. Without a checkout (a compiled
 * binary) only PATH was searched, which the message says.
 *
 * @example
 * ```ts
 * missingServerReason("pyright-langserver", { cwd: "/work", path: "/usr/bin", checkout: undefined });
 * // "pyright-langserver is not on PATH (this Herald has no node_modules of its own); install it: npm install -g pyright"
 * ```
 */
export function missingServerReason(program: string, options: ResolveOptions): string {
  if (program.includes("/")) {
    const path = isAbsolute(program) ? program : join(options.cwd, program);
    return `${path} is not an executable file; fix the server's command in lsp.servers`;
  }
  const checkout = checkoutOf(options);
  const where = checkout
    ? `in neither ${join(checkout, "node_modules", ".bin")} nor PATH`
    : "not on PATH (this Herald has no node_modules of its own)";
  const known = INSTALL_HINTS[program];
  const hint = known
    ? `install it: ${known}`
    : "put it on PATH, or set the server's command in lsp.servers to its path";
  return `${program} is ${where}; ${hint}`;
}
