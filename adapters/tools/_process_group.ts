/**
 * Ending a whole process tree. Commands are spawned with `detached: true`,
 * which makes the shell a process-group leader; signalling `-pid` reaches
 * the shell and everything it started (a plain `child.kill()` would leave
 * grandchildren running).
 *
 * @module
 */

const POLL_MS = 50;

/** Sends `signal` to the process group led by `pgid`; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: Deno.Signal): boolean {
  try {
    Deno.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends the process group led by `pgid`: SIGTERM, then SIGKILL for whatever
 * is still alive after `graceMs`.
 */
export async function killProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  // A stopped process acts on SIGTERM only once continued.
  signalGroup(pgid, "SIGCONT");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!(await groupAlive(pgid))) return;
  }
  signalGroup(pgid, "SIGKILL");
}

/**
 * Whether any process of the group is still running. Exited children that
 * nobody has reaped yet (zombies, common when PID 1 is not a real init)
 * still answer signals, so on Linux /proc is consulted to ignore them.
 */
async function groupAlive(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, "SIGCONT")) return false;
  if (Deno.build.os !== "linux") return true;
  try {
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
      // Fields after the command name: state ppid pgrp ...
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
    }
    return false;
  } catch {
    return true;
  }
}
