/**
 * `herald uninstall` end to end, in a temporary HOME with HERALD_HOME,
 * HERALD_INSTALL_DIR and HERALD_BIN_DIR all inside it: a launcher written by
 * `scripts/install.ts --dir`, a profile launcher beside it, an install
 * folder with the bootstrap marker, a gateway service file, and two
 * profiles with data. `--dry-run` and `--gui-summary` change no byte; the
 * default removes code and launchers and keeps the data; `--full` removes
 * the data too; dangerous folders are refused; a running gateway is stopped
 * before anything is removed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { denoDir, REPO_ROOT, tempDir } from "../_helpers.ts";
import { runHerald } from "./_herald.ts";
import { runGateway } from "./_gateway.ts";
import { installService } from "../../adapters/channels/gateway_service.ts";
import { renderLauncher, writeLauncher } from "../../adapters/install/launcher.ts";
import { pathExists } from "../../adapters/fs/mod.ts";

/** Every file and link under `dir` with a hash of its bytes (a link: its target). */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const walk = async (path: string) => {
    for await (const entry of Deno.readDir(path)) {
      const child = join(path, entry.name);
      if (entry.isSymlink) found.set(child, `link ${await Deno.readLink(child)}`);
      else if (entry.isDirectory) {
        found.set(child, "dir");
        await walk(child);
      } else {
        const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(child));
        found.set(child, Array.from(new Uint8Array(digest), (b) => b.toString(16)).join(""));
      }
    }
  };
  await walk(dir);
  return found;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A fake install in `base`: every path, and the environment that points at it. */
interface FakeInstall {
  home: string;
  root: string;
  installDir: string;
  bin: string;
  env: Record<string, string>;
}

async function fakeInstall(base: string): Promise<FakeInstall> {
  const home = join(base, "home");
  const root = join(home, ".herald");
  const installDir = join(root, "herald-agent");
  const bin = join(base, "bin");
  const env = {
    HOME: home,
    PATH: `${bin}:/usr/bin:/bin`,
    HERALD_HOME: root,
    HERALD_INSTALL_DIR: installDir,
    HERALD_BIN_DIR: bin,
    XDG_CONFIG_HOME: join(home, ".config"),
    DENO_DIR: await denoDir(),
    NO_COLOR: "1",
  };
  await Deno.mkdir(home, { recursive: true });
  const installed = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(REPO_ROOT, "scripts", "install.ts"), "--dir", bin],
    env,
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(installed.code, 0, new TextDecoder().decode(installed.stderr));
  await writeLauncher(
    join(bin, "work"),
    renderLauncher({ kind: "profile", profile: "work", herald: join(bin, "herald") }),
  );
  await Deno.mkdir(join(installDir, ".install-state"), { recursive: true });
  await Deno.writeTextFile(join(installDir, ".install-state", "path.done"), "");
  await Deno.writeTextFile(join(installDir, ".install_method"), "git\n");
  await Deno.writeTextFile(
    join(installDir, ".herald-bootstrap-complete"),
    JSON.stringify({
      schemaVersion: 1,
      pinnedCommit: "abcdef1234",
      pinnedBranch: "main",
      completedAt: "2026-01-02T03:04:05.000Z",
    }),
  );
  await Deno.mkdir(join(installDir, "cli"));
  await Deno.writeTextFile(join(installDir, "cli", "main.ts"), "// the installed code\n");
  await Deno.writeTextFile(join(root, "config.yaml"), "model:\n  default: test-model\n");
  await Deno.writeTextFile(join(root, ".env"), "OPENAI_API_KEY=sk-test\n", { mode: 0o600 });
  await Deno.writeTextFile(join(root, "state.db"), "not really sqlite");
  await Deno.mkdir(join(root, "profiles", "work", "sessions"), { recursive: true });
  await Deno.writeTextFile(join(root, "profiles", "work", "config.yaml"), "model: {}\n");
  await Deno.writeTextFile(join(root, "profiles", "work", "sessions", "s1.jsonl"), "{}\n");
  await installService(
    {
      manager: "systemd",
      profile: "default",
      command: [Deno.execPath(), "run", "-A", join(installDir, "cli", "main.ts")],
      root,
      logPath: join(root, "logs", "gateway.log"),
      userHome: home,
    },
    join(home, ".config", "systemd", "user", "herald-gateway.service"),
    false,
  );
  return { home, root, installDir, bin, env };
}

function uninstall(install: FakeInstall, args: string[], env: Record<string, string> = {}) {
  return runHerald({
    args: ["uninstall", ...args],
    home: env.HERALD_HOME ?? install.root,
    cwd: install.home,
    env: { ...install.env, ...env },
    clearEnv: true,
  });
}

Deno.test("uninstall --dry-run lists the plan and changes no byte", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const before = await snapshot(dir.path);
  const text = await uninstall(install, ["--dry-run"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /Removed:\n[\s\S]*herald launcher .*bin\/herald/);
  assert.match(text.stdout, /profile launcher .*bin\/work/);
  assert.match(text.stdout, /install folder ~\/\.herald\/herald-agent/);
  assert.match(text.stdout, /herald-gateway\.service/);
  assert.match(text.stdout, /Kept:\n[\s\S]*~\/\.herald: your data/);
  assert.match(text.stdout, /Dry run: nothing was removed/);
  const json = await uninstall(install, ["--dry-run", "--full", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  const plan = JSON.parse(json.stdout).plan;
  assert.deepEqual(
    plan.steps.map((s: { kind: string }) => s.kind),
    ["disable_service", "remove_launcher", "remove_launcher", "remove_home"],
  );
  assert.deepEqual(await snapshot(dir.path), before);
});

Deno.test("uninstall --gui-summary prints a valid JSON snapshot and changes no byte", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const before = await snapshot(dir.path);
  const run = await uninstall(install, ["--gui-summary"]);
  assert.equal(run.code, 0, run.stderr);
  const summary = JSON.parse(run.stdout);
  assert.equal(summary.schemaVersion, 1);
  assert.match(summary.herald.version, /^herald /);
  assert.equal(summary.home.path, install.root);
  assert.deepEqual(summary.home.profiles, ["default", "work"]);
  assert.equal(summary.install.path, install.installDir);
  assert.equal(summary.install.method, "git");
  assert.equal(summary.install.marker.state, "ok");
  assert.equal(summary.install.marker.pinnedCommit, "abcdef1234");
  assert.equal(summary.services.length, 1);
  assert.equal(summary.services[0].name, "herald-gateway.service");
  assert.equal(summary.services[0].loaded, false);
  assert.deepEqual(summary.gui, { installed: false, packages: [] });
  assert.deepEqual(await snapshot(dir.path), before);
});

Deno.test("uninstall without --yes and no terminal refuses with a hint and removes nothing", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const before = await snapshot(dir.path);
  const run = await uninstall(install, []);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /no terminal to ask on.*--dry-run.*--yes/);
  assert.deepEqual(await snapshot(dir.path), before);
});

Deno.test("uninstall --yes removes the code, launchers and service and keeps the data", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const run = await uninstall(install, ["--yes"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Your data stays in ~\/\.herald/);
  assert.equal(await exists(join(install.bin, "herald")), false);
  assert.equal(await exists(join(install.bin, "work")), false);
  assert.equal(await exists(install.installDir), false);
  assert.equal(
    await exists(join(install.home, ".config", "systemd", "user", "herald-gateway.service")),
    false,
  );
  assert.equal(await Deno.readTextFile(join(install.root, ".env")), "OPENAI_API_KEY=sk-test\n");
  assert.equal(await exists(join(install.root, "config.yaml")), true);
  assert.equal(await exists(join(install.root, "profiles", "work", "sessions", "s1.jsonl")), true);
  // The checkout the launcher ran is the user's own folder: it stays.
  assert.equal(await exists(join(REPO_ROOT, "deno.json")), true);
  const again = await uninstall(install, ["--yes"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Nothing to remove/);
});

Deno.test("uninstall --full --yes removes the data too", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const run = await uninstall(install, ["--full", "--yes", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.ok, true);
  assert.equal(await exists(install.root), false);
  assert.equal(await exists(join(install.bin, "herald")), false);
  assert.equal(await exists(install.home), true);
});

Deno.test("uninstall --gui says there is no chat GUI and removes nothing", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const before = await snapshot(dir.path);
  const run = await uninstall(install, ["--gui", "--yes"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /no chat GUI of its own installed/);
  assert.deepEqual(await snapshot(dir.path), before);
});

Deno.test("uninstall refuses dangerous or foreign folders with exit 2 and removes nothing", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const foreign = join(dir.path, "projects");
  await Deno.mkdir(foreign);
  await Deno.writeTextFile(join(foreign, "notes.txt"), "mine\n");
  // A project of the user's with names Herald also uses (.env, config.yaml, skills) is not Herald's home.
  const project = join(install.home, "proj");
  await Deno.mkdir(join(project, ".git"), { recursive: true });
  await Deno.mkdir(join(project, "src"));
  await Deno.mkdir(join(project, "skills"));
  await Deno.writeTextFile(join(project, ".env"), "TOKEN=x\n");
  await Deno.writeTextFile(join(project, "config.yaml"), "name: mine\n");
  await Deno.writeTextFile(join(project, "src", "main.ts"), "// mine\n");
  const loose = join(dir.path, "loose");
  await Deno.mkdir(join(loose, "skills"), { recursive: true });
  await Deno.writeTextFile(join(loose, ".env"), "A=1\n");
  const before = await snapshot(dir.path);
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--yes"], { HERALD_INSTALL_DIR: install.home }, /is your home folder itself/],
    [["--yes"], { HERALD_INSTALL_DIR: dir.path }, /holds your home folder/],
    [["--yes"], { HERALD_INSTALL_DIR: foreign }, /does not look like Herald's/],
    [["--yes"], { HERALD_INSTALL_DIR: install.root }, /holds the Herald home/],
    [["--yes", "--full"], { HERALD_HOME: install.home }, /is your home folder itself/],
    [["--yes", "--full"], { HERALD_HOME: project }, /holds \.git, src, which Herald never makes/],
    [["--yes", "--full"], { HERALD_HOME: loose }, /does not look like Herald's/],
    // Only ever as a dry run: the refusal comes before the dry run's plan.
    [["--dry-run", "--yes"], { HERALD_INSTALL_DIR: "/" }, /root of the file system/],
  ];
  for (const [args, env, reason] of cases) {
    const run = await uninstall(install, args, env);
    assert.equal(run.code, 2, `${JSON.stringify(env)}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, reason);
    assert.match(run.stderr, /Nothing was removed/);
  }
  assert.deepEqual(await snapshot(dir.path), before);
});

Deno.test("uninstall stops a running gateway before it removes anything", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const work = join(install.root, "profiles", "work");
  const gateway = await runGateway({
    root: install.root,
    profileHome: work,
    global: ["-p", "work"],
    env: install.env,
  });
  try {
    const run = await uninstall(install, ["--yes"]);
    assert.equal(run.code, 0, run.stderr);
    const stopped = run.stdout.indexOf(`Stopped running gateway of profile "work"`);
    const removed = run.stdout.indexOf("Removed ");
    assert.ok(stopped >= 0 && removed > stopped, run.stdout);
    const exit = await gateway.stop();
    assert.equal(exit.code, 0, exit.stderr);
    assert.equal(await exists(join(work, "gateway.pid")), false);
    assert.equal(await exists(join(work, "config.yaml")), true);
  } finally {
    await gateway.kill();
  }
});

Deno.test("uninstall keeps a git install folder that holds work found nowhere else", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const folder = install.installDir;
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", {
      args: ["-C", folder, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  };
  await git("init", "-q");
  await git("add", "-A");
  await git("commit", "-q", "-m", "my local commit");
  const before = await snapshot(dir.path);
  const unpushed = await uninstall(install, ["--yes"]);
  assert.equal(unpushed.code, 2, unpushed.stdout + unpushed.stderr);
  assert.match(
    unpushed.stderr,
    /holds work that exists nowhere else \(commit \w+ my local commit\)/,
  );
  assert.deepEqual(await snapshot(dir.path), before);

  // Pushed: only a new file of the user's is left, and it still stops the uninstall.
  const remote = join(dir.path, "remote.git");
  await git("clone", "-q", "--bare", folder, remote);
  await git("remote", "add", "origin", remote);
  await git("fetch", "-q", "origin");
  await Deno.writeTextFile(join(folder, "mine.txt"), "notes\n");
  const untracked = await uninstall(install, ["--yes"]);
  assert.equal(untracked.code, 2, untracked.stdout + untracked.stderr);
  assert.match(untracked.stderr, /\?\? mine\.txt/);
  assert.equal(await Deno.readTextFile(join(folder, "mine.txt")), "notes\n");

  // A stash is work too.
  await git("stash", "push", "-q", "-u", "-m", "half done");
  const stashed = await uninstall(install, ["--yes"]);
  assert.equal(stashed.code, 2, stashed.stdout + stashed.stderr);
  assert.match(stashed.stderr, /stash stash@\{0\} On \w+: half done/);
  await git("stash", "drop", "-q");

  // So is a commit on a detached HEAD that no branch, remote or tag holds.
  await git("checkout", "-q", "--detach");
  await git("commit", "-q", "--allow-empty", "-m", "detached work");
  const detached = await uninstall(install, ["--yes"]);
  assert.equal(detached.code, 2, detached.stdout + detached.stderr);
  assert.match(detached.stderr, /commit \w+ detached work \(detached HEAD\)/);
  await git("checkout", "-q", "-");

  // Without git nobody can tell: the folder is kept.
  const noGit = await Deno.makeTempDir({ dir: dir.path });
  const blind = await uninstall(install, ["--yes"], { PATH: noGit });
  assert.equal(blind.code, 2, blind.stdout + blind.stderr);
  assert.match(blind.stderr, /git cannot tell whether it holds work .*git status/);
  assert.equal(await pathExists(folder), true);

  const clean = await uninstall(install, ["--yes"]);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.equal(await pathExists(folder), false);
});

Deno.test("uninstall waits while an update or install of the folder holds its lock", async () => {
  await using dir = await tempDir();
  const install = await fakeInstall(dir.path);
  const state = join(install.installDir, ".install-state");
  await Deno.mkdir(state, { recursive: true });
  const seen = join(dir.path, "seen");
  // Another process holds the install lock for a while, then notes whether the folder was still
  // there as it let go: a removal that did not wait for it would already be done.
  const holder = new Deno.Command("sh", {
    args: [
      "-c",
      'exec 9>"$1" && flock 9 && echo held && sleep 4 && { [ -d "$2" ] && echo there || echo gone; } >"$3"',
      "sh",
      join(state, ".herald-bootstrap.lock"),
      install.installDir,
      seen,
    ],
    stdout: "piped",
  }).spawn();
  const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value?.trim(), "held");
  const ran = await uninstall(install, ["--yes"]);
  await holder.status;
  await reader.cancel();
  assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  assert.equal((await Deno.readTextFile(seen)).trim(), "there");
  assert.equal(await pathExists(install.installDir), false);
});
