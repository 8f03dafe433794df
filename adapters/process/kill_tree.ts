/**
 * Ending a whole process tree without ever signalling a process id that may
 * have been reused.
 *
 * A tree is a process group: its leader is a child of this process started
 * as a group leader ({@link spawnProcessGroup}, or a pty's session leader),
 * and one signal to `-pid` reaches the leader and everything that stayed in
 * its group. That id is ours only while the leader has not been reaped;
 * once its exit has been observed the number may belong to an unrelated
 * process, so from then on neither the pid nor the group is signalled.
 *
 * To end the whole tree anyway, a group started by
 * {@link spawnProcessGroup} is led by an anchor (a tiny `sh`) that runs the
 * program as its child, survives the polite signals and, once told (SIGUSR1),
 * parks instead of exiting; so the group's id stays ours until the SIGKILL
 * for whatever ignored SIGTERM has been sent.
 *
 * With `session: true` (a pty, where an interactive shell gives each job a
 * process group of its own) the other groups of the leader's session are
 * found in /proc and signalled through their group ids, each right after a
 * live member of it was seen (a group's id is not reused while it has
 * members). No bare process id other than the leader's is ever signalled.
 * Listing processes needs Linux; elsewhere only the leader's group is
 * reached, and the SIGKILL waits for the whole grace.
 *
 * @module
 */

import { liveProcesses, parseStat, type ProcEntry } from "./_proc.ts";

/** A child this process started as the leader of a new process group. */
export interface GroupLeader {
  /** Its pid, which is also its process group's id. */
  readonly pid: number;
  /** Whether its exit has been observed (it was reaped); from then on its id is never signalled. */
  exited(): boolean;
  /**
   * The leader is the anchor of {@link spawnProcessGroup}: it outlives the
   * polite signals and, after SIGUSR1, stops itself instead of exiting once
   * its program has ended.
   */
  readonly anchored?: boolean;
}

/** Sends `signal` to `target` (a pid, or `-pgid` for a group); throws when there is none. */
export type SignalSender = (target: number, signal: Deno.Signal) => void;

/** Options of {@link killProcessTree}. */
export interface KillTreeOptions {
  /** Milliseconds between asking (`ask`) and SIGKILL for whatever still runs. */
  graceMs: number;
  /** The signals that ask the tree to stop, in order (default SIGTERM; a closed terminal: SIGHUP, SIGTERM). */
  ask?: readonly Deno.Signal[];
  /** Also end the other process groups of the leader's session (Linux). */
  session?: boolean;
  /** How signals are sent (default `Deno.kill`); tests record the calls. */
  kill?: SignalSender;
  /** Where processes are listed (default /proc on Linux); null: nowhere, wait the whole grace. */
  procDir?: string | null;
}

const POLL_MS = 25;
/** How long the leader gets to park, to act on the signals it was sent, or to go after SIGKILL. */
const LEADER_WAIT_MS = 1000;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Ends the tree led by `leader`: `ask` (SIGTERM) to every process of it,
 * SIGKILL after `graceMs` to whatever still runs. Resolves once nothing of
 * the tree runs, or a second after the last SIGKILL for a process that
 * cannot be killed. A leader already reaped is never signalled, nor its
 * group: what it left there keeps running, as after a normal exit (with
 * `session`, the session's other groups are still ended).
 *
 * @example
 * ```ts
 * const group = spawnProcessGroup("bash", { args: ["-c", "sleep 60 & sleep 60"] });
 * await killProcessTree({ pid: group.pid, exited: group.exited, anchored: true }, { graceMs: 2000 });
 * ```
 */
export async function killProcessTree(
  leader: GroupLeader,
  options: KillTreeOptions,
): Promise<void> {
  const kill = options.kill ?? Deno.kill;
  const ask = options.ask ?? ["SIGTERM"];
  const procDir = options.procDir !== undefined
    ? options.procDir
    : Deno.build.os === "linux"
    ? "/proc"
    : null;
  const send = (target: number, signal: Deno.Signal): boolean => {
    try {
      kill(target, signal);
      return true;
    } catch {
      return false;
    }
  };
  // The leader's pid and group id stay ours only until it is reaped.
  const toLeader = (signal: Deno.Signal) => !leader.exited() && send(leader.pid, signal);
  const toGroup = (signal: Deno.Signal) => !leader.exited() && send(-leader.pid, signal);

  // An anchor told to hold on outlives the rest of the tree, so its group id stays ours.
  const held = leader.anchored === true && toLeader("SIGUSR1");
  for (const signal of ask) toGroup(signal);

  const asked = new Set<number>();
  const askGroups = (processes: readonly ProcEntry[]) => {
    for (const pgrp of new Set(processes.map((p) => p.pgrp))) {
      if (pgrp === leader.pid || asked.has(pgrp)) continue;
      asked.add(pgrp);
      for (const signal of ask) send(-pgrp, signal);
      // A stopped job acts on the signals only once continued.
      send(-pgrp, "SIGCONT");
    }
  };
  /** The live processes we may still signal, the leader left out; undefined when unknown. */
  const rest = async (): Promise<ProcEntry[] | undefined> => {
    if (procDir === null) return undefined;
    const all = await liveProcesses(procDir).catch(() => undefined);
    if (!all) return undefined;
    const leaderAlive = !leader.exited();
    return all.filter((p) =>
      p.pid !== leader.pid &&
      (p.pgrp === leader.pid ? leaderAlive : options.session === true && p.session === leader.pid)
    );
  };

  const killAt = Date.now() + options.graceMs;
  let killed = false;
  for (;;) {
    const processes = await rest();
    if (processes) {
      // Jobs started while we wait are asked too.
      askGroups(processes);
      if (processes.length === 0) break;
    } else if (leader.exited()) {
      break;
    }
    if (Date.now() >= killAt) {
      killed = toGroup("SIGKILL");
      for (const pgrp of new Set((processes ?? []).map((p) => p.pgrp))) {
        if (pgrp !== leader.pid) send(-pgrp, "SIGKILL");
      }
      break;
    }
    await delay(POLL_MS);
  }

  if (!killed) {
    if (held) {
      // The anchor parks once its program has ended: let it go (it exits
      // with the program's status), or end it where it cannot be seen parked.
      if (await parkedWithin(leader, procDir, LEADER_WAIT_MS)) toLeader("SIGCONT");
      else toGroup("SIGKILL");
    }
    if (await exitWithin(leader, Math.max(killAt - Date.now(), LEADER_WAIT_MS))) return;
    toGroup("SIGKILL");
  }
  await exitWithin(leader, LEADER_WAIT_MS);
}

/** Resolves true once the leader's exit is observed, false after `ms`. */
async function exitWithin(leader: GroupLeader, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!leader.exited()) {
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
  return true;
}

/** Resolves true once the leader is seen stopped in `procDir`, false after `ms` or without one. */
async function parkedWithin(
  leader: GroupLeader,
  procDir: string | null,
  ms: number,
): Promise<boolean> {
  if (procDir === null) return false;
  const deadline = Date.now() + ms;
  while (!leader.exited()) {
    const text = await Deno.readTextFile(`${procDir}/${leader.pid}/stat`).catch(() => "");
    const state = parseStat(leader.pid, text)?.state;
    if (state === "T" || state === "t") return true;
    if (Date.now() >= deadline) return false;
    await delay(POLL_MS);
  }
  return false;
}
