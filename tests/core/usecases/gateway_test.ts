/** The gateway status use case over an in-memory gateway-files port. */

import assert from "node:assert/strict";
import {
  type GatewayProcessFiles,
  type GatewayStateRecord,
  gatewayStatus,
  HEARTBEAT_STALE_MS,
  parseGatewayState,
} from "../../../core/usecases/gateway.ts";

function record(overrides: Partial<GatewayStateRecord> = {}): GatewayStateRecord {
  return {
    version: 1,
    profile: "work",
    pid: 42,
    pgid: 42,
    launch_id: null,
    status: "running",
    started_at: 10_000,
    heartbeat_at: 70_000,
    stopped_at: null,
    platforms: [
      {
        platform: "telegram",
        label: "Telegram",
        state: "connected",
        last_error: null,
        since: 1,
        send_error: "Telegram refused sendMessage (502): Bad Gateway",
        send_failing_since: 60_000,
      },
      {
        platform: "line",
        label: "LINE",
        state: "retrying",
        last_error: "LINE answered 500",
        since: 2,
        send_error: null,
        send_failing_since: null,
      },
    ],
    counts: { chats: 1, conversations: 1, running: 0, queued: 0, undelivered: 0, jobs: 0 },
    ...overrides,
  };
}

class Files implements GatewayProcessFiles {
  cleared: number[] = [];
  constructor(
    public pid: number | undefined,
    public state: GatewayStateRecord | undefined,
    public alive: boolean,
  ) {}
  readState() {
    return Promise.resolve(this.state);
  }
  readPid() {
    return Promise.resolve(this.pid);
  }
  isRunning() {
    return Promise.resolve(this.alive);
  }
  clearStale(pid: number) {
    this.cleared.push(pid);
    this.pid = undefined;
    return Promise.resolve(true);
  }
}

Deno.test("a live gateway with a fresh heartbeat is running, with uptime and platforms", async () => {
  const view = await gatewayStatus("work", new Files(42, record(), true), { now: 75_000 });
  assert.equal(view.running, true);
  assert.equal(view.state, "running");
  assert.equal(view.pid, 42);
  assert.equal(view.uptime_seconds, 65);
  assert.deepEqual(view.platforms.map((p) => [p.platform, p.state, p.last_error]), [
    ["telegram", "connected", null],
    ["line", "retrying", "LINE answered 500"],
  ]);
  assert.deepEqual(view.platforms.map((p) => [p.send_error, p.send_failing_since]), [
    ["Telegram refused sendMessage (502): Bad Gateway", 60_000],
    [null, null],
  ]);
});

Deno.test("a live gateway whose heartbeat is late is unresponsive", async () => {
  const view = await gatewayStatus("work", new Files(42, record(), true), {
    now: 70_000 + HEARTBEAT_STALE_MS + 1,
  });
  assert.equal(view.running, false);
  assert.equal(view.state, "unresponsive");
  assert.equal(view.pid, 42);
});

Deno.test("a pid file of a gone gateway is stale, removed only when asked", async () => {
  const files = new Files(42, record(), false);
  const seen = await gatewayStatus("work", files, { now: 75_000 });
  assert.equal(seen.state, "stopped");
  assert.equal(seen.stale_pid_file, true);
  assert.deepEqual(files.cleared, []);
  assert.deepEqual(seen.platforms.map((p) => p.state), ["stopped", "stopped"]);
  const cleaned = await gatewayStatus("work", files, { now: 75_000, clean: true });
  assert.equal(cleaned.stale_pid_file, true);
  assert.deepEqual(files.cleared, [42]);
});

Deno.test("a gateway that stopped cleanly is stopped, with when", async () => {
  const stopped = record({ status: "stopped", stopped_at: 80_000 });
  const view = await gatewayStatus("work", new Files(undefined, stopped, false), { now: 90_000 });
  assert.equal(view.state, "stopped");
  assert.equal(view.stale_pid_file, false);
  assert.equal(view.stopped_at, 80_000);
  assert.equal(view.pid, null);
});

Deno.test("a live gateway that has not written its state yet is starting", async () => {
  const view = await gatewayStatus("work", new Files(43, record(), true), { now: 75_000 });
  assert.equal(view.state, "starting");
  assert.equal(view.pid, 43);
});

Deno.test("the state file is read leniently: anything else is no state", () => {
  assert.equal(parseGatewayState(""), undefined);
  assert.equal(parseGatewayState("[1]"), undefined);
  assert.equal(parseGatewayState('{"version":1}'), undefined);
  assert.deepEqual(parseGatewayState(JSON.stringify(record())), record());
});
