/**
 * Where a language server runs: the workspace root of a file is the
 * nearest folder, from the file's own upwards, holding a project marker
 * (`.git`, `package.json`, `pyproject.toml`, ... see WORKSPACE_MARKERS).
 * At most MAX_ROOT_STEPS folders are looked at; a file under no marker
 * has no root and gets no diagnostics.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { MAX_ROOT_STEPS, WORKSPACE_MARKERS } from "../../core/lsp/mod.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The workspace root of the file at `path` (absolute), or undefined.
 *
 * @example
 * ```ts
 * await findWorkspaceRoot("/work/app/src/a.ts"); // "/work/app" (it holds package.json)
 * ```
 */
export async function findWorkspaceRoot(
  path: string,
  markers: readonly string[] = WORKSPACE_MARKERS,
): Promise<string | undefined> {
  let folder = dirname(path);
  for (let step = 0; step < MAX_ROOT_STEPS; step++) {
    for (const marker of markers) {
      if (await exists(join(folder, marker))) return folder;
    }
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
  return undefined;
}
