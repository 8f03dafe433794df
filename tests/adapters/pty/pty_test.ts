/**
 * Ending a real pseudo-terminal's session: every job goes, signals travel
 * only through process groups, and once the program has exited its own pid
 * and group are never signalled (a recording `kill` sees every call).
 */

import assert from "node:assert/strict";
import type { SignalSender } from "../../../adapters/process/mod.ts";
import { type PtyExit, type PtyProcess, spawnPty } from "../../../adapters/pty/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { eventually, processAlive } from "../tools/_context.ts";

/** One signal as it was sent, with whether the program had exited then. */
interface SentSignal {
  target: number;
  signal: Deno.Signal;
  programExited: boolean;
}

/** An interactive bash behind a pty, its output, and every signal sent to end it. */
async function startShell(cwd: string) {
  const sent: SentSignal[] = [];
  let exit: PtyExit | undefined;
  let output = "";
  const kill: SignalSender = (target, signal) => {
    sent.push({ target, signal, programExited: exit !== undefined });
    Deno.kill(target, signal);
  };
  const term: PtyProcess = await spawnPty({
    file: "bash",
    args: ["--norc", "--noprofile", "-i"],
    cwd,
    env: { PATH: Deno.env.get("PATH"), HOME: cwd, TERM: "xterm-256color", PS1: "$ " },
    kill,
  });
  term.onData((text) => output += text);
  term.onExit((e) => exit = e);
  /** Types `command` and returns the number it prints after `label=`. */
  const run = async (command: string, label: string) => {
    const from = output.length;
    term.write(`${command}\r`);
    const pattern = new RegExp(`${label}=(\\d+)\\r?\\n`);
    let match: RegExpExecArray | null = null;
    const seen = await eventually(
      () => (match = pattern.exec(output.slice(from))) !== null,
      10_000,
    );
    assert.ok(seen, `no ${label}= in ${JSON.stringify(output)}`);
    return Number(match![1]);
  };
  await eventually(() => output.includes("$ "), 10_000);
  return { term, sent, run, exited: () => exit };
}

Deno.test({
  name: "closing a terminal ends a job that ignores hang-up, through process groups only",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using dir = await tempDir();
    const shell = await startShell(dir.path);
    const leader = shell.term.pid;
    const job = await shell.run("sleep 300 & echo job=$!", "job");
    const stubborn = await shell.run(
      "(trap '' HUP TERM; echo stubborn=$BASHPID; exec sleep 301) &",
      "stubborn",
    );
    await shell.term.terminate(300);
    for (const pid of [leader, job, stubborn]) {
      assert.ok(await eventually(() => !processAlive(pid)), `process ${pid} survived`);
    }
    for (const call of shell.sent) {
      assert.ok(call.target < 0, `bare pid ${call.target} signalled`);
      if (call.target === -leader) {
        assert.equal(call.programExited, false, `${call.signal} to the program's group after exit`);
      }
    }
    assert.ok(shell.sent.some((c) => c.target === -stubborn && c.signal === "SIGKILL"));
  },
});

Deno.test({
  name: "after the program exited, its pid and group get no signal and its jobs still end",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using dir = await tempDir();
    const shell = await startShell(dir.path);
    const leader = shell.term.pid;
    const job = await shell.run("sleep 300 & echo job=$!", "job");
    shell.term.write("exit\r");
    assert.ok(await eventually(() => shell.exited() !== undefined, 10_000), "the shell exits");
    try {
      await shell.term.terminate(300);
      assert.ok(await eventually(() => !processAlive(job)), `job ${job} survived`);
      for (const call of shell.sent) {
        assert.notEqual(call.target, leader);
        assert.notEqual(call.target, -leader);
        assert.equal(call.target, -job, "only the job's own group is signalled");
      }
      assert.ok(shell.sent.length > 0);
    } finally {
      if (processAlive(job)) Deno.kill(job, "SIGKILL");
    }
  },
});
