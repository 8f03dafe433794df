/**
 * Reading the process table from /proc (Linux): each live process's id,
 * state, process group and session.
 *
 * @module
 */

/** One process as /proc/<pid>/stat describes it. */
export interface ProcEntry {
  pid: number;
  /** R, S, D, T, Z, ... */
  state: string;
  pgrp: number;
  session: number;
}

/** Parses the text of /proc/<pid>/stat; undefined when it is not one. */
export function parseStat(pid: number, text: string): ProcEntry | undefined {
  // The command name is in parentheses and may itself hold spaces or ")".
  const close = text.lastIndexOf(")");
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(" ");
  const pgrp = Number(fields[2]);
  const session = Number(fields[3]);
  if (!fields[0] || !Number.isInteger(pgrp) || !Number.isInteger(session)) return undefined;
  return { pid, state: fields[0], pgrp, session };
}

/**
 * The processes under `procDir` that have not exited. Exited children that
 * nobody has reaped (zombies, common where PID 1 is not a real init) are
 * left out: they run nothing and cannot be signalled away.
 */
export async function liveProcesses(procDir: string): Promise<ProcEntry[]> {
  const live: ProcEntry[] = [];
  for await (const entry of Deno.readDir(procDir)) {
    if (!/^\d+$/.test(entry.name)) continue;
    const text = await Deno.readTextFile(`${procDir}/${entry.name}/stat`).catch(() => "");
    const stat = text === "" ? undefined : parseStat(Number(entry.name), text);
    if (stat && stat.state !== "Z" && stat.state !== "X") live.push(stat);
  }
  return live;
}
