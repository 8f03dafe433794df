/** The gateway's user service files: systemd units and launchd agents. */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  enableCommands,
  installService,
  launchdPlist,
  servesHome,
  servicePath,
  type ServiceSpec,
  systemdQuote,
  systemdUnit,
} from "../../../adapters/channels/gateway_service.ts";
import { HeraldError } from "../../../core/errors.ts";
import { tempDir } from "../../_helpers.ts";

function spec(overrides: Partial<ServiceSpec> = {}): ServiceSpec {
  return {
    manager: "systemd",
    profile: "default",
    command: ["/usr/local/bin/herald"],
    root: "/home/ann/.herald",
    logPath: "/home/ann/.herald/logs/gateway.log",
    userHome: "/home/ann",
    ...overrides,
  };
}

Deno.test("a systemd unit runs `herald [-p profile] gateway run` with the home it serves", () => {
  const unit = systemdUnit(spec({
    profile: "work",
    command: ["/opt/my deno/deno", "run", "--allow-all", "/src/100%/cli/main.ts"],
  }));
  assert.match(
    unit,
    /^ExecStart="\/opt\/my deno\/deno" run --allow-all \/src\/100%%\/cli\/main\.ts -p work gateway run$/m,
  );
  assert.match(unit, /^Environment=HERALD_HOME=\/home\/ann\/\.herald$/m);
  assert.match(unit, /^Environment=DENO_V8_FLAGS=--optimize-for-size$/m);
  assert.match(unit, /^Restart=on-failure$/m);
  assert.match(unit, /^WantedBy=default\.target$/m);
  assert.match(unit, /^Description=Herald messaging gateway \(profile work\)$/m);
  assert.doesNotMatch(systemdUnit(spec()), / -p /);
});

Deno.test("systemd words are quoted and escaped", () => {
  assert.equal(systemdQuote("/usr/bin/deno"), "/usr/bin/deno");
  assert.equal(systemdQuote('a "b"'), '"a \\"b\\""');
  assert.equal(systemdQuote("$HOME"), '"$$HOME"');
  assert.equal(systemdQuote("HERALD_HOME=/x $y", false), '"HERALD_HOME=/x $y"');
  assert.throws(() => systemdUnit(spec({ root: "/x\nExecStart=/bin/evil" })), HeraldError);
});

Deno.test("a launchd agent runs the same command and logs to the gateway log", () => {
  const plist = launchdPlist(spec({ manager: "launchd", profile: "work", root: "/a&b" }));
  assert.match(plist, /<string>ai\.herald\.gateway\.work<\/string>/);
  assert.match(
    plist,
    /<string>\/usr\/local\/bin\/herald<\/string>\s*<string>-p<\/string>\s*<string>work<\/string>\s*<string>gateway<\/string>\s*<string>run<\/string>/,
  );
  assert.match(plist, /<key>HERALD_HOME<\/key>\s*<string>\/a&amp;b<\/string>/);
  assert.match(plist, /<key>DENO_V8_FLAGS<\/key>\s*<string>--optimize-for-size<\/string>/);
  assert.match(
    plist,
    /<key>StandardOutPath<\/key>\s*<string>\/home\/ann\/\.herald\/logs\/gateway\.log/,
  );
});

Deno.test("service paths follow XDG_CONFIG_HOME, HOME and the profile", () => {
  assert.equal(
    servicePath("systemd", "default", { HOME: "/h" }),
    "/h/.config/systemd/user/herald-gateway.service",
  );
  assert.equal(
    servicePath("systemd", "work", { HOME: "/h", XDG_CONFIG_HOME: "/x" }),
    "/x/systemd/user/herald-gateway-work.service",
  );
  assert.equal(
    servicePath("launchd", "work", { HOME: "/h" }),
    "/h/Library/LaunchAgents/ai.herald.gateway.work.plist",
  );
  assert.throws(() => servicePath("systemd", "default", {}), HeraldError);
  assert.deepEqual(enableCommands("systemd", "work", "/x").slice(0, 2), [
    "systemctl --user daemon-reload",
    "systemctl --user enable --now herald-gateway-work.service",
  ]);
});

Deno.test("installing never replaces a file without force", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "systemd", "user", "herald-gateway.service");
  assert.deepEqual(await installService(spec(), path, false), { path, replaced: false });
  const first = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, "# mine\n");
  await assert.rejects(
    () => installService(spec(), path, false),
    (error: unknown) =>
      error instanceof HeraldError && error.code === "gateway_service_exists" &&
      error.kind === "conflict" && error.message.includes("--force"),
  );
  assert.equal(await Deno.readTextFile(path), "# mine\n");
  assert.deepEqual(await installService(spec(), path, true), { path, replaced: true });
  assert.equal(await Deno.readTextFile(path), first);
});

Deno.test("a service serves exactly its own home, not another whose path starts the same", () => {
  for (const manager of ["systemd", "launchd"] as const) {
    for (const root of ["/home/a/.herald", "/home/a/my herald & 100%"]) {
      const file = manager === "systemd"
        ? systemdUnit(spec({ manager, root }))
        : launchdPlist(spec({ manager, root }));
      assert.equal(servesHome(file, root), true, `${manager} ${root}`);
      assert.equal(servesHome(file, `${root}-work`), false, `${manager} ${root}-work`);
      assert.equal(servesHome(file, root.slice(0, -1)), false, `${manager} prefix`);
    }
    const work = manager === "systemd"
      ? systemdUnit(spec({ manager, root: "/home/a/.herald-work" }))
      : launchdPlist(spec({ manager, root: "/home/a/.herald-work" }));
    assert.equal(servesHome(work, "/home/a/.herald"), false, `${manager}: another home`);
  }
});
