/**
 * The gateway's pid file, state file and credential locks, on real files.
 * flock locks belong to the open file, so two opens in this process
 * exclude each other as two processes do.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  acquireCredentialLock,
  credentialLockPath,
  gatewayFiles,
  processAlive,
} from "../../../adapters/channels/gateway_files.ts";
import type { GatewayStateRecord } from "../../../core/usecases/gateway.ts";
import { tempDir } from "../../_helpers.ts";

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true", { stdout: "null", stderr: "null" }).spawn();
  await child.status;
  return child.pid;
}

function record(pid: number, status: GatewayStateRecord["status"]): GatewayStateRecord {
  return {
    version: 1,
    profile: "default",
    pid,
    pgid: null,
    launch_id: null,
    status,
    started_at: 1000,
    heartbeat_at: 2000,
    stopped_at: null,
    platforms: [],
    counts: null,
  };
}

Deno.test("the pid file is held by one gateway; a second is refused with the first's pid", async () => {
  await using home = await tempDir();
  const files = gatewayFiles(home.path);
  const first = await files.acquire(Deno.pid);
  assert.equal(first.held, true);
  assert.equal(await Deno.readTextFile(files.pidPath), `${Deno.pid}\n`);
  assert.equal(await files.readPid(), Deno.pid);
  assert.equal(await files.isRunning(Deno.pid), true);

  const second = await files.acquire(Deno.pid + 1);
  assert.deepEqual(second, { held: false, pid: Deno.pid });

  if (first.held) await first.release();
  assert.equal(await files.readPid(), undefined, "released: the pid file is removed");
  assert.equal(await files.isRunning(Deno.pid), false);
  const third = await files.acquire(Deno.pid);
  assert.equal(third.held, true);
  if (third.held) await third.release();
});

Deno.test("a pid file nobody holds is stale: clearing it removes it and marks the state stopped", async () => {
  await using home = await tempDir();
  const files = gatewayFiles(home.path);
  const pid = await deadPid();
  await Deno.writeTextFile(files.pidPath, `${pid}\n`);
  await files.writeState(record(pid, "running"));
  assert.equal(await processAlive(pid), false);
  assert.equal(await files.isRunning(pid), false);
  assert.equal(await files.clearStale(pid), true);
  assert.equal(await files.readPid(), undefined);
  assert.equal((await files.readState())?.status, "stopped");
});

Deno.test("a live pid in a pid file nobody holds is not taken for the gateway (a reused pid)", async () => {
  await using home = await tempDir();
  const files = gatewayFiles(home.path);
  await Deno.writeTextFile(files.pidPath, `${Deno.pid}\n`);
  assert.equal(await processAlive(Deno.pid), true);
  assert.equal(await files.isRunning(Deno.pid), false);
});

Deno.test("a stale pid file cannot be cleared while a gateway holds it", async () => {
  await using home = await tempDir();
  const files = gatewayFiles(home.path);
  const lock = await files.acquire(Deno.pid);
  assert.equal(await files.clearStale(Deno.pid), false);
  assert.equal(await files.readPid(), Deno.pid);
  if (lock.held) await lock.release();
});

Deno.test("an unreadable state file reads as no state", async () => {
  await using home = await tempDir();
  const files = gatewayFiles(home.path);
  await Deno.writeTextFile(files.statePath, "{ not json");
  assert.equal(await files.readState(), undefined);
  await Deno.writeTextFile(files.statePath, JSON.stringify({ version: 9 }));
  assert.equal(await files.readState(), undefined);
  await files.writeState(record(42, "running"));
  assert.deepEqual(await files.readState(), record(42, "running"));
});

Deno.test("a bot credential is held by one profile; another is told which", async () => {
  await using root = await tempDir();
  const key = "secret-derived-key";
  const first = await acquireCredentialLock(root.path, "telegram", key, {
    profile: "default",
    pid: 111,
  });
  assert.equal(first.held, true);
  const second = await acquireCredentialLock(root.path, "telegram", key, {
    profile: "work",
    pid: 222,
  });
  assert.deepEqual(second, { held: false, holder: { profile: "default", pid: 111 } });
  // Another platform, or another credential, is free.
  for (const [platform, other] of [["line", key], ["telegram", "other"]]) {
    const lock = await acquireCredentialLock(root.path, platform, other, {
      profile: "work",
      pid: 2,
    });
    assert.equal(lock.held, true, `${platform} ${other}`);
    if (lock.held) lock.release();
  }
  const path = await credentialLockPath(root.path, "telegram", key);
  assert.ok(!path.includes(key), "the file is named by the key's hash");
  assert.ok(!(await Deno.readTextFile(path)).includes(key), "the key is never written");
  if (first.held) first.release();
  const third = await acquireCredentialLock(root.path, "telegram", key, {
    profile: "work",
    pid: 222,
  });
  assert.equal(third.held, true);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), {
    profile: "work",
    pid: 222,
    platform: "telegram",
  });
  if (third.held) third.release();
  assert.equal(path.startsWith(join(root.path, "gateway-locks")), true);
});
