/**
 * Helpers of the language-server tests: a project folder, the processes
 * of a process group, and a wait for them to be gone.
 *
 * @module
 */

import { join } from "node:path";
import { type TempDir, tempDir } from "../../_helpers.ts";

/** A temporary project: `package.json`, a strict `tsconfig.json` and `pyproject.toml`. */
export async function projectDir(): Promise<TempDir> {
  const dir = await tempDir("herald-lsp-");
  await Deno.writeTextFile(join(dir.path, "package.json"), '{"name":"lsp-test","private":true}\n');
  await Deno.writeTextFile(
    join(dir.path, "tsconfig.json"),
    '{"compilerOptions":{"strict":true,"noEmit":true}}\n',
  );
  await Deno.writeTextFile(join(dir.path, "pyproject.toml"), '[project]\nname = "lsp-test"\n');
  return dir;
}

/** Pids of the live processes in process group `pgid` (Linux, from /proc). */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields[0] is the state, fields[2] the process group.
      if (fields[0] !== "Z" && Number(fields[2]) === pgid) members.push(Number(entry.name));
    } catch {
      // Gone while listing.
    }
  }
  return members;
}

/** Waits until group `pgid` has no live process; returns the ones left after `timeoutMs`. */
export async function groupGone(pgid: number, timeoutMs = 5000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = groupMembers(pgid);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = groupMembers(pgid);
  }
  return left;
}
