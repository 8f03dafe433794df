/**
 * Ending everything a pseudo-terminal started. The pty's child is a session
 * leader (forkpty calls setsid), and an interactive shell puts every job in
 * a process group of its own inside that session, so signalling only the
 * leader's group would leave background jobs running. On Linux the whole
 * session is found through /proc; elsewhere the leader's group is signalled.
 *
 * @module
 */

const POLL_MS = 25;
/** How long to wait for SIGKILL to take effect before giving up. */
const KILL_WAIT_MS = 1000;

/** A process as /proc/<pid>/stat describes it. */
interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
  session: number;
}

async function readStat(pid: string): Promise<ProcStat | undefined> {
  const text = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => "");
  if (text === "") return undefined;
  // The command name is in parentheses and may itself hold spaces or ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    pid: Number(pid),
    state: fields[0],
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
  };
}

/**
 * The live processes of session `sid` (Linux). Exited children nobody has
 * reaped (zombies, common when PID 1 is not a real init) do not count.
 */
export async function sessionMembers(sid: number): Promise<ProcStat[]> {
  const members: ProcStat[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = await readStat(entry.name);
    const alive = stat && stat.state !== "Z" && stat.state !== "X";
    if (alive && (stat.session === sid || stat.pid === sid)) {
      members.push(stat);
    }
  }
  return members;
}

function signal(target: number, name: Deno.Signal): void {
  try {
    Deno.kill(target, name);
  } catch {
    // Already gone, or not ours to signal.
  }
}

/** Sends the hang-up a closed terminal would send, then SIGTERM, to every group in `groups`. */
function hangUp(groups: Iterable<number>): void {
  for (const pgrp of groups) {
    signal(-pgrp, "SIGHUP");
    signal(-pgrp, "SIGTERM");
    // A stopped job acts on the signals only once continued.
    signal(-pgrp, "SIGCONT");
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends the session led by `leader`: SIGHUP and SIGTERM to each of its
 * process groups (interactive shells ignore SIGTERM but exit on SIGHUP),
 * then SIGKILL to whatever still runs after `graceMs`. Resolves once no
 * process of the session is alive, or a second after the SIGKILL for a
 * process that cannot be killed (Linux); elsewhere, where only the
 * leader's group can be found, once the grace has passed.
 */
export async function killSession(leader: number, graceMs: number): Promise<void> {
  if (Deno.build.os !== "linux") {
    hangUp([leader]);
    await delay(Math.min(graceMs, 200));
    signal(-leader, "SIGKILL");
    return;
  }
  const signalled = new Set<number>();
  const killAt = Date.now() + graceMs;
  const giveUpAt = killAt + KILL_WAIT_MS;
  for (;;) {
    const members = await sessionMembers(leader);
    if (members.length === 0 || Date.now() >= giveUpAt) return;
    if (Date.now() >= killAt) {
      for (const member of members) signal(member.pid, "SIGKILL");
    } else {
      // Jobs started while we wait get the same signals.
      const fresh = new Set(members.map((m) => m.pgrp).filter((pgrp) => !signalled.has(pgrp)));
      hangUp(fresh);
      for (const pgrp of fresh) signalled.add(pgrp);
    }
    await delay(POLL_MS);
  }
}
