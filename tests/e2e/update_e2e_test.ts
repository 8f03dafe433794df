/**
 * `herald update` end to end against a temporary clone of this checkout
 * (the "install") whose origin is another temporary clone: an unmanaged
 * install refused with exit 2, a dirty tree refused, `--check` and `--plan`
 * changing nothing (tree and profile homes hashed), a good update moving to
 * the new commit with a snapshot and a receipt, a new commit whose
 * `cli/main.ts` does not start rolled back with `--version` still working,
 * and the receipts capped at 20.
 */

import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { collectOutput, denoDir, REPO_ROOT, tempDir } from "../_helpers.ts";
import {
  KEEP_RECEIPTS,
  releaseAsset,
  secureReleaseUrl,
  snapshotProfiles,
  updatePorts,
  writeUpdateReceipt,
} from "../../adapters/install/update.ts";
import { type InstallFacts, runUpdate, type UpdateReceipt } from "../../core/usecases/update.ts";
import { pathExists } from "../../adapters/fs/read.ts";
import { gatewayFiles } from "../../adapters/channels/gateway_files.ts";
import { openJobStore } from "../../adapters/cron/job_store.ts";
import { profilePaths } from "../../adapters/home/mod.ts";
import { newJob } from "../../core/schedules/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { startFakeTelegram } from "../fakes/telegram_api.ts";
import { runGateway, telegramHome, until, WAIT_MS } from "./_gateway.ts";

/**
 * The working tree's changed and new files (`git ls-files -m -o`), so the
 * clone runs the code under test, committed or not.
 */
async function workingTreeChanges(): Promise<{ changed: string[]; deleted: string[] }> {
  const list = async (...flags: string[]) =>
    (await git(REPO_ROOT, "ls-files", ...flags, "--exclude-standard")).split("\n").filter(Boolean);
  const deleted = await list("-d");
  const changed = (await list("-m", "-o")).filter((file) => !deleted.includes(file));
  return { changed, deleted };
}

/** The Telegram user of the gateway test. */
const USER = 42;

/** The deno cache of the machine, so the clone downloads nothing. */
const DENO_DIR = await denoDir();

const ENV_BASE = Object.fromEntries(
  Object.entries(Deno.env.toObject()).filter(([key]) => !key.startsWith("HERALD_")),
);

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=test@herald.invalid", "-c", "user.name=test", ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

interface Fixture {
  root: string;
  origin: string;
  install: string;
  home: string;
}

/**
 * origin: a clone of this checkout with the working tree's changes committed;
 * install: a clone of origin with its npm dependencies, as install.sh leaves it.
 */
async function fixture(root: string): Promise<Fixture> {
  const origin = join(root, "origin"), install = join(root, "install"), home = join(root, "home");
  await git(root, "clone", "-q", REPO_ROOT, origin);
  const tree = await workingTreeChanges();
  for (const file of tree.changed) {
    await Deno.mkdir(dirname(join(origin, file)), { recursive: true });
    await Deno.copyFile(join(REPO_ROOT, file), join(origin, file));
  }
  for (const file of tree.deleted) await Deno.remove(join(origin, file)).catch(() => {});
  await git(origin, "add", "-A");
  await git(origin, "commit", "-q", "--allow-empty", "-m", "the update command");
  await git(root, "clone", "-q", origin, install);
  const deps = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--frozen"],
    cwd: install,
    env: { DENO_DIR },
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(deps.code, 0, new TextDecoder().decode(deps.stderr));
  // Two profiles with what the snapshot keeps.
  await Deno.mkdir(join(home, "cron"), { recursive: true });
  await Deno.writeTextFile(join(home, "config.yaml"), "agent:\n  max_turns: 7\n");
  await Deno.writeTextFile(join(home, ".env"), "OPENAI_API_KEY=sk-test\n", { mode: 0o600 });
  await Deno.chmod(join(home, ".env"), 0o600);
  await Deno.writeTextFile(join(home, "cron", "jobs.json"), '{"jobs":[]}\n');
  await Deno.writeTextFile(
    join(home, "pairing.json"),
    '{"version":1,"pending":[],"approved":[]}\n',
  );
  await Deno.mkdir(join(home, "profiles", "work"), { recursive: true });
  await Deno.writeTextFile(join(home, "profiles", "work", "config.yaml"), "agent: {}\n");
  return { root, origin, install, home };
}

/** Adds a commit to origin: `change` edits its tree. */
async function commitOnOrigin(
  f: Fixture,
  message: string,
  change: (dir: string) => Promise<void>,
): Promise<string> {
  await change(f.origin);
  await git(f.origin, "add", "-A");
  await git(f.origin, "commit", "-q", "-m", message);
  return await git(f.origin, "rev-parse", "HEAD");
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the install's own `herald <args>` (so the checkout it updates is itself). */
async function herald(f: Fixture, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", join(f.install, "cli", "main.ts"), ...args],
    cwd: f.root,
    clearEnv: true,
    env: { ...ENV_BASE, HOME: f.root, HERALD_HOME: f.home, DENO_DIR, NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** A running `herald update --yes` of the install, its output collected as it comes. */
interface UpdateRun {
  stdout(): string;
  stderr(): string;
  /** Waits for the exit and the output's end; the exit code. */
  done(): Promise<number>;
}

/** Starts the install's own `herald update --yes` in the background. */
function startUpdate(f: Fixture, env: Record<string, string>): UpdateRun {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", join(f.install, "cli", "main.ts"), "update", "--yes"],
    cwd: f.root,
    clearEnv: true,
    env: { ...ENV_BASE, HOME: f.root, HERALD_HOME: f.home, NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = collectOutput(child);
  return {
    stdout: output.stdout,
    stderr: output.stderr,
    done: async () => {
      const { code } = await child.status;
      await output.ended;
      return code;
    },
  };
}

/** A hash of every file under `dir` (paths, modes and bytes), leaving out `skip` folders. */
async function treeHash(dir: string, skip: readonly string[] = []): Promise<string> {
  const parts: string[] = [];
  const walk = async (at: string) => {
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(at)) entries.push(entry);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(at, entry.name);
      const rel = relative(dir, path);
      if (skip.includes(rel)) continue;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        const info = await Deno.stat(path);
        const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
        parts.push(`${rel} ${info.mode} ${btoa(String.fromCharCode(...new Uint8Array(digest)))}`);
      } else parts.push(`${rel} link`);
    }
  };
  await walk(dir);
  return parts.join("\n");
}

/** The lines of `before` and `after` that differ. */
function changed(before: string, after: string): string[] {
  const a = new Set(before.split("\n")), b = new Set(after.split("\n"));
  return [...[...a].filter((line) => !b.has(line)), ...[...b].filter((line) => !a.has(line))];
}

Deno.test("an install Herald does not manage is refused with exit 2 and what to use", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const plain = join(dir.path, "plain");
  await Deno.mkdir(join(plain, "cli"), { recursive: true });
  const notGit = await herald(f, ["update", "--yes"], { HERALD_CHECKOUT: plain });
  assert.equal(notGit.code, 2, notGit.stderr);
  assert.match(
    notGit.stderr,
    /not a Herald-managed install.*reinstall with installers\/install\.sh/,
  );
  await Deno.writeTextFile(join(f.install, ".install_method"), "brew\n");
  const brew = await herald(f, ["update", "--check"]);
  assert.equal(brew.code, 2, brew.stderr);
  assert.match(brew.stderr, /installed by brew: brew upgrade herald/);
});

Deno.test("a checkout with uncommitted changes is refused and left as it was", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await commitOnOrigin(f, "new", (o) => Deno.writeTextFile(join(o, "NEW.md"), "new\n"));
  const before = await git(f.install, "rev-parse", "HEAD");
  await Deno.writeTextFile(join(f.install, "README.md"), "my local edit\n", { append: true });
  const ran = await herald(f, ["update", "--yes"]);
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(ran.stderr, /uncommitted changes to tracked files \(README\.md\).*git -C .* stash/);
  assert.equal(await git(f.install, "rev-parse", "HEAD"), before);
  assert.match(await Deno.readTextFile(join(f.install, "README.md")), /my local edit/);
});

Deno.test("--check and --plan say what an update would do and change nothing", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const to = await commitOnOrigin(f, "new", (o) => Deno.writeTextFile(join(o, "NEW.md"), "n\n"));
  // Deno's own start-up cache changes on any run; the rest of node_modules must not.
  const skip = [".git", "node_modules/.deno/.setup-cache.bin"];
  const tree = await treeHash(f.install, skip);
  const home = await treeHash(f.home);
  const head = await git(f.install, "rev-parse", "HEAD");

  const check = await herald(f, ["update", "--check", "--json"]);
  assert.equal(check.code, 0, check.stderr);
  const checked = JSON.parse(check.stdout);
  assert.equal(checked.result, "checked");
  assert.equal(checked.update_available, true);
  assert.equal(checked.behind, 1);
  assert.equal(checked.to, to);
  assert.equal(checked.branch, await git(f.install, "symbolic-ref", "--short", "HEAD"));
  const text = await herald(f, ["update", "--check"]);
  assert.match(text.stdout, /Update available: 1 commit behind/);

  const plan = await herald(f, ["update", "--plan"]);
  assert.equal(plan.code, 0, plan.stderr);
  assert.match(plan.stdout, /Steps:\n\s+1\. snapshot/);
  assert.match(plan.stdout, /fast-forward .* \(1 commit\)/);
  assert.match(plan.stdout, /put .* back/);

  // Without --yes and without a terminal: refused with the hint, nothing changed.
  const noYes = await herald(f, ["update"]);
  assert.equal(noYes.code, 2, noYes.stderr);
  assert.match(noYes.stderr, /herald update --yes/);

  assert.equal(await git(f.install, "rev-parse", "HEAD"), head);
  assert.deepEqual(
    changed(tree, await treeHash(f.install, skip)),
    [],
    "the checkout is untouched",
  );
  assert.deepEqual(changed(home, await treeHash(f.home)), [], "the profile homes are untouched");
});

Deno.test("an update moves to the new commit, snapshots first and writes a receipt", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const from = await git(f.install, "rev-parse", "HEAD");
  const to = await commitOnOrigin(f, "new", (o) => Deno.writeTextFile(join(o, "NEW.md"), "n\n"));
  const ran = await herald(f, ["update", "--yes", "--json"]);
  assert.equal(ran.code, 0, ran.stderr);
  const result = JSON.parse(ran.stdout);
  assert.equal(result.result, "updated");
  assert.equal(await git(f.install, "rev-parse", "HEAD"), to);
  assert.equal(await git(f.install, "status", "--porcelain", "--untracked-files=no"), "");

  const receipt = JSON.parse(
    await Deno.readTextFile(join(f.home, "logs", "update_receipts", "latest.json")),
  );
  assert.equal(receipt.result, "updated");
  assert.equal(receipt.from, from);
  assert.equal(receipt.to, to);
  assert.equal(receipt.rollback, null);
  assert.equal(typeof receipt.durations_ms.total, "number");
  assert.equal(result.receipt, join(f.home, "logs", "update_receipts", `${receipt.id}.json`));

  const snap = receipt.snapshot as string;
  assert.ok(snap.startsWith(join(f.home, "logs", "update_snapshots")));
  assert.equal(await Deno.readTextFile(join(snap, "default", ".env")), "OPENAI_API_KEY=sk-test\n");
  assert.equal((await Deno.stat(join(snap, "default", ".env"))).mode! & 0o777, 0o600);
  for (const rel of ["default/config.yaml", "default/cron/jobs.json", "default/pairing.json"]) {
    await Deno.stat(join(snap, rel));
  }
  assert.equal(await Deno.readTextFile(join(snap, "work", "config.yaml")), "agent: {}\n");

  const again = await herald(f, ["update", "--yes"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Already up to date/);
});

Deno.test("a detached checkout follows main; a diverged branch is refused with the fix", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await git(f.install, "checkout", "-q", "--detach", "HEAD");
  const to = await commitOnOrigin(f, "new", (o) => Deno.writeTextFile(join(o, "NEW.md"), "n\n"));
  const ran = await herald(f, ["update", "--yes", "--json"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(JSON.parse(ran.stdout).branch, "main");
  assert.equal(await git(f.install, "symbolic-ref", "--short", "HEAD"), "main");
  assert.equal(await git(f.install, "rev-parse", "HEAD"), to);

  await git(f.install, "commit", "-q", "--allow-empty", "-m", "mine");
  const mine = await git(f.install, "rev-parse", "HEAD");
  await commitOnOrigin(f, "theirs", (o) => Deno.writeTextFile(join(o, "NEW.md"), "t\n"));
  const diverged = await herald(f, ["update", "--yes"]);
  assert.equal(diverged.code, 1, diverged.stderr);
  assert.match(diverged.stderr, /1 commit that origin\/main lacks.*pull --rebase origin main/);
  assert.equal(await git(f.install, "rev-parse", "HEAD"), mine);
});

Deno.test("a detached checkout with commits on no branch is refused and keeps them", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await git(f.install, "checkout", "-q", "--detach", "HEAD");
  await git(
    f.install,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.com",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "pinned work",
  );
  const mine = await git(f.install, "rev-parse", "HEAD");
  await commitOnOrigin(f, "new", (o) => Deno.writeTextFile(join(o, "NEW.md"), "n\n"));
  const checked = await herald(f, ["update", "--check"]);
  assert.match(checked.stdout, /detached HEAD has 1 commits on no branch/);
  const ran = await herald(f, ["update", "--yes"]);
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(
    ran.stderr,
    /detached HEAD with 1 commit that no branch or tag holds.*branch <name>/,
  );
  assert.equal(await git(f.install, "rev-parse", "HEAD"), mine);

  // A tag keeps them (an install pinned to a tag): the update goes ahead.
  await git(f.install, "tag", "my-pin");
  const tagged = await herald(f, ["update", "--yes"]);
  assert.equal(tagged.code, 0, tagged.stderr);
  assert.equal(await git(f.install, "rev-parse", "my-pin"), mine);
});

Deno.test("a new commit that does not start is rolled back and --version still works", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const from = await git(f.install, "rev-parse", "HEAD");
  const broken = await commitOnOrigin(f, "broken", async (o) => {
    await Deno.writeTextFile(join(o, "cli", "main.ts"), "\nthis is not TypeScript {{{\n", {
      append: true,
    });
  });
  const ran = await herald(f, ["update", "--yes"]);
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(ran.stderr, /rolled back: the new code does not start: herald --version exited/);
  assert.equal(await git(f.install, "rev-parse", "HEAD"), from);
  assert.equal(await git(f.install, "status", "--porcelain", "--untracked-files=no"), "");
  const version = await herald(f, ["--version"]);
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, new RegExp(`^herald .*\\(${from.slice(0, 12)}\\)`));

  const receipt = JSON.parse(
    await Deno.readTextFile(join(f.home, "logs", "update_receipts", "latest.json")),
  );
  assert.equal(receipt.result, "rolled_back");
  assert.equal(receipt.to, broken);
  assert.equal(receipt.rollback.ok, true);
  assert.match(receipt.rollback.reason, /does not start/);
});

Deno.test("an edit made while the update waits is never wiped: the update refuses and changes nothing", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const from = await git(f.install, "rev-parse", "HEAD");
  await commitOnOrigin(f, "broken", async (o) => {
    await Deno.writeTextFile(join(o, "cli", "main.ts"), "\nthis is not TypeScript {{{\n", {
      append: true,
    });
  });
  const notes = join(f.install, "README.md");
  const ports = updatePorts({
    root: f.home,
    env: { ...ENV_BASE, HOME: f.root, HERALD_HOME: f.home, DENO_DIR, HERALD_CHECKOUT: f.install },
    progress: () => {},
    // The user edits a tracked file while the question is open, then says yes.
    confirm: async () => {
      await Deno.writeTextFile(notes, "MY UNSAVED WORK\n");
      return true;
    },
  });
  const outcome = await runUpdate({}, ports).catch((error: Error) => error);
  assert.equal(await Deno.readTextFile(notes), "MY UNSAVED WORK\n");
  assert.equal(await git(f.install, "rev-parse", "HEAD"), from);
  assert.match(
    outcome instanceof Error ? outcome.message : JSON.stringify(outcome),
    /changed while the update waited: README\.md/,
  );
});

Deno.test("receipts are capped at 20 and latest.json is the newest", async () => {
  await using dir = await tempDir();
  const receipt = (i: number): UpdateReceipt => ({
    version: 1,
    id: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString().replace(/[:.]/g, "-"),
    started_at: "",
    finished_at: "",
    install: { kind: "checkout", dir: "/x" },
    branch: "main",
    from: `from${i}`,
    to: `to${i}`,
    result: "updated",
    rollback: null,
    snapshot: null,
    gateways: [],
    steps: [],
    error: null,
    durations_ms: {},
  });
  for (let i = 0; i < 22; i++) await writeUpdateReceipt(dir.path, receipt(i));
  const folder = join(dir.path, "logs", "update_receipts");
  const names: string[] = [];
  for await (const entry of Deno.readDir(folder)) names.push(entry.name);
  names.sort();
  assert.equal(names.length, KEEP_RECEIPTS + 1);
  assert.ok(names.includes("latest.json"));
  assert.ok(!names.includes(`${receipt(0).id}.json`) && !names.includes(`${receipt(1).id}.json`));
  assert.ok(names.includes(`${receipt(2).id}.json`));
  const latest = JSON.parse(await Deno.readTextFile(join(folder, "latest.json")));
  assert.equal(latest.to, "to21");
});

Deno.test("the snapshot keeps each file's mode and leaves out what is missing", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, ".env"), "A=1\n", { mode: 0o600 });
  await Deno.chmod(join(dir.path, ".env"), 0o600);
  await Deno.writeTextFile(join(dir.path, "config.yaml"), "x: 1\n", { mode: 0o644 });
  await Deno.chmod(join(dir.path, "config.yaml"), 0o644);
  const snap = await snapshotProfiles(dir.path, "2026-01-01T00-00-00-000Z");
  assert.deepEqual(snap.files.sort(), ["default/.env", "default/config.yaml"]);
  assert.equal((await Deno.stat(join(snap.dir, "default", ".env"))).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(join(snap.dir, "default", "config.yaml"))).mode! & 0o777, 0o644);
  const manifest = JSON.parse(await Deno.readTextFile(join(snap.dir, "manifest.json")));
  assert.deepEqual(manifest.files.sort(), snap.files.sort());
});

/** A stand-in release binary: answers every argument with its version line, or fails. */
function fakeBinary(commit: string, works = true): string {
  return works
    ? `#!/bin/sh\necho "herald 0.2.0 (${commit.slice(0, 12)})"\n`
    : "#!/bin/sh\necho 'cannot start' >&2\nexit 3\n";
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Writes a release (binary, stamp, SHA256SUMS) into `dir`; `tamper` spoils
 * the binary after summing; `binaryText` replaces the stand-in binary.
 */
async function writeRelease(
  dir: string,
  commit: string,
  works: boolean,
  tamper = false,
  binaryText = fakeBinary(commit, works),
) {
  await Deno.mkdir(dir, { recursive: true });
  const files: Record<string, string> = {
    [releaseAsset()]: binaryText,
    "install-stamp.json": JSON.stringify({ commit, branch: "main", builtAt: "x", dirty: false }),
  };
  const sums: string[] = [];
  for (const [name, text] of Object.entries(files)) {
    const bytes = new TextEncoder().encode(text);
    sums.push(`${await sha256Hex(bytes)}  ${name}`);
    await Deno.writeFile(
      join(dir, name),
      tamper && name !== "install-stamp.json" ? bytes.slice(1) : bytes,
    );
  }
  await Deno.writeTextFile(join(dir, "SHA256SUMS"), sums.join("\n") + "\n");
}

/** Serves the files of `folder` on 127.0.0.1 (404 for anything missing). */
function serveFolder(folder: string): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    try {
      return new Response(await Deno.readFile(join(folder, new URL(req.url).pathname.slice(1))));
    } catch {
      return new Response("missing", { status: 404 });
    }
  });
}

Deno.test("a release binary is replaced by the verified new one, else kept", async () => {
  await using dir = await tempDir();
  const release = join(dir.path, "release"), install = join(dir.path, "install");
  const home = join(dir.path, "home");
  const server = serveFolder(release);
  try {
    const old = "1".repeat(40);
    await Deno.mkdir(join(install, "bin"), { recursive: true });
    const binary = join(install, "bin", "herald");
    await Deno.writeTextFile(binary, fakeBinary(old), { mode: 0o755 });
    await Deno.chmod(binary, 0o755);
    await Deno.writeTextFile(join(install, "install-stamp.json"), JSON.stringify({ commit: old }));
    await Deno.writeTextFile(join(install, ".install_method"), "binary\n");
    await Deno.mkdir(home, { recursive: true });
    const facts: InstallFacts = {
      kind: "binary",
      dir: install,
      binary,
      releaseUrl: `http://127.0.0.1:${server.addr.port}`,
    };
    const update = (yes = true) =>
      runUpdate({ yes }, {
        ...updatePorts({ root: home, env: { PATH: Deno.env.get("PATH") }, progress: () => {} }),
        install: () => Promise.resolve(facts),
      });
    const version = async () =>
      new TextDecoder().decode(
        (await new Deno.Command(binary, { args: ["--version"] }).output()).stdout,
      );

    // A binary that does not match SHA256SUMS is refused before anything changes.
    const tampered = "2".repeat(40);
    await writeRelease(release, tampered, true, true);
    await assert.rejects(update(), /rolled back: .*checksum mismatch for herald-/);
    assert.match(await version(), /\(111111111111\)/);

    // A binary that does not start is put back.
    const broken = "3".repeat(40);
    await writeRelease(release, broken, false);
    await assert.rejects(update(), /rolled back: the new code does not start/);
    assert.match(await version(), /\(111111111111\)/);
    assert.equal(
      JSON.parse(await Deno.readTextFile(join(install, "install-stamp.json"))).commit,
      old,
    );

    // An old binary that cannot be kept aside stops the update before the binary is touched.
    const blocked = "5".repeat(40);
    await writeRelease(release, blocked, true);
    await Deno.mkdir(join(install, "bin", "herald.previous", "held"), { recursive: true });
    await assert.rejects(update(), /rolled back: /);
    assert.match(await version(), /\(111111111111\)/);
    assert.equal(await pathExists(`${binary}.new`), false);
    await Deno.remove(join(install, "bin", "herald.previous"), { recursive: true });

    // A good one replaces it, stamp included; the old binary is kept whole as
    // .previous: the very file that ran, never a copy that could stop halfway.
    const good = "4".repeat(40);
    await writeRelease(release, good, true);
    const ran = (await Deno.stat(binary)).ino;
    const outcome = await update();
    assert.equal((await Deno.stat(`${binary}.previous`)).ino, ran);
    assert.equal(outcome.result, "updated");
    assert.match(await version(), /\(444444444444\)/);
    assert.equal(
      JSON.parse(await Deno.readTextFile(join(install, "install-stamp.json"))).commit,
      good,
    );
    assert.equal((await Deno.stat(binary)).mode! & 0o111, 0o111);
    const receipts = join(home, "logs", "update_receipts");
    assert.equal(
      JSON.parse(await Deno.readTextFile(join(receipts, "latest.json"))).result,
      "updated",
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("release files are fetched only over https (or plain http to this machine)", () => {
  assert.equal(secureReleaseUrl("https://example.com/releases/v1"), true);
  assert.equal(secureReleaseUrl("http://127.0.0.1:8080/r"), true);
  assert.equal(secureReleaseUrl("http://localhost/r"), true);
  assert.equal(secureReleaseUrl("http://[::1]:9/r"), true);
  assert.equal(secureReleaseUrl("http://example.com/r"), false);
  assert.equal(secureReleaseUrl("http://127.0.0.1.evil.example/r"), false);
  assert.equal(secureReleaseUrl("http://127.0.0.1@evil.example/r"), false);
  assert.equal(secureReleaseUrl("ftp://example.com/r"), false);
  assert.equal(secureReleaseUrl("not a url"), false);
});

Deno.test("a running gateway is restarted on the new code only after its in-flight turn has answered", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await using telegram = await startFakeTelegram();
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  await using model = await startModelServer({
    replies: [{ text: "The slow answer", waitFor: held }, { text: "Answer from the new code" }],
  });
  await telegramHome(f.home, model.openaiBaseUrl, [USER]);
  const env = { TELEGRAM_API_BASE: telegram.baseUrl, DENO_DIR };
  const bot = telegram.bot();
  const old = await runGateway({ root: f.home, profileHome: f.home, env });
  let oldEnded = false;
  const oldEnd = old.child.status.then(() => oldEnded = true);
  try {
    bot.userSays(USER, USER, "take your time");
    await until(
      "the turn to reach the model",
      () => Promise.resolve(model.requests.length || undefined),
    );
    const to = await commitOnOrigin(f, "new", (o) => Deno.writeTextFile(join(o, "NEW.md"), "n\n"));

    const update = startUpdate(f, env);
    await until(
      "the update to wait for the turn",
      () => Promise.resolve(/waiting for 1 turn\(s\) to finish/.test(update.stderr()) || undefined),
    );
    // The new code is in place, and the old gateway still runs its turn.
    assert.equal(await git(f.install, "rev-parse", "HEAD"), to);
    assert.equal(
      oldEnded,
      false,
      `the gateway was stopped during its turn:\n${update.stderr()}\n${old.stdout()}\n${old.stderr()}`,
    );
    release();
    const [answered] = await bot.waitForSent((m) => m.text === "The slow answer", {
      timeoutMs: WAIT_MS,
    });
    assert.ok(answered);
    assert.equal(await update.done(), 0, update.stderr() + update.stdout());
    assert.match(update.stdout(), /gateway/i);
    await oldEnd;

    // A new gateway runs, started by the update, and answers.
    const state = await until("the restarted gateway", async () => {
      const now = await gatewayFiles(f.home).readState();
      return now?.status === "running" && now.pid !== old.child.pid ? now : undefined;
    });
    bot.userSays(USER, USER, "still there?");
    await bot.waitForSent((m) => m.text === "Answer from the new code", { timeoutMs: WAIT_MS });
    const receipt = JSON.parse(
      await Deno.readTextFile(join(f.home, "logs", "update_receipts", "latest.json")),
    );
    assert.deepEqual(
      receipt.gateways.map((g: { profile: string; ok: boolean }) => [g.profile, g.ok]),
      [
        ["default", true],
      ],
    );
    assert.ok(state.pid);
  } finally {
    release();
    await herald(f, ["gateway", "stop"], env);
    await old.kill();
  }
});

/** A release install at `install` whose stand-in binary is at `commit`; returns the binary's path. */
async function binaryInstall(install: string, commit: string): Promise<string> {
  await Deno.mkdir(join(install, "bin"), { recursive: true });
  const binary = join(install, "bin", "herald");
  await Deno.writeTextFile(binary, fakeBinary(commit), { mode: 0o755 });
  await Deno.chmod(binary, 0o755);
  await Deno.writeTextFile(join(install, "install-stamp.json"), JSON.stringify({ commit }));
  return binary;
}

Deno.test("a new binary that leaves a process holding its output is not waited on, and what it left is ended", async () => {
  await using dir = await tempDir();
  const release = join(dir.path, "release"), install = join(dir.path, "install");
  const home = join(dir.path, "home");
  const old = "1".repeat(40), next = "7".repeat(40);
  // A sleep no other process runs: its argument is the marker pgrep looks for.
  const marker = `299.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
  // The new binary answers, but leaves a child holding its stdout and stderr open.
  const binaryText = `#!/bin/sh\nsleep ${marker} &\n` +
    `echo "herald 0.2.0 (${next.slice(0, 12)})"\n`;
  await writeRelease(release, next, true, false, binaryText);
  const server = serveFolder(release);
  try {
    const binary = await binaryInstall(install, old);
    await Deno.mkdir(home, { recursive: true });
    const outcome = await runUpdate({ yes: true }, {
      ...updatePorts({
        root: home,
        env: { PATH: Deno.env.get("PATH") },
        progress: () => {},
        probeTimeoutMs: 30_000,
      }),
      install: () =>
        Promise.resolve(
          {
            kind: "binary",
            dir: install,
            binary,
            releaseUrl: `http://127.0.0.1:${server.addr.port}`,
          } satisfies InstallFacts,
        ),
    });
    assert.equal(outcome.result, "updated");
    const left = await new Deno.Command("pgrep", {
      args: ["-f", `sleep ${marker}`],
      stdout: "piped",
    })
      .output();
    assert.equal(new TextDecoder().decode(left.stdout).trim(), "", "the probe's leftover runs on");
  } finally {
    await new Deno.Command("pkill", { args: ["-f", `sleep ${marker}`] }).output();
    await server.shutdown();
  }
});

Deno.test("an update waits for another update or install of the same folder, and says so when it cannot", async () => {
  await using dir = await tempDir();
  const install = join(dir.path, "install"), home = join(dir.path, "home");
  const binary = await binaryInstall(install, "1".repeat(40));
  await Deno.mkdir(join(install, ".install-state"), { recursive: true });
  await Deno.mkdir(home, { recursive: true });
  // Another process (a bootstrap, another update) holds the install's lock.
  // One process (sh becomes sleep), so killing it frees the lock.
  const holder = new Deno.Command("sh", {
    args: [
      "-c",
      'exec 9>"$1" && flock 9 && echo held && exec sleep 60',
      "sh",
      join(install, ".install-state", ".herald-bootstrap.lock"),
    ],
    stdout: "piped",
  }).spawn();
  const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await reader.read()).value?.trim(), "held");
  try {
    const ports = updatePorts({
      root: home,
      env: { PATH: Deno.env.get("PATH") },
      progress: () => {},
      lockWaitMs: 500,
    });
    await assert.rejects(
      runUpdate({ yes: true }, {
        ...ports,
        install: () =>
          Promise.resolve(
            {
              kind: "binary",
              dir: install,
              binary,
              releaseUrl: "http://127.0.0.1:9/",
            } satisfies InstallFacts,
          ),
      }),
      /Another update or install of .* is running; wait for it to finish/,
    );
  } finally {
    holder.kill("SIGKILL");
    await holder.status;
    await reader.cancel();
  }
});

Deno.test("release files follow redirects only while every hop stays https (or on this machine)", async () => {
  await using dir = await tempDir();
  const release = join(dir.path, "release"), install = join(dir.path, "install");
  const home = join(dir.path, "home");
  const old = "1".repeat(40), next = "6".repeat(40);
  await writeRelease(release, next, true);
  // /a/<file> -> /b/<file> -> the file; /x/<file> -> /y/<file> -> plain http elsewhere.
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const [, hop, name] = new URL(req.url).pathname.split("/");
    const moved = (to: string) => new Response(null, { status: 302, headers: { location: to } });
    if (hop === "a") return moved(`/b/${name}`);
    if (hop === "x") return moved(`/y/${name}`);
    if (hop === "y") return moved(`http://release.example.invalid/${name}`);
    try {
      return new Response(await Deno.readFile(join(release, name)));
    } catch {
      return new Response("missing", { status: 404 });
    }
  });
  try {
    const binary = await binaryInstall(install, old);
    await Deno.mkdir(home, { recursive: true });
    const update = (hop: string) =>
      runUpdate({ yes: true }, {
        ...updatePorts({ root: home, env: { PATH: Deno.env.get("PATH") }, progress: () => {} }),
        install: () =>
          Promise.resolve(
            {
              kind: "binary",
              dir: install,
              binary,
              releaseUrl: `http://127.0.0.1:${server.addr.port}/${hop}`,
            } satisfies InstallFacts,
          ),
      });

    // The second hop leaves for plain http on another host: refused, nothing changed.
    await assert.rejects(
      update("x"),
      /redirects to http:\/\/release\.example\.invalid\/.*not https/,
    );
    assert.equal(
      JSON.parse(await Deno.readTextFile(join(install, "install-stamp.json"))).commit,
      old,
    );

    // Two hops on this machine are followed.
    assert.equal((await update("a")).result, "updated");
    assert.equal(
      JSON.parse(await Deno.readTextFile(join(install, "install-stamp.json"))).commit,
      next,
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("a gateway running a scheduled job is restarted only after the job has finished", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const paths = profilePaths(f.home, "default");
  const go = join(dir.path, "go");
  // A script job missed 10 minutes ago runs as the gateway starts, until the test says go.
  const job = newJob({
    name: "Long job",
    schedule: "every 1h",
    script: `while [ ! -e '${go}' ]; do sleep 0.05; done; echo finished`,
    scriptOnly: true,
  }, { now: Date.now() - 70 * 60_000, timeZone: "UTC", randomId: () => "longjob00001" });
  await openJobStore(paths.cron).add(job);
  const old = await runGateway({ root: f.home, profileHome: f.home, env: { DENO_DIR } });
  let oldEnded = false;
  const oldEnd = old.child.status.then(() => oldEnded = true);
  try {
    await until("the job to run", async () => {
      const counts = (await gatewayFiles(f.home).readState())?.counts;
      return counts?.jobs === 1 ? true : undefined;
    });
    await commitOnOrigin(f, "new", (o) => Deno.writeTextFile(join(o, "NEW.md"), "n\n"));
    const update = startUpdate(f, { DENO_DIR });
    await until(
      "the update to wait for the job",
      () =>
        Promise.resolve(
          /waiting for its scheduled jobs to finish/.test(update.stderr()) || undefined,
        ),
    );
    assert.equal(oldEnded, false, "the gateway was stopped during its job");
    await Deno.writeTextFile(go, "");
    assert.equal(await update.done(), 0, update.stderr());
    await oldEnd;
    const [record] = await openJobStore(paths.cron).list();
    assert.equal(record.last_status, "ok", record.last_error ?? "");
  } finally {
    await Deno.writeTextFile(go, "");
    await herald(f, ["gateway", "stop"]);
    await old.kill();
  }
});
