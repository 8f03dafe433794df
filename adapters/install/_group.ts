/**
 * Ending what a probe or an installer stage left running in its process
 * group after the group's leader (the anchor of spawnProcessGroup) exited
 * and was reaped, such as `sleep 60 &` in a fake `herald --version`.
 *
 * killProcessTree never signals a reaped leader's group, because the id may
 * have been reused. A group id is not reused while the group has members,
 * though, so while /proc shows a live process of the group the id is still
 * that group's: this module hands killProcessTree a leader whose "exited"
 * means "the group has no live member left". Linux only (it needs /proc);
 * elsewhere nothing is listed and nothing is signalled.
 *
 * @module
 */

import { killProcessTree } from "../process/kill_tree.ts";

/** The pids of the live (not zombie) processes in process group `pgid` (Linux; else none). */
export function groupMembers(pgid: number): number[] {
  if (Deno.build.os !== "linux") return [];
  const members: number[] = [];
  let entries: Iterable<Deno.DirEntry>;
  try {
    entries = Deno.readDirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    let text: string;
    try {
      text = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
    } catch {
      continue; // Gone meanwhile.
    }
    // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    if (fields[0] !== "Z" && fields[0] !== "X" && Number(fields[2]) === pgid) {
      members.push(Number(entry.name));
    }
  }
  return members;
}

/**
 * Ends every process still in group `pgid` once its leader is gone: SIGTERM,
 * then SIGKILL after `graceMs`. Returns at once when the group is empty.
 */
export async function endLeftovers(pgid: number, graceMs: number): Promise<void> {
  if (groupMembers(pgid).length === 0) return;
  await killProcessTree(
    { pid: pgid, exited: () => groupMembers(pgid).length === 0 },
    { graceMs },
  );
}
