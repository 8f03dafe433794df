/**
 * Ending a process tree with real processes: every grandchild goes, and no
 * signal reaches the leader's pid or group once its exit has been observed.
 * Every signal goes through a recording `kill` that notes what the killer
 * knew of the leader at that moment.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type GroupLeader,
  killProcessTree,
  type SignalSender,
  spawnProcessGroup,
} from "../../../adapters/process/mod.ts";
import { tempDir } from "../../_helpers.ts";
import { eventually, processAlive, waitForPid } from "../tools/_context.ts";

const linux = Deno.build.os === "linux";

/** One signal as it was sent, with whether the leader's exit had been observed then. */
interface SentSignal {
  target: number;
  signal: Deno.Signal;
  leaderExited: boolean;
}

/** A `kill` that records each call (then sends it for real), seen from `leader`. */
function recorder(leader: () => GroupLeader) {
  const sent: SentSignal[] = [];
  const kill: SignalSender = (target, signal) => {
    sent.push({ target, signal, leaderExited: leader().exited() });
    Deno.kill(target, signal);
  };
  return { sent, kill };
}

/** `bash -c script` under the anchor of spawnProcessGroup, in `cwd`. */
function spawnTree(script: string, cwd: string) {
  const group = spawnProcessGroup("bash", {
    args: ["-c", script],
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  });
  const leader: GroupLeader = { pid: group.pid, exited: group.exited, anchored: true };
  return { group, leader, ...recorder(() => leader) };
}

/** `bash -c script` as a plain group (and session) leader, as a pty's program is. */
function spawnPlainLeader(script: string, cwd: string) {
  const child = new Deno.Command("bash", {
    args: ["-c", script],
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const leader: GroupLeader = { pid: child.pid, exited: () => exited };
  return { leader, status, ...recorder(() => leader) };
}

/** Ends what a test left running on purpose (each pid checked alive first). */
function cleanUp(pids: number[]): void {
  for (const pid of pids) if (processAlive(pid)) Deno.kill(pid, "SIGKILL");
}

/** Every call went to the leader or its group, before its exit was observed. */
function assertOnlyThroughLeader(sent: SentSignal[], pid: number): void {
  for (const call of sent) {
    assert.ok(call.target === -pid || call.target === pid, `signal to ${call.target}`);
    assert.equal(call.leaderExited, false, `${call.signal} sent after the leader was reaped`);
  }
}

Deno.test({
  name: "killing a tree ends every grandchild, one that ignores SIGTERM included",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    const tree = spawnTree(
      "sleep 30 & echo $! > bg.pid; " +
        "(trap '' TERM; echo $BASHPID > stubborn.pid; exec sleep 30) & " +
        "bash -c 'sleep 30 & echo $! > deep.pid; wait' & " +
        "sleep 30; wait",
      dir.path,
    );
    const pids = await Promise.all(
      ["bg.pid", "stubborn.pid", "deep.pid"].map((f) => waitForPid(join(dir.path, f))),
    );
    await killProcessTree(tree.leader, { graceMs: 300, kill: tree.kill });

    assert.ok(tree.group.exited(), "the leader is gone when the kill resolves");
    assert.equal((await tree.group.status).signal, "SIGKILL");
    for (const pid of pids) {
      assert.ok(await eventually(() => !processAlive(pid)), `process ${pid} survived`);
    }
    const { pid } = tree.leader;
    assertOnlyThroughLeader(tree.sent, pid);
    assert.deepEqual(tree.sent.map((call) => [call.target, call.signal]), [
      [pid, "SIGUSR1"],
      [-pid, "SIGTERM"],
      [-pid, "SIGKILL"],
    ]);
  },
});

Deno.test({
  name: "a tree that stops on SIGTERM gets no SIGKILL and reports the program's status",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    const tree = spawnTree("sleep 30 & echo $! > bg.pid; sleep 30; wait", dir.path);
    const bg = await waitForPid(join(dir.path, "bg.pid"));
    await tree.group.terminate({ graceMs: 5000, kill: tree.kill });
    assert.equal((await tree.group.status).code, 128 + 15, "bash ended by SIGTERM");
    assert.ok(await eventually(() => !processAlive(bg)));
    const { pid } = tree.leader;
    assertOnlyThroughLeader(tree.sent, pid);
    // The anchor parked until the rest was gone, then was let go.
    assert.deepEqual(tree.sent.map((call) => [call.target, call.signal]), [
      [pid, "SIGUSR1"],
      [-pid, "SIGTERM"],
      [pid, "SIGCONT"],
    ]);
  },
});

Deno.test({
  name: "a tree whose program already exited is not signalled at all",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    const tree = spawnTree("sleep 30 & echo $! > bg.pid", dir.path);
    const bg = await waitForPid(join(dir.path, "bg.pid"));
    await tree.group.status;
    try {
      await tree.group.terminate({ graceMs: 300, kill: tree.kill });
      assert.deepEqual(tree.sent, []);
      // What the program left behind keeps running, as after any normal exit.
      assert.ok(processAlive(bg));
    } finally {
      cleanUp([bg]);
    }
  },
});

Deno.test({
  name: "a leader reaped during the grace gets no further signal, not even the SIGKILL",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    const tree = spawnPlainLeader(
      // The pid is written once the trap is set, so the SIGTERM cannot come before it.
      "(trap '' TERM; echo $BASHPID > stubborn.pid; exec sleep 30) & wait",
      dir.path,
    );
    const stubborn = await waitForPid(join(dir.path, "stubborn.pid"));
    try {
      // bash dies of the SIGTERM and is reaped; the stubborn one stays.
      await killProcessTree(tree.leader, { graceMs: 1000, kill: tree.kill });
      await tree.status;
      const { pid } = tree.leader;
      assertOnlyThroughLeader(tree.sent, pid);
      assert.deepEqual(tree.sent.map((call) => [call.target, call.signal]), [[-pid, "SIGTERM"]]);
      assert.ok(processAlive(stubborn), "its group was not signalled after the leader was reaped");
    } finally {
      cleanUp([stubborn]);
    }
  },
});

Deno.test({
  name: "session mode ends jobs that live in process groups of their own",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    // `set -m` gives each job its own process group, as an interactive shell does; each
    // stubborn process writes its pid once its trap is set.
    const tree = spawnPlainLeader(
      "trap '' HUP TERM; set -m; sleep 30 & echo $! > job.pid; " +
        "(trap '' HUP TERM; echo $BASHPID > stubborn.pid; exec sleep 30) & wait; wait",
      dir.path,
    );
    const job = await waitForPid(join(dir.path, "job.pid"));
    const stubborn = await waitForPid(join(dir.path, "stubborn.pid"));
    await killProcessTree(tree.leader, {
      graceMs: 300,
      ask: ["SIGHUP", "SIGTERM"],
      session: true,
      kill: tree.kill,
    });
    await tree.status;
    for (const pid of [job, stubborn]) {
      assert.ok(await eventually(() => !processAlive(pid)), `job ${pid} survived`);
    }
    const { pid } = tree.leader;
    for (const call of tree.sent) {
      assert.ok(call.target < 0, `bare pid ${call.target} signalled`);
      if (call.target === -pid) assert.equal(call.leaderExited, false);
    }
    assert.ok(tree.sent.some((call) => call.target === -job && call.signal === "SIGHUP"));
    assert.ok(tree.sent.some((call) => call.target === -stubborn && call.signal === "SIGKILL"));
    assert.ok(tree.sent.some((call) => call.target === -pid && call.signal === "SIGKILL"));
  },
});

Deno.test({
  name: "session mode after the leader exited ends its jobs through their own groups only",
  ignore: !linux,
  async fn() {
    await using dir = await tempDir();
    const tree = spawnPlainLeader("set -m; sleep 30 & echo $! > job.pid", dir.path);
    const job = await waitForPid(join(dir.path, "job.pid"));
    await tree.status;
    try {
      await killProcessTree(tree.leader, { graceMs: 300, session: true, kill: tree.kill });
      assert.ok(await eventually(() => !processAlive(job)), `job ${job} survived`);
      assert.ok(tree.sent.length > 0);
      for (const call of tree.sent) {
        assert.equal(call.target, -job, "only the job's own group is signalled");
      }
    } finally {
      cleanUp([job]);
    }
  },
});

Deno.test("a program that does not exist fails to start, as a direct spawn would", () => {
  assert.throws(
    () => spawnProcessGroup("herald-no-such-program-x", { stdout: "null", stderr: "null" }),
    Deno.errors.NotFound,
  );
  assert.throws(
    () => spawnProcessGroup("./missing/program", { stdout: "null", stderr: "null" }),
    Deno.errors.NotFound,
  );
});

Deno.test({
  name: "the anchor passes streams and the exit code through and adds no output",
  ignore: Deno.build.os === "windows",
  async fn() {
    const group = spawnProcessGroup("bash", {
      args: ["-c", 'read -r line; echo "out:$line"; echo err >&2; kill -TERM $$'],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
    const writer = group.child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("hello\n"));
    await writer.close();
    const output = await group.child.output();
    assert.equal(new TextDecoder().decode(output.stdout), "out:hello\n");
    assert.equal(new TextDecoder().decode(output.stderr), "err\n");
    assert.equal(output.code, 128 + 15);
    assert.equal((await group.status).code, 128 + 15);
  },
});
