/**
 * Which branch a Git checkout is on, read from `.git` without running git:
 * `HEAD` holding `ref: refs/heads/<branch>` is on a branch; a commit id is
 * detached. A `.git` file (worktrees, submodules) points at the real folder.
 *
 * @module
 */

import { isAbsolute, join, resolve } from "node:path";

/** What `.git/HEAD` says. */
export type CheckoutHead =
  | { kind: "branch"; branch: string }
  | { kind: "detached"; commit: string }
  | { kind: "none"; reason: string };

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** Reads the HEAD of the checkout at `dir`. */
export async function checkoutHead(dir: string): Promise<CheckoutHead> {
  const dotGit = join(dir, ".git");
  let gitDir = dotGit;
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dotGit);
  } catch {
    return { kind: "none", reason: `${dir} is not a Git checkout` };
  }
  if (info.isFile) {
    const pointer = /^gitdir:\s*(.+)$/m.exec((await readText(dotGit)) ?? "")?.[1]?.trim();
    if (!pointer) return { kind: "none", reason: `${dotGit} does not name a Git folder` };
    gitDir = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
  }
  const head = (await readText(join(gitDir, "HEAD")))?.trim();
  if (!head) return { kind: "none", reason: `${gitDir}/HEAD cannot be read` };
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  if (ref) return { kind: "branch", branch: ref[1] };
  return { kind: "detached", commit: head };
}
