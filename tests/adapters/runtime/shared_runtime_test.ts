/**
 * The gateway's shared runtimes: one per key while leased, closed when the
 * last lease is given back, opened again afterwards; a failed open is
 * retried by the next lease.
 */

import assert from "node:assert/strict";
import type { AgentRuntime } from "../../../adapters/runtime/agent_runtime.ts";
import { SharedRuntimes } from "../../../adapters/runtime/shared_runtime.ts";

/** A stand-in runtime that counts its closes (only `close` is used by the leases). */
function fakeRuntime(name: string, closed: string[]): AgentRuntime {
  return {
    profile: name,
    close: () => {
      closed.push(name);
      return Promise.resolve();
    },
  } as unknown as AgentRuntime;
}

Deno.test("leases of one key share a runtime, closed once after the last is given back", async () => {
  const opened: string[] = [];
  const closed: string[] = [];
  const shared = new SharedRuntimes((key) => {
    opened.push(key);
    return Promise.resolve(fakeRuntime(`${key}#${opened.length}`, closed));
  });
  const [a, b] = await Promise.all([shared.lease("telegram"), shared.lease("telegram")]);
  const c = await shared.lease("line");
  assert.deepEqual(opened, ["telegram", "line"]);
  assert.equal(a.profile, b.profile);
  assert.equal(shared.size, 2);

  await a.close();
  await a.close();
  assert.deepEqual(closed, [], "a lease given back twice counts once");
  await b.close();
  assert.deepEqual(closed, ["telegram#1"]);
  await c.close();
  assert.deepEqual(closed, ["telegram#1", "line#2"]);
  assert.equal(shared.size, 0);

  const again = await shared.lease("telegram");
  assert.equal(again.profile, "telegram#3", "a new runtime after the last close");
  await again.close();
});

Deno.test("a runtime that fails to open fails its leases, and the next lease opens it again", async () => {
  let attempts = 0;
  const shared = new SharedRuntimes(() => {
    attempts++;
    return attempts === 1
      ? Promise.reject(new Error("config.yaml is not valid YAML"))
      : Promise.resolve(fakeRuntime("ok", []));
  });
  await assert.rejects(shared.lease("telegram"), /not valid YAML/);
  assert.equal(shared.size, 0);
  const lease = await shared.lease("telegram");
  assert.equal(lease.profile, "ok");
  await lease.close();
});

Deno.test("after its fresh time a runtime serves no new lease; its holders keep it until the last closes", async () => {
  let now = 0;
  const closed: string[] = [];
  let opened = 0;
  const shared = new SharedRuntimes(
    () => Promise.resolve(fakeRuntime(`r${++opened}`, closed)),
    { now: () => now, freshMs: 1000 },
  );
  const old = await shared.lease("telegram");
  now = 999;
  const sameAge = await shared.lease("telegram");
  assert.equal(sameAge.profile, "r1");
  now = 1000;
  const fresh = await shared.lease("telegram");
  assert.equal(fresh.profile, "r2", "a new conversation gets a fresh runtime");
  await old.close();
  assert.deepEqual(closed, []);
  await sameAge.close();
  assert.deepEqual(closed, ["r1"], "the retired runtime closes with its last holder");
  await fresh.close();
  assert.deepEqual(closed, ["r1", "r2"]);
});
