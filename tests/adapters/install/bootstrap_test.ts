/**
 * The desktop bootstrap resolver against real files and real subprocesses:
 * fake `herald` programs (small sh scripts that print a version line) for
 * the probes, and a fake staged installer (an sh script speaking the
 * installer protocol) for the bootstrap.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  DesktopResolver,
  type DesktopResolverOptions,
  EMBEDDED_INSTALLER,
  EOF_GRACE_MS,
  installerCopyPath,
  probeVersion,
} from "../../../adapters/install/bootstrap.ts";
import { markerPath, readMarker } from "../../../adapters/install/marker.ts";
import { pathExists } from "../../../adapters/fs/read.ts";
import type { BootstrapEvent } from "../../../core/desktop/bootstrap.ts";
import { HeraldError } from "../../../core/errors.ts";

const MARKER = JSON.stringify({
  schemaVersion: 1,
  pinnedCommit: "3f2a9c1d0b7e",
  pinnedBranch: "main",
  completedAt: "2026-01-02T03:04:05.000Z",
});

/** A fake installer: stages one, two, complete; `FAKE_FAIL` names a stage that fails. */
const FAKE_INSTALLER = `#!/bin/sh
echo "$*" >> "$FAKE_LOG"
if [ "$1" = --manifest ]; then
  echo "manifest diagnostics" >&2
  printf '%s\\n' '{"protocolVersion":1,"stages":[{"name":"one","title":"One","category":"runtime","needsInput":false},{"name":"two","title":"Two","category":"configuration","needsInput":true},{"name":"complete","title":"Finish","category":"runtime","needsInput":false}]}'
  exit 0
fi
stage="$2"
echo "working on $stage" >&2
i=0
while [ "$i" -lt "\${FAKE_LINES:-0}" ]; do echo "noise $i" >&2; i=$((i + 1)); done
if [ "$stage" = "$FAKE_FAIL" ]; then
  echo "boom in $stage" >&2
  printf '{"ok":false,"stage":"%s","skipped":false,"reason":"exit code 3"}\\n' "$stage"
  exit 3
fi
if [ "$stage" = two ]; then
  printf '{"ok":true,"stage":"two","skipped":true,"reason":"non-interactive"}\\n'
  exit 0
fi
if [ "$stage" = complete ]; then
  mkdir -p "$HERALD_INSTALL_DIR"
  printf '#!/bin/sh\\necho "herald 9.9.9 (3f2a9c1d0b7e)"\\n' > "$HERALD_INSTALL_DIR/herald"
  chmod 755 "$HERALD_INSTALL_DIR/herald"
  printf '%s\\n' '${MARKER}' > "$HERALD_INSTALL_DIR/.herald-bootstrap-complete"
fi
printf '{"ok":true,"stage":"%s","skipped":false}\\n' "$stage"
`;

/** A line of sh that writes the script's process group id to `file`. */
const RECORD_PGID = (file: string) => `cut -d' ' -f5 /proc/$$/stat > '${file}'`;

/**
 * The live processes still in the process group recorded in `file` (from
 * `ps -e`; a zombie left to an init that has not reaped it yet is not running).
 */
async function groupLeft(file: string): Promise<string[]> {
  const pgid = (await Deno.readTextFile(file)).trim();
  assert.match(pgid, /^\d+$/);
  const out = await new Deno.Command("ps", {
    args: ["-e", "-o", "pgid=,stat=,pid=,args="],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([group, stat]) => group === pgid && !stat.startsWith("Z"))
    .map((fields) => fields.join(" "));
}

interface Fixture {
  dir: string;
  install: string;
  bin: string;
  log: string;
  installer: string;
  env: Record<string, string>;
  options(extra?: Partial<DesktopResolverOptions>): DesktopResolverOptions;
  ran(): Promise<string[]>;
}

async function fakeHerald(path: string, line = "herald 1.2.3 (abcdef012345)"): Promise<string> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, `#!/bin/sh\necho "${line}"\n`, { mode: 0o755 });
  await Deno.chmod(path, 0o755);
  return path;
}

async function withFixture(body: (f: Fixture) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "herald-desktop-" });
  const install = join(dir, "install");
  const bin = join(dir, "bin");
  const log = join(dir, "installer.log");
  const installer = join(dir, "install.sh");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(installer, FAKE_INSTALLER, { mode: 0o755 });
  await Deno.chmod(installer, 0o755);
  const env: Record<string, string> = {
    HOME: join(dir, "home"),
    HERALD_HOME: join(dir, "herald-home"),
    HERALD_INSTALL_DIR: install,
    PATH: `${bin}:/usr/bin:/bin`,
    FAKE_LOG: log,
  };
  const fixture: Fixture = {
    dir,
    install,
    bin,
    log,
    installer,
    env,
    options: (extra = {}) => ({
      env,
      checkout: null,
      installer: [installer],
      packagePaths: [],
      probeTimeoutMs: 10_000,
      ...extra,
    }),
    ran: async () => {
      const text = await Deno.readTextFile(log).catch(() => "");
      return text.split("\n").filter((line) => line !== "");
    },
  };
  try {
    await body(fixture);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("each rung answers in order as the ones before it go away", async () => {
  await withFixture(async (f) => {
    // Rung 1: an override folder holding a herald binary.
    const override = join(f.dir, "override");
    await fakeHerald(join(override, "herald"));
    // Rung 2: a git checkout that is not the install folder.
    const checkout = join(f.dir, "checkout");
    await Deno.mkdir(join(checkout, ".git"), { recursive: true });
    await Deno.mkdir(join(checkout, "cli"));
    await Deno.writeTextFile(join(checkout, "cli", "main.ts"), "");
    // Rung 3: the install folder with a marker and a runtime.
    await fakeHerald(join(f.install, "herald"), "herald 3.0.0 (abcdef012345)");
    await Deno.writeTextFile(markerPath(f.install), MARKER);
    // Rung 4: herald on the PATH.
    await fakeHerald(join(f.bin, "herald"), "herald 4.0.0 (abcdef012345)");
    // Rung 5: the desktop's bundled binary.
    const bundled = await fakeHerald(
      join(f.dir, "bundle", "herald"),
      "herald 5.0.0 (abcdef012345)",
    );

    const resolveWith = async (env: Record<string, string>) =>
      await new DesktopResolver(
        f.options({ env, checkout, bundledBinary: bundled, deno: "/opt/deno" }),
      ).resolve();

    const env: Record<string, string> = { ...f.env, HERALD_DESKTOP_ROOT: override };
    let r = await resolveWith(env);
    assert.equal(r.backend.rung, "root-override");
    assert.deepEqual(r.backend.command, [join(override, "herald")]);

    delete env.HERALD_DESKTOP_ROOT;
    r = await resolveWith(env);
    assert.equal(r.backend.rung, "dev-checkout");
    assert.deepEqual(r.backend.command.slice(0, 2), ["/opt/deno", "run"]);
    assert.equal(r.backend.command.at(-1), join(checkout, "cli", "main.ts"));

    env.HERALD_DEV = "0";
    r = await resolveWith(env);
    assert.equal(r.backend.rung, "active-install");
    assert.equal(r.backend.version, "herald 3.0.0 (abcdef012345)");
    assert.equal(r.backend.root, f.install);
    assert.deepEqual(r.passed.map((p) => p.rung), ["root-override", "dev-checkout"]);

    await Deno.writeTextFile(markerPath(f.install), "\uFEFF" + MARKER);
    r = await resolveWith(env);
    assert.equal(r.backend.rung, "path");
    assert.equal(r.backend.version, "herald 4.0.0 (abcdef012345)");
    assert.match(r.passed[2].reason, /byte-order mark.*bootstrap needed/);

    env.HERALD_DESKTOP_IGNORE_EXISTING = "1";
    r = await resolveWith(env);
    assert.equal(r.backend.rung, "package");
    assert.equal(r.backend.version, "herald 5.0.0 (abcdef012345)");

    await Deno.remove(bundled);
    await Deno.remove(join(f.install, "herald"));
    await Deno.remove(markerPath(f.install));
    r = await resolveWith(env);
    assert.equal(r.backend.rung, "bootstrap");
    assert.equal(r.backend.version, "herald 9.9.9 (3f2a9c1d0b7e)");
    assert.deepEqual(r.passed.map((p) => p.rung), [
      "root-override",
      "dev-checkout",
      "active-install",
      "path",
      "package",
    ]);
  });
});

Deno.test("an override pointing at nothing is refused; a checkout that is the install folder is not dev mode", async () => {
  await withFixture(async (f) => {
    const env = { ...f.env, HERALD_DESKTOP_ROOT: join(f.dir, "nowhere") };
    await assert.rejects(
      () => new DesktopResolver(f.options({ env })).resolve(),
      (error: HeraldError) =>
        error.code === "desktop_root_invalid" && /HERALD_DESKTOP_ROOT/.test(error.message),
    );
    await Deno.mkdir(join(f.install, ".git"), { recursive: true });
    await fakeHerald(join(f.install, "herald"));
    await Deno.writeTextFile(markerPath(f.install), MARKER);
    const r = await new DesktopResolver(f.options({ checkout: f.install })).resolve();
    assert.equal(r.backend.rung, "active-install");
    assert.match(r.passed[1].reason, /is the install folder/);
  });
});

Deno.test("version probes: a non-Herald answer, a failing program and a hung one all pass the rung", async () => {
  await withFixture(async (f) => {
    const other = await fakeHerald(join(f.dir, "other"), "Python 3.12.1");
    const failing = join(f.dir, "failing");
    await Deno.writeTextFile(failing, "#!/bin/sh\nexit 4\n", { mode: 0o755 });
    const hung = join(f.dir, "hung");
    const hungGroup = join(f.dir, "hung.pgid");
    await Deno.writeTextFile(
      hung,
      `#!/bin/sh\n${RECORD_PGID(hungGroup)}\nsleep 30\necho 'herald 1 (x)'\n`,
      { mode: 0o755 },
    );
    const env = f.env;
    const a = await probeVersion([other], env);
    assert.ok(!a.ok && /not Herald's version/.test(a.reason));
    const b = await probeVersion([failing], env);
    assert.ok(!b.ok && /exited with 4/.test(b.reason));
    const started = Date.now();
    const c = await probeVersion([hung], env, 300);
    assert.ok(!c.ok && /gave no answer/.test(c.reason));
    // Bounded by the timeout and the kill grace, not by the 30 s sleep; and nothing is left.
    assert.ok(Date.now() - started < 300 + EOF_GRACE_MS + 5000, `${Date.now() - started} ms`);
    assert.deepEqual(await groupLeft(hungGroup), []);
    const d = await probeVersion([join(f.dir, "missing")], env);
    assert.ok(!d.ok && /cannot be started/.test(d.reason));
  });
});

Deno.test("a bootstrap reports the synthetic start, the stage list and each stage, then stamps the marker", async () => {
  await withFixture(async (f) => {
    const events: BootstrapEvent[] = [];
    const resolver = new DesktopResolver(
      f.options({ onEvent: (e) => events.push(e), desktopVersion: "0.0.1" }),
    );
    const r = await resolver.resolve();
    assert.equal(r.backend.rung, "bootstrap");
    assert.deepEqual(r.backend.command, [join(f.install, "herald")]);
    const shape = events.map((e) =>
      e.type === "manifest"
        ? `manifest:${e.stages.map((s) => s.name).join(",")}`
        : e.type === "output"
        ? `output:${e.stage}:${e.line}`
        : `${e.stage}:${e.state}${e.state === "done" && e.skipped ? `:skipped:${e.reason}` : ""}`
    );
    assert.deepEqual(shape, [
      "manifest:",
      "manifest:one,two,complete",
      "one:running",
      "output:one:working on one",
      "one:done",
      "two:running",
      "output:two:working on two",
      "two:done:skipped:non-interactive",
      "complete:running",
      "output:complete:working on complete",
      "complete:done",
    ]);
    const manifest = events[1];
    assert.ok(manifest.type === "manifest" && manifest.stages[1].needsInput === true);
    assert.deepEqual(await f.ran(), [
      "--manifest",
      "--stage one --json --non-interactive",
      "--stage two --json --non-interactive",
      "--stage complete --json --non-interactive",
    ]);
    const marker = await readMarker(f.install);
    assert.ok(marker.state === "ok" && marker.marker.desktopVersion === "0.0.1");
    assert.equal(marker.marker.pinnedCommit, "3f2a9c1d0b7e");
  });
});

Deno.test("a failing stage is reported with its output, latched in memory and on disk, until reset", async () => {
  await withFixture(async (f) => {
    const events: BootstrapEvent[] = [];
    const env = { ...f.env, FAKE_FAIL: "two" };
    const first = new DesktopResolver(f.options({ env, onEvent: (e) => events.push(e) }));
    const failed = await first.resolve().then(() => undefined, (error) => error);
    assert.ok(failed instanceof HeraldError);
    assert.equal(failed.code, "desktop_bootstrap_failed");
    assert.match(failed.message, /stage "two".*exit code 3.*boom in two.*herald desktop --reset/);
    const last = events.at(-1)!;
    assert.ok(last.type === "stage" && last.state === "failed");
    assert.equal(last.stage, "two");
    assert.equal(last.reason, "exit code 3");
    assert.deepEqual(last.output.slice(-2), ["working on two", "boom in two"]);
    assert.ok(!events.some((e) => e.type === "stage" && e.stage === "complete"));
    const ranOnce = await f.ran();
    assert.equal(ranOnce.length, 3);

    // Same process: thrown at once, nothing runs, no events.
    events.length = 0;
    const again = await first.resolve().then(() => undefined, (error) => error);
    assert.equal(again.message, failed.message);
    assert.deepEqual(await f.ran(), ranOnce);
    assert.deepEqual(events, []);

    // A restarted desktop (a new resolver) reads the latch from the install folder.
    const restarted = new DesktopResolver(f.options({ env: f.env }));
    const fromDisk = await restarted.resolve().then(() => undefined, (error) => error);
    assert.equal(fromDisk.message, failed.message);
    assert.deepEqual(await f.ran(), ranOnce);
    assert.ok((await restarted.latched())?.stage === "two");

    // After a reset the installer runs again (now without the failure).
    assert.equal(await restarted.reset(), true);
    assert.equal(await restarted.latched(), undefined);
    const r = await restarted.resolve();
    assert.equal(r.backend.rung, "bootstrap");
    assert.equal((await f.ran()).length, ranOnce.length + 4);
    assert.equal(await restarted.reset(), false);
  });
});

Deno.test("the output ring buffer of a failed stage holds only the last N lines", async () => {
  await withFixture(async (f) => {
    const events: BootstrapEvent[] = [];
    const env = { ...f.env, FAKE_FAIL: "one", FAKE_LINES: "50" };
    const resolver = new DesktopResolver(
      f.options({ env, outputLines: 5, onEvent: (e) => events.push(e) }),
    );
    await assert.rejects(() => resolver.resolve(), /stage "one"/);
    const failed = events.at(-1)!;
    assert.ok(failed.type === "stage" && failed.state === "failed");
    assert.deepEqual(failed.output, [
      "noise 46",
      "noise 47",
      "noise 48",
      "noise 49",
      "boom in one",
    ]);
    // Every line still went out as an output event.
    assert.equal(events.filter((e) => e.type === "output").length, 52);
    assert.deepEqual((await resolver.latched())?.output, failed.output);
  });
});

Deno.test("a stage that breaks the protocol or a broken manifest fails and latches", async () => {
  await withFixture(async (f) => {
    await Deno.writeTextFile(
      f.installer,
      `#!/bin/sh\nif [ "$1" = --manifest ]; then echo '{"protocolVersion":7,"stages":[]}'; exit 0; fi\n`,
    );
    const resolver = new DesktopResolver(f.options());
    await assert.rejects(() => resolver.resolve(), /stage "manifest".*protocol 1/);
    await resolver.reset();
    await Deno.writeTextFile(
      f.installer,
      `#!/bin/sh
if [ "$1" = --manifest ]; then
  echo '{"protocolVersion":1,"stages":[{"name":"one","title":"One","category":"runtime","needsInput":false}]}'
  exit 0
fi
echo "not a frame"
`,
    );
    await assert.rejects(() => resolver.resolve(), /stage "one".*not JSON/);
  });
});

Deno.test({
  name: "the real installers/install.sh prints a manifest this resolver reads",
  ignore: !(await Deno.stat(new URL("../../../installers/install.sh", import.meta.url)).then(
    () => true,
    () => false,
  )),
  fn: async () => {
    const { parseManifest } = await import("../../../core/desktop/bootstrap.ts");
    const script = new URL("../../../installers/install.sh", import.meta.url).pathname;
    const out = await new Deno.Command("bash", { args: [script, "--manifest"], stderr: "null" })
      .output();
    assert.equal(out.code, 0);
    const parsed = parseManifest(new TextDecoder().decode(out.stdout));
    assert.ok(parsed.ok, parsed.ok ? "" : parsed.reason);
    assert.equal(parsed.value.stages[0].name, "prerequisites");
    assert.equal(parsed.value.stages.at(-1)!.name, "complete");
  },
});

Deno.test({
  name: "a probe whose program leaves a process holding its output returns soon and leaves nothing",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await withFixture(async (f) => {
      const herald = join(f.dir, "herald");
      const group = join(f.dir, "herald.pgid");
      await Deno.writeTextFile(
        herald,
        `#!/bin/sh\n${RECORD_PGID(group)}\nsleep 30 &\necho "herald 1.0 (abc)"\n`,
        { mode: 0o755 },
      );
      const started = Date.now();
      const probe = await probeVersion([herald], f.env, 1000);
      assert.deepEqual(probe, { ok: true, version: "herald 1.0 (abc)" });
      assert.ok(Date.now() - started < 1000 + EOF_GRACE_MS + 5000, `${Date.now() - started} ms`);
      assert.deepEqual(await groupLeft(group), []);
    });
  },
});

Deno.test("rung 3 runs a checkout install with the Deno install.sh recorded, else its recorded launcher", async () => {
  await withFixture(async (f) => {
    await Deno.mkdir(join(f.install, "cli"), { recursive: true });
    await Deno.mkdir(join(f.install, ".install-state"), { recursive: true });
    await Deno.writeTextFile(join(f.install, "cli", "main.ts"), 'console.log("not this");\n');
    await Deno.writeTextFile(markerPath(f.install), MARKER);
    // This process's deno (the fallback) would run main.ts and print "not this".
    const deno = await fakeHerald(join(f.dir, "pinned", "deno"), "herald 2.0.0 (recorded)");
    await Deno.writeTextFile(join(f.install, ".install-state", "deno"), `${deno}\n`);
    const r = await new DesktopResolver(f.options()).resolve();
    assert.equal(r.backend.rung, "active-install");
    assert.equal(r.backend.command[0], deno);
    assert.equal(r.backend.version, "herald 2.0.0 (recorded)");

    // No recorded Deno: the launcher the path stage recorded, when it runs this folder.
    await Deno.remove(join(f.install, ".install-state", "deno"));
    const launcher = join(f.bin, "herald");
    await Deno.writeTextFile(
      launcher,
      `#!/bin/sh\n# herald-launcher: herald\ncheckout='${f.install}'\necho "herald 3.0.0 (launcher)"\n`,
      { mode: 0o755 },
    );
    await Deno.writeTextFile(join(f.install, ".install-state", "herald"), `${launcher}\n`);
    const viaLauncher = await new DesktopResolver(f.options()).resolve();
    assert.equal(viaLauncher.backend.rung, "active-install");
    assert.deepEqual(viaLauncher.backend.command, [launcher]);
  });
});

Deno.test("concurrent bootstraps run the installer once and all see its result, or its failure", async () => {
  await withFixture(async (f) => {
    const resolver = new DesktopResolver(f.options());
    const other = new DesktopResolver(f.options());
    const answers = await Promise.all([resolver.resolve(), resolver.resolve(), other.resolve()]);
    assert.deepEqual(answers.map((a) => a.backend.rung), ["bootstrap", "bootstrap", "bootstrap"]);
    assert.equal((await f.ran()).length, 4);
    assert.equal(
      await pathExists(join(f.install, ".install-state", ".herald-bootstrap.lock")),
      false,
    );
  });
  await withFixture(async (f) => {
    const env = { ...f.env, FAKE_FAIL: "two" };
    const resolver = new DesktopResolver(f.options({ env }));
    const other = new DesktopResolver(f.options({ env }));
    const failures = await Promise.all(
      [resolver.resolve(), resolver.resolve(), other.resolve()].map((p) =>
        p.then(() => "resolved", (error: Error) => error.message)
      ),
    );
    assert.match(failures[0], /stage "two"/);
    assert.deepEqual(failures, [failures[0], failures[0], failures[0]]);
    assert.equal((await f.ran()).length, 3);
  });
});

Deno.test("a broken manifest and a finished install that is missing or does not run each report a failed event", async () => {
  await withFixture(async (f) => {
    const events: BootstrapEvent[] = [];
    await Deno.writeTextFile(f.installer, `#!/bin/sh\necho "no manifest here"\n`);
    const resolver = new DesktopResolver(f.options({ onEvent: (e) => events.push(e) }));
    await assert.rejects(() => resolver.resolve(), /stage "manifest"/);
    const failed = events.at(-1)!;
    assert.ok(failed.type === "stage" && failed.state === "failed", JSON.stringify(failed));
    assert.equal(failed.stage, "manifest");
    assert.equal(failed.reason, (await resolver.latched())?.reason);

    // Every stage passes but none writes the marker.
    await resolver.reset();
    events.length = 0;
    await Deno.writeTextFile(
      f.installer,
      FAKE_INSTALLER.replace('if [ "$stage" = complete ]', "if false"),
    );
    await assert.rejects(() => resolver.resolve(), /stage "complete".*is missing/);
    const missing = events.at(-1)!;
    assert.ok(
      missing.type === "stage" && missing.state === "failed" && missing.stage === "complete",
    );
    assert.match(missing.reason, /finished but .* is missing/);

    // The marker is written but the install's herald does not answer.
    await resolver.reset();
    events.length = 0;
    await Deno.writeTextFile(f.installer, FAKE_INSTALLER.replace("herald 9.9.9", "nope 9.9.9"));
    await assert.rejects(() => resolver.resolve(), /does not run/);
    const broken = events.at(-1)!;
    assert.ok(broken.type === "stage" && broken.state === "failed" && broken.stage === "complete");
    assert.equal(events.filter((e) => e.type === "stage" && e.state === "failed").length, 1);
  });
});

Deno.test("a stage that leaves a process holding its output does not hold the bootstrap until it ends", async () => {
  await withFixture(async (f) => {
    const slept = join(f.dir, "slept");
    await Deno.writeTextFile(
      f.installer,
      FAKE_INSTALLER.replace('stage="$2"\n', `stage="$2"\n(sleep 2; touch '${slept}') &\n`),
    );
    const r = await new DesktopResolver(f.options()).resolve();
    assert.equal(r.backend.rung, "bootstrap");
    // The stages' leftovers (which hold stdout and stderr) had not ended when the bootstrap did.
    assert.equal(await pathExists(slept), false);
    for (let i = 0; i < 200 && !await pathExists(slept); i++) {
      await new Promise((done) => setTimeout(done, 50));
    }
  });
});

Deno.test("two processes bootstrapping one install folder run the installer once", async () => {
  await withFixture(async (f) => {
    // Stage one is slow enough for the two bootstraps to overlap.
    await Deno.writeTextFile(
      f.installer,
      FAKE_INSTALLER.replace('stage="$2"\n', 'stage="$2"\n[ "$stage" = one ] && sleep 1\n'),
    );
    const module = new URL("../../../adapters/install/bootstrap.ts", import.meta.url).href;
    const config = new URL("../../../deno.json", import.meta.url).pathname;
    const code = `import { DesktopResolver } from ${JSON.stringify(module)};
const options = JSON.parse(Deno.env.get("RESOLVER_OPTIONS"));
const r = await new DesktopResolver(options).resolve();
console.log(r.backend.rung);`;
    const options = { ...f.options(), onEvent: undefined };
    const other = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--config", config, code],
      env: { RESOLVER_OPTIONS: JSON.stringify(options), NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const mine = await new DesktopResolver(f.options()).resolve();
    const theirs = await other;
    assert.equal(theirs.code, 0, new TextDecoder().decode(theirs.stderr));
    assert.equal(new TextDecoder().decode(theirs.stdout).trim(), "bootstrap");
    assert.equal(mine.backend.rung, "bootstrap");
    assert.equal((await f.ran()).filter((line) => line === "--manifest").length, 1);
  });
});

Deno.test("the installer is the option, else the checkout's, else a copy of the embedded one, else a download", async () => {
  await withFixture(async (f) => {
    const copyPath = installerCopyPath(f.install);
    assert.equal(copyPath, join(f.dir, ".herald-install.sh"));
    const requested: string[] = [];
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      requested.push(new URL(req.url).pathname);
      return new Response("#!/bin/sh\necho downloaded\n");
    });
    try {
      const url = `http://127.0.0.1:${server.addr.port}/install.sh`;
      const env = { ...f.env, HERALD_INSTALLER_URL: url };
      const embedded = join(f.dir, "embedded", "install.sh");
      await Deno.mkdir(join(f.dir, "embedded"));
      await Deno.writeTextFile(embedded, "#!/bin/sh\necho embedded\n", { mode: 0o644 });
      const checkout = join(f.dir, "checkout");
      await Deno.mkdir(join(checkout, "installers"), { recursive: true });
      const checkoutScript = join(checkout, "installers", "install.sh");
      await Deno.writeTextFile(checkoutScript, "#!/bin/sh\n", { mode: 0o644 });
      const installer = (extra: Partial<DesktopResolverOptions>) =>
        new DesktopResolver(f.options({ env, installer: undefined, ...extra })).installer();

      assert.deepEqual(await installer({ installer: ["x", "y"], checkout }), ["x", "y"]);
      assert.deepEqual(await installer({ checkout, embeddedInstaller: embedded }), [
        "bash",
        checkoutScript,
      ]);
      assert.equal(await pathExists(copyPath), false);

      // No checkout: the embedded script, copied out (0755) and run with sh; the URL is not used.
      assert.deepEqual(await installer({ embeddedInstaller: embedded }), ["sh", copyPath]);
      assert.equal(await Deno.readTextFile(copyPath), "#!/bin/sh\necho embedded\n");
      assert.equal((await Deno.stat(copyPath)).mode! & 0o777, 0o755);
      assert.deepEqual(requested, []);

      // By default the embedded script is found next to the code: from source, this checkout's.
      assert.equal(
        EMBEDDED_INSTALLER,
        new URL("../../../installers/install.sh", import.meta.url).pathname,
      );
      assert.deepEqual(await installer({}), ["sh", copyPath]);
      assert.equal(await Deno.readTextFile(copyPath), await Deno.readTextFile(EMBEDDED_INSTALLER));

      // No embedded script: the download.
      for (const none of [null, join(f.dir, "no-such-install.sh")]) {
        await Deno.remove(copyPath);
        assert.deepEqual(await installer({ embeddedInstaller: none }), [copyPath]);
        assert.equal(await Deno.readTextFile(copyPath), "#!/bin/sh\necho downloaded\n");
      }
      assert.deepEqual(requested, ["/install.sh", "/install.sh"]);

      await assert.rejects(
        () =>
          new DesktopResolver(f.options({ installer: undefined, embeddedInstaller: null }))
            .installer(),
        (error: HeraldError) =>
          error.code === "desktop_installer_missing" && /HERALD_INSTALLER_URL/.test(error.message),
      );
    } finally {
      await server.shutdown();
    }
  });
});

Deno.test("HERALD_INSTALLER_URL must be https (plain http only to this machine), and so must its redirects", async () => {
  await withFixture(async (f) => {
    const requested: string[] = [];
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      const path = new URL(req.url).pathname;
      requested.push(path);
      if (path === "/away") {
        return new Response(null, {
          status: 302,
          headers: { location: "http://user:secret@example.com/install.sh" },
        });
      }
      if (path === "/near") return new Response(null, { status: 301, headers: { location: "/x" } });
      return new Response("#!/bin/sh\necho ok\n");
    });
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      const download = (url: string) =>
        new DesktopResolver(
          f.options({
            env: { ...f.env, HERALD_INSTALLER_URL: url },
            installer: undefined,
            embeddedInstaller: null,
          }),
        ).installer();
      const copy = installerCopyPath(f.install);

      const plain = await download("http://user:secret@example.com/install.sh").then(
        () => undefined,
        (e) => e,
      );
      assert.ok(plain instanceof HeraldError, String(plain));
      assert.equal(plain.code, "desktop_installer_url");
      assert.match(plain.message, /is not https.*set HERALD_INSTALLER_URL to the https address/);
      assert.doesNotMatch(plain.message, /secret/);
      assert.equal(await pathExists(copy), false);

      const away = await download(`${base}/away`).then(() => undefined, (e) => e);
      assert.ok(away instanceof HeraldError, String(away));
      assert.equal(away.code, "desktop_installer_url");
      assert.match(
        away.message,
        /redirects to http:\/\/user:…@example\.com\/install\.sh.*not https/,
      );
      assert.match(away.message, /final https address/);
      assert.doesNotMatch(away.message, /secret/);
      assert.equal(await pathExists(copy), false);

      // A redirect that stays on this machine is followed.
      assert.deepEqual(await download(`${base}/near`), [copy]);
      assert.equal(await Deno.readTextFile(copy), "#!/bin/sh\necho ok\n");
      assert.deepEqual(requested, ["/away", "/near", "/x"]);
    } finally {
      await server.shutdown();
    }
  });
});

Deno.test("a failing --version probe quotes the end of its stderr, bounded", async () => {
  await withFixture(async (f) => {
    const failing = join(f.dir, "failing");
    await Deno.writeTextFile(
      failing,
      "#!/bin/sh\necho 'first line' >&2\necho 'error: Module not found \"x.ts\"' >&2\n" +
        "echo 'at cli/main.ts:3' >&2\nexit 4\n",
      { mode: 0o755 },
    );
    const probe = await probeVersion([failing], f.env);
    assert.ok(!probe.ok);
    assert.equal(
      probe.reason,
      `\`${failing} --version\` exited with 4: error: Module not found "x.ts" | at cli/main.ts:3`,
    );

    const loud = join(f.dir, "loud");
    await Deno.writeTextFile(
      loud,
      "#!/bin/sh\ni=0\nwhile [ $i -lt 2000 ]; do printf 'xxxxxxxxxx'; i=$((i+1)); done >&2\n" +
        "echo ' the end' >&2\nexit 1\n",
      { mode: 0o755 },
    );
    const bounded = await probeVersion([loud], f.env);
    assert.ok(!bounded.ok);
    assert.match(bounded.reason, /exited with 1: …x+ the end$/);
    assert.ok(bounded.reason.length < failing.length + 400, `${bounded.reason.length} characters`);
  });
});

Deno.test("rung 5 tells a missing package binary from one that is not executable", async () => {
  await withFixture(async (f) => {
    const plain = join(f.dir, "plain-herald");
    await Deno.writeTextFile(plain, "#!/bin/sh\necho 'herald 1.0 (abc)'\n", { mode: 0o644 });
    await Deno.chmod(plain, 0o644);
    const gone = join(f.dir, "gone-herald");
    const answer = await new DesktopResolver(f.options({ packagePaths: [gone, plain, f.dir] }))
      .installedPackage();
    assert.ok(!answer.answered);
    assert.equal(
      answer.reason,
      `${gone} is not there; ${plain} is there but not executable (chmod +x it); ` +
        `${f.dir} is not a file`,
    );
  });
});

Deno.test("when the failure cannot be written to disk, the installer's failure is still what is thrown", async () => {
  await withFixture(async (f) => {
    // The failing stage leaves a folder where the latch file goes, so writing it fails.
    await Deno.writeTextFile(
      f.installer,
      FAKE_INSTALLER.replace(
        'if [ "$stage" = "$FAKE_FAIL" ]; then\n',
        'if [ "$stage" = "$FAKE_FAIL" ]; then\n  mkdir -p "$HERALD_INSTALL_DIR/.herald-bootstrap-failed/x"\n',
      ),
    );
    const events: BootstrapEvent[] = [];
    const resolver = new DesktopResolver(
      f.options({ env: { ...f.env, FAKE_FAIL: "two" }, onEvent: (e) => events.push(e) }),
    );
    const error = await resolver.resolve().then(() => undefined, (e) => e);
    assert.ok(error instanceof HeraldError, String(error));
    assert.equal(error.code, "desktop_bootstrap_failed");
    assert.match(error.message, /stage "two".*exit code 3/);
    assert.match(
      error.message,
      /could not be kept in .*\.herald-bootstrap-failed.*this process only/,
    );
    const failed = events.at(-1)!;
    assert.ok(failed.type === "stage" && failed.state === "failed" && failed.stage === "two");
    // Latched in memory all the same: asked again, nothing runs.
    const ran = await f.ran();
    assert.equal((await resolver.latched())?.stage, "two");
    await assert.rejects(() => resolver.resolve(), /stage "two"/);
    assert.deepEqual(await f.ran(), ran);
  });
});

Deno.test("a reset waits for another process's bootstrap, so it clears the failure that bootstrap latched", async () => {
  await withFixture(async (f) => {
    // With no install folder there is nothing to wait for, and a reset makes no folder.
    assert.equal(await new DesktopResolver(f.options()).reset(), false);
    assert.equal(await pathExists(f.install), false);
    const go = join(f.dir, "go");
    await Deno.writeTextFile(
      f.installer,
      FAKE_INSTALLER.replace(
        'stage="$2"\n',
        `stage="$2"\nif [ "$stage" = one ]; then while [ ! -e '${go}' ]; do sleep 0.05; done; fi\n`,
      ),
    );
    const module = new URL("../../../adapters/install/bootstrap.ts", import.meta.url).href;
    const config = new URL("../../../deno.json", import.meta.url).pathname;
    const code = `import { DesktopResolver } from ${JSON.stringify(module)};
const options = JSON.parse(Deno.env.get("RESOLVER_OPTIONS"));
const r = await new DesktopResolver(options).resolve().then(() => "resolved", (e) => e.code);
console.log(r);`;
    const env = { ...f.env, FAKE_FAIL: "two" };
    const other = new Deno.Command(Deno.execPath(), {
      args: ["eval", "--config", config, code],
      env: { RESOLVER_OPTIONS: JSON.stringify({ ...f.options({ env }) }), NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    // The other process holds the lock once its stage one runs.
    for (let i = 0; i < 600 && !(await f.ran()).some((l) => l.startsWith("--stage one")); i++) {
      await new Promise((done) => setTimeout(done, 50));
    }
    assert.ok((await f.ran()).some((l) => l.startsWith("--stage one")), "stage one never ran");
    const resolver = new DesktopResolver(f.options({ env }));
    const reset = resolver.reset();
    // Give a reset that does not wait every chance to finish before the bootstrap goes on.
    await Promise.race([reset, new Promise((done) => setTimeout(done, 300))]);
    await Deno.writeTextFile(go, "");
    assert.equal(await reset, true);
    const theirs = await other;
    assert.equal(new TextDecoder().decode(theirs.stdout).trim(), "desktop_bootstrap_failed");
    assert.equal(await pathExists(join(f.install, ".herald-bootstrap-failed")), false);
    assert.equal(await resolver.latched(), undefined);
  });
});
