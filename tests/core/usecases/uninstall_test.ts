/**
 * The uninstall plan (core/usecases/uninstall.ts): what goes in which
 * order, what stays, what is refused, and how a run stops when a gateway
 * cannot be stopped. The facts are built by hand; the end-to-end test
 * (tests/e2e/uninstall_e2e_test.ts) gathers them from a real disk.
 */

import assert from "node:assert/strict";
import {
  type InstallFacts,
  installSummary,
  planUninstall,
  refusalFor,
  runUninstall,
  type UninstallPorts,
  within,
} from "../../../core/usecases/uninstall.ts";

function facts(patch: Partial<InstallFacts> = {}): InstallFacts {
  return {
    userHome: "/home/ann",
    home: { path: "/home/ann/.herald", exists: true, empty: false, signs: ["config.yaml"] },
    profiles: [{ name: "default", home: "/home/ann/.herald" }, {
      name: "work",
      home: "/home/ann/.herald/profiles/work",
      gatewayPid: 4242,
    }],
    install: {
      path: "/home/ann/.herald/herald-agent",
      exists: true,
      empty: false,
      signs: [".herald-bootstrap-complete"],
    },
    marker: { state: "ok", pinnedCommit: "abcdef1", pinnedBranch: "main" },
    method: "git",
    binDir: "/home/ann/.local/bin",
    launchers: [
      {
        path: "/home/ann/.local/bin/herald",
        kind: "herald",
        dir: "/home/ann/.local/bin",
        inBinDir: true,
        target: "/home/ann/.herald/herald-agent",
      },
      {
        path: "/home/ann/.local/bin/work",
        kind: "profile",
        dir: "/home/ann/.local/bin",
        inBinDir: true,
        profile: "work",
      },
      {
        path: "/opt/bin/herald",
        kind: "herald",
        dir: "/opt/bin",
        inBinDir: false,
        target: "/src/other",
      },
    ],
    services: [{
      profile: "default",
      manager: "systemd",
      name: "herald-gateway.service",
      path: "/home/ann/.config/systemd/user/herald-gateway.service",
      loaded: true,
    }],
    gui: [],
    running: { mode: "source", path: "/home/ann/.herald/herald-agent" },
    ...patch,
  };
}

Deno.test("the default plan stops services and gateways first, then removes launchers and the install folder, and keeps the data", () => {
  const plan = planUninstall(facts(), "default");
  assert.deepEqual(plan.refusals, []);
  assert.deepEqual(plan.steps.map((s) => s.kind), [
    "disable_service",
    "stop_gateway",
    "remove_launcher",
    "remove_launcher",
    "remove_install",
  ]);
  assert.equal(plan.dataKept, "/home/ann/.herald");
  assert.ok(
    plan.kept.some((k) => k.path === "/opt/bin/herald"),
    "another checkout's launcher stays",
  );
  assert.ok(plan.notes.some((n) => n.includes("running this command")));
});

Deno.test("a full plan removes the home, which holds the install folder, once", () => {
  const plan = planUninstall(facts(), "full");
  assert.deepEqual(plan.refusals, []);
  const removals = plan.steps.filter((s) =>
    s.kind === "remove_install" || s.kind === "remove_home"
  );
  assert.deepEqual(removals, [{ kind: "remove_home", path: "/home/ann/.herald" }]);
  assert.equal(plan.dataKept, undefined);
});

Deno.test("the gui plan removes nothing and says why", () => {
  const plan = planUninstall(facts({ gui: [{ path: "/opt/Herald", owner: "package" }] }), "gui");
  assert.deepEqual(plan.steps, []);
  assert.match(plan.notes[0], /no chat GUI/);
  assert.deepEqual(plan.kept.map((k) => k.path), ["/opt/Herald"]);
});

Deno.test("dangerous and foreign folders are refused, each with its reason", () => {
  const at = (path: string, signs: string[] = [".install-state"]) => ({
    path,
    exists: true,
    empty: false,
    signs,
  });
  const refuse = (install: InstallFacts["install"]) =>
    planUninstall(facts({ install }), "default").refusals.join(" ");
  assert.match(refuse(at("/")), /root of the file system/);
  assert.match(refuse(at("/home/ann/")), /your home folder itself/);
  assert.match(refuse(at("/home")), /holds your home folder/);
  assert.match(refuse(at("/home/ann/.herald")), /holds the Herald home/);
  assert.match(refuse(at("/srv/app", [])), /does not look like Herald's/);
  assert.deepEqual(refuse({ ...at("/srv/empty", []), empty: true }), "");
  const home = { path: "/home/ann", exists: true, empty: false, signs: ["config.yaml"] };
  assert.match(planUninstall(facts({ home }), "full").refusals.join(" "), /home folder itself/);
  assert.equal(
    refusalFor("x", { path: "C:\\", exists: true, empty: false, signs: ["a"] }, undefined, "h")
      ?.includes("root of the file system"),
    true,
  );
});

Deno.test("within compares whole path segments", () => {
  assert.equal(within("/a/b", "/a"), true);
  assert.equal(within("/a", "/a/"), true);
  assert.equal(within("/ab", "/a"), false);
  assert.equal(within("/a", "/"), true);
});

function recordingPorts(failStop = false): { ports: UninstallPorts; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    ports: {
      disableService: (s) => Promise.resolve(void calls.push(`disable ${s.name}`)).then(() => "ok"),
      stopGateway: (profile) => {
        calls.push(`stop ${profile}`);
        return failStop ? Promise.reject(new Error("still runs")) : Promise.resolve("stopped");
      },
      removeLauncher: (l) => Promise.resolve(void calls.push(`rm ${l.path}`)),
      removeTree: (path) => Promise.resolve(void calls.push(`rm -r ${path}`)),
    },
  };
}

Deno.test("a run follows the plan's order", async () => {
  const { ports, calls } = recordingPorts();
  const results = await runUninstall(planUninstall(facts(), "default"), ports);
  assert.ok(results.every((r) => r.ok));
  assert.deepEqual(calls, [
    "disable herald-gateway.service",
    "stop work",
    "rm /home/ann/.local/bin/work",
    "rm /home/ann/.local/bin/herald",
    "rm -r /home/ann/.herald/herald-agent",
  ]);
});

Deno.test("a gateway that cannot be stopped leaves every file in place", async () => {
  const { ports, calls } = recordingPorts(true);
  const results = await runUninstall(planUninstall(facts(), "full"), ports);
  assert.deepEqual(calls, ["disable herald-gateway.service", "stop work"]);
  assert.ok(results.slice(2).every((r) => !r.ok && "skipped" in r));
});

Deno.test("a plan with refusals never runs", async () => {
  const plan = planUninstall(facts({ install: { ...facts().install, path: "/" } }), "default");
  const { ports, calls } = recordingPorts();
  await assert.rejects(runUninstall(plan, ports));
  assert.deepEqual(calls, []);
});

Deno.test("the summary names the paths, the marker, the method and the running gateways", () => {
  const summary = installSummary(facts(), "herald 0.1.0 (abc)");
  assert.equal(summary.install.method, "git");
  assert.equal(summary.install.marker.pinnedCommit, "abcdef1");
  assert.deepEqual(summary.gateways, [{ profile: "work", pid: 4242 }]);
  assert.deepEqual(summary.home.profiles, ["default", "work"]);
  assert.equal(summary.gui.installed, false);
});
