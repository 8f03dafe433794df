/**
 * The decisions of `herald update` (core/usecases/update.ts) over recording
 * ports: the branch followed, the refusals and their exit kinds, `--check`
 * and `--plan` touching nothing, the order snapshot → apply → probe →
 * gateways → receipt, and a failed start rolled back with no gateway
 * restarted. Real git, files and processes are tests/e2e/update_e2e_test.ts.
 */

import assert from "node:assert/strict";
import { HeraldError } from "../../../core/errors.ts";
import {
  type Available,
  type CurrentCode,
  decidePlan,
  type InstallFacts,
  type ProbeResult,
  runUpdate,
  updateBranch,
  type UpdatePorts,
  type UpdateReceipt,
} from "../../../core/usecases/update.ts";

interface World {
  install: InstallFacts;
  current: CurrentCode;
  available: Available;
  probes: ProbeResult[];
  gateways: string[];
  confirm?: boolean;
}

const A = "a".repeat(40), B = "b".repeat(40);

function world(overrides: Partial<World> = {}): World {
  return {
    install: { kind: "checkout", dir: "/src/herald" },
    current: { commit: A, branch: "main", dirty: [] },
    available: { commit: B, behind: 2, ahead: 0, subjects: ["bbbbbbb new"] },
    probes: [{ ok: true, output: "herald 0.1.0 (bbbbbbbbbbbb)" }],
    gateways: [],
    ...overrides,
  };
}

/** Ports that record every call in `log`. */
function ports(w: World, log: string[], receipts: UpdateReceipt[]): UpdatePorts {
  let clock = 1_700_000_000_000;
  return {
    now: () => clock += 5,
    install: () => Promise.resolve(w.install),
    source: () => ({
      current: () => Promise.resolve(w.current),
      available: (branch) => {
        log.push(`fetch ${branch}`);
        return Promise.resolve(w.available);
      },
      apply: (plan) => {
        log.push(`apply ${plan.switching ? "switch " : ""}${plan.branch}`);
        return Promise.resolve();
      },
      probe: () => {
        log.push("probe");
        return Promise.resolve(w.probes.shift() ?? { ok: true, output: "herald" });
      },
      rollback: () => {
        log.push("rollback");
        return Promise.resolve();
      },
    }),
    snapshot: (id) => {
      log.push("snapshot");
      return Promise.resolve({ dir: `/home/logs/update_snapshots/${id}`, files: [] });
    },
    runningGateways: () => Promise.resolve(w.gateways),
    restartGateway: (profile) => {
      log.push(`restart ${profile}`);
      return Promise.resolve({ profile, ok: true, message: "restarted" });
    },
    writeReceipt: (receipt) => {
      log.push(`receipt ${receipt.result}`);
      receipts.push(structuredClone(receipt));
      return Promise.resolve(`/home/logs/update_receipts/${receipt.id}.json`);
    },
    ...(w.confirm === undefined ? {} : {
      confirm: () => {
        log.push("ask");
        return Promise.resolve(w.confirm!);
      },
    }),
    progress: () => {},
  };
}

async function refused(work: Promise<unknown>, code: string, kind: string): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof HeraldError);
    assert.equal(error.code, code);
    assert.equal(error.kind, kind);
    return true;
  });
}

Deno.test("the branch: --branch, else the current one, else main when detached", () => {
  assert.equal(updateBranch(undefined, "release-2"), "release-2");
  assert.equal(updateBranch(undefined, null), "main");
  assert.equal(updateBranch(" next ", "main"), "next");
  const install = { kind: "checkout", dir: "/x" } as const;
  const detached = decidePlan(install, { commit: A, branch: null, dirty: [] }, "main", {
    commit: A,
    behind: 0,
    ahead: 0,
    subjects: [],
  });
  assert.equal(detached.switching, true, "a detached HEAD moves onto main");
  assert.equal(detached.upToDate, false);
});

Deno.test("an applied update: snapshot, apply, probe, gateways, then the receipt", async () => {
  const log: string[] = [], receipts: UpdateReceipt[] = [];
  const outcome = await runUpdate(
    { yes: true },
    ports(world({ gateways: ["default", "work"] }), log, receipts),
  );
  assert.equal(outcome.result, "updated");
  assert.deepEqual(log, [
    "fetch main",
    "snapshot",
    "apply main",
    "probe",
    "restart default",
    "restart work",
    "receipt updated",
  ]);
  const [receipt] = receipts;
  assert.equal(receipt.from, A);
  assert.equal(receipt.to, B);
  assert.equal(receipt.branch, "main");
  assert.equal(receipt.rollback, null);
  assert.equal(receipt.gateways.length, 2);
  assert.ok(receipt.snapshot?.includes("update_snapshots"));
  assert.equal(typeof receipt.durations_ms.total, "number");
});

Deno.test("a new code that does not start is rolled back and no gateway restarts", async () => {
  const log: string[] = [], receipts: UpdateReceipt[] = [];
  const w = world({
    gateways: ["default"],
    probes: [{ ok: false, output: "herald --version exited with 1" }, { ok: true, output: "ok" }],
  });
  await refused(runUpdate({ yes: true }, ports(w, log, receipts)), "update_rolled_back", "state");
  assert.deepEqual(log, [
    "fetch main",
    "snapshot",
    "apply main",
    "probe",
    "rollback",
    "probe",
    "receipt rolled_back",
  ]);
  assert.equal(receipts[0].rollback?.ok, true);
  assert.match(receipts[0].rollback!.reason, /does not start/);
});

Deno.test("a rollback whose code does not start either is a failed update", async () => {
  const log: string[] = [], receipts: UpdateReceipt[] = [];
  const w = world({ probes: [{ ok: false, output: "x" }, { ok: false, output: "y" }] });
  await refused(runUpdate({ yes: true }, ports(w, log, receipts)), "update_failed", "state");
  assert.equal(receipts[0].result, "failed");
  assert.equal(receipts[0].rollback?.ok, false);
});

Deno.test("refusals: unmanaged (exit 2), dirty, diverged (exit 1), each with a receipt", async () => {
  const cases: [Partial<World>, string, string][] = [
    [
      { install: { kind: "unmanaged", reason: "installed by brew", hint: "brew upgrade herald" } },
      "update_unmanaged_install",
      "usage",
    ],
    [
      { current: { commit: A, branch: "main", dirty: ["README.md"] } },
      "update_local_changes",
      "state",
    ],
    [{ available: { commit: B, behind: 2, ahead: 1, subjects: [] } }, "update_diverged", "state"],
  ];
  for (const [overrides, code, kind] of cases) {
    const log: string[] = [], receipts: UpdateReceipt[] = [];
    await refused(runUpdate({ yes: true }, ports(world(overrides), log, receipts)), code, kind);
    assert.ok(!log.includes("snapshot") && !log.some((l) => l.startsWith("apply")), code);
    assert.deepEqual(receipts.map((r) => r.result), ["refused"], code);
  }
});

Deno.test("--check and --plan fetch and decide, and change nothing", async () => {
  for (const request of [{ check: true }, { plan: true }]) {
    const log: string[] = [], receipts: UpdateReceipt[] = [];
    const outcome = await runUpdate(request, ports(world(), log, receipts));
    assert.deepEqual(log, ["fetch main"]);
    assert.equal(outcome.plan?.upToDate, false);
    assert.equal(outcome.plan?.behind, 2);
  }
  const log: string[] = [];
  const unmanaged = world({ install: { kind: "unmanaged", reason: "r", hint: "h" } });
  await refused(
    runUpdate({ check: true }, ports(unmanaged, log, [])),
    "update_unmanaged_install",
    "usage",
  );
  assert.deepEqual(log, [], "no receipt for a check");
});

Deno.test("without --yes: asked on a terminal, refused with the hint otherwise", async () => {
  const log: string[] = [];
  await refused(runUpdate({}, ports(world(), log, [])), "update_needs_yes", "usage");
  assert.deepEqual(log, ["fetch main"]);

  const declined: string[] = [];
  const no = await runUpdate({}, ports(world({ confirm: false }), declined, []));
  assert.equal(no.result, "declined");
  assert.deepEqual(declined, ["fetch main", "ask"]);

  const accepted: string[] = [];
  const yes = await runUpdate({}, ports(world({ confirm: true }), accepted, []));
  assert.equal(yes.result, "updated");
  assert.deepEqual(accepted.slice(0, 3), ["fetch main", "ask", "snapshot"]);
});

Deno.test("up to date: nothing applied, a receipt says so; a bad branch name is a usage error", async () => {
  const log: string[] = [], receipts: UpdateReceipt[] = [];
  const w = world({ available: { commit: A, behind: 0, ahead: 0, subjects: [] } });
  const outcome = await runUpdate({ yes: true }, ports(w, log, receipts));
  assert.equal(outcome.result, "up_to_date");
  assert.deepEqual(log, ["fetch main", "receipt up_to_date"]);
  await refused(
    runUpdate({ branch: "--upload-pack=x" }, ports(world(), [], [])),
    "update_branch_invalid",
    "usage",
  );
  await refused(
    runUpdate({ branch: "a..b" }, ports(world(), [], [])),
    "update_branch_invalid",
    "usage",
  );
});
