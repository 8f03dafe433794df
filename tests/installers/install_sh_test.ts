/**
 * installers/install.sh end to end, in a temporary HOME: every stage against
 * a local git repository (a clone of this checkout) and against a release
 * folder served on 127.0.0.1; one JSON frame per run, also on failure;
 * order violations, usage errors, the checksum refusal, and the stage list
 * shared with install.ps1 through installers/stages.tsv.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { denoDir, REPO_ROOT, tempDir } from "../_helpers.ts";
import { expectedBlocks, generatedBlock, readStages } from "../../installers/stages.ts";

const SCRIPT = join(REPO_ROOT, "installers", "install.sh");

/** The deno cache of the machine, so a temp HOME downloads nothing. */
const DENO_DIR = await denoDir();

interface Layout {
  root: string;
  home: string;
  heraldHome: string;
  install: string;
  bin: string;
}

function layout(root: string): Layout {
  return {
    root,
    home: join(root, "home"),
    heraldHome: join(root, "home", ".herald"),
    install: join(root, "install"),
    bin: join(root, "bin"),
  };
}

interface Run {
  code: number;
  frames: Record<string, unknown>[];
  stderr: string;
}

/** Runs install.sh with `args` in the layout; parses every stdout line as JSON. */
async function run(l: Layout, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([key]) => !key.startsWith("HERALD_")),
  );
  const out = await new Deno.Command("sh", {
    args: [SCRIPT, ...args],
    clearEnv: true,
    env: {
      ...base,
      HOME: l.home,
      HERALD_HOME: l.heraldHome,
      HERALD_INSTALL_DIR: l.install,
      HERALD_BIN_DIR: l.bin,
      DENO_DIR,
      ...env,
    },
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const lines = stdout.split("\n").filter((line) => line !== "");
  const frames = lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(
        `stdout line is not JSON: ${line}\nstderr: ${new TextDecoder().decode(out.stderr)}`,
      );
    }
  });
  return { code: out.code, frames, stderr: new TextDecoder().decode(out.stderr) };
}

/** Runs one stage; asserts exactly one frame and returns it with the exit code. */
async function stage(
  l: Layout,
  name: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; frame: Record<string, unknown>; stderr: string }> {
  const result = await run(l, ["--stage", name, "--json", ...args], env);
  assert.equal(result.frames.length, 1, `one frame for ${name}; stderr: ${result.stderr}`);
  const frame = result.frames[0];
  assert.equal(frame.stage, name);
  assert.equal(typeof frame.ok, "boolean");
  assert.equal(typeof frame.skipped, "boolean");
  assert.ok("reason" in frame);
  return { code: result.code, frame, stderr: result.stderr };
}

async function ok(l: Layout, name: string, args: string[] = [], env: Record<string, string> = {}) {
  const result = await stage(l, name, args, env);
  assert.equal(result.frame.ok, true, `${name}: ${JSON.stringify(result.frame)}\n${result.stderr}`);
  assert.equal(result.code, 0);
  return result.frame;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd }).output();
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function readMarker(install: string): Promise<Record<string, unknown>> {
  const bytes = await Deno.readFile(join(install, ".herald-bootstrap-complete"));
  assert.notDeepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], "no byte-order mark");
  return JSON.parse(new TextDecoder().decode(bytes));
}

const ALL = ["venv", "python-deps"];

Deno.test("--manifest prints the stages of stages.tsv in order; desktop only when included", async () => {
  await using dir = await tempDir();
  const l = layout(dir.path);
  const stages = await readStages();
  const plain = await run(l, ["--manifest"]);
  assert.equal(plain.code, 0);
  assert.equal(plain.frames.length, 1);
  const manifest = plain.frames[0] as {
    protocolVersion: number;
    stages: { name: string; title: string; category: string; needsInput: boolean }[];
  };
  assert.equal(manifest.protocolVersion, 1);
  assert.deepEqual(
    manifest.stages.map((s) => s.name),
    [
      "prerequisites",
      "repository",
      "venv",
      "python-deps",
      "node-deps",
      "path",
      "config",
      "setup",
      "gateway",
      "complete",
    ],
  );
  assert.deepEqual(
    manifest.stages,
    stages.filter((s) => s.when === "always").map((s) => ({
      name: s.name,
      title: s.title,
      category: s.category,
      needsInput: s.needsInput,
    })),
  );
  assert.deepEqual(
    manifest.stages.filter((s) => s.needsInput).map((s) => s.name),
    ["setup", "gateway"],
  );
  const desktop = await run(l, ["--manifest", "--include-desktop"]);
  const names = (desktop.frames[0].stages as { name: string }[]).map((s) => s.name);
  assert.deepEqual(names, stages.map((s) => s.name));
  assert.ok(names.includes("desktop"));
});

Deno.test("install.sh and install.ps1 carry the stage list of stages.tsv", async () => {
  for (const { file, block } of await expectedBlocks()) {
    assert.equal(
      generatedBlock(await Deno.readTextFile(file)),
      block,
      `${file} differs from stages.tsv: run deno run -A installers/stages.ts --write`,
    );
  }
});

Deno.test("a missing or unknown stage is a usage error with a frame (exit 2)", async () => {
  await using dir = await tempDir();
  const l = layout(dir.path);
  const unknown = await run(l, ["--stage", "nope", "--json"]);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.frames.length, 1);
  assert.equal(unknown.frames[0].ok, false);
  assert.equal(unknown.frames[0].stage, "nope");
  assert.match(String(unknown.frames[0].reason), /unknown stage "nope"/);
  const missing = await run(l, ["--json", "--stage"]);
  assert.equal(missing.code, 2);
  assert.deepEqual(missing.frames.map((f) => [f.ok, f.stage]), [[false, ""]]);
  assert.match(String(missing.frames[0].reason), /missing stage name/);
  const badOption = await run(l, ["--stage", "venv", "--frobnicate"]);
  assert.equal(badOption.code, 2);
  assert.equal(badOption.frames.length, 1);
  assert.match(String(badOption.frames[0].reason), /unknown option "--frobnicate"/);
});

Deno.test("a stage run before the one it needs fails with a frame naming it", async () => {
  await using dir = await tempDir();
  const l = layout(dir.path);
  const repository = await stage(l, "repository");
  assert.equal(repository.code, 1);
  assert.equal(repository.frame.ok, false);
  assert.equal(repository.frame.needs, "prerequisites");
  assert.match(String(repository.frame.reason), /"prerequisites" stage must run first/);
  const complete = await stage(l, "complete");
  assert.equal(complete.frame.ok, false);
  assert.equal(complete.frame.needs, "config");
  assert.equal(await exists(join(l.install, ".herald-bootstrap-complete")), false);
});

Deno.test("checkout mode: every stage against a local git repository, pinned by commit, tag or branch", async () => {
  await using dir = await tempDir();
  const l = layout(dir.path);
  const repo = join(dir.path, "repo");
  await git(dir.path, "clone", "-q", REPO_ROOT, repo);
  const head = await git(repo, "rev-parse", "HEAD");
  const parent = await git(repo, "rev-parse", "HEAD~1");
  await git(repo, "tag", "v-test", parent);
  const env = { HERALD_REPO_URL: repo };
  await Deno.mkdir(l.heraldHome, { recursive: true });
  const config = "model:\n  provider: custom # mine\n";
  await Deno.writeTextFile(join(l.heraldHome, "config.yaml"), config);

  const pre = await ok(l, "prerequisites", [], env);
  assert.equal(pre.mode, "git");
  // commit over tag over branch
  const pinned = await ok(
    l,
    "repository",
    ["--commit", parent, "--tag", "nope", "--branch", "x"],
    env,
  );
  assert.equal(pinned.commit, parent);
  const tagged = await ok(l, "repository", ["--tag", "v-test", "--branch", "x"], env);
  assert.equal(tagged.commit, parent);
  const missingTag = await stage(l, "repository", ["--tag", "no-such-tag"], env);
  assert.equal(missingTag.frame.ok, false);
  assert.match(String(missingTag.frame.reason), /tag no-such-tag/);
  const branch = await ok(l, "repository", [], env);
  assert.equal(branch.commit, head);
  assert.equal(branch.branch, "main");
  assert.equal(await git(l.install, "rev-parse", "HEAD"), head);

  for (const name of ALL) {
    const frame = await ok(l, name);
    assert.equal(frame.skipped, true);
    assert.equal(frame.reason, "Herald needs no Python");
  }
  assert.equal((await ok(l, "node-deps")).skipped, false);
  assert.ok(await exists(join(l.install, "node_modules")));
  const path = await ok(l, "path");
  assert.equal(path.bin, join(l.bin, "herald"));
  const launcher = await Deno.readTextFile(join(l.bin, "herald"));
  assert.match(launcher, /# herald-launcher: herald/);
  assert.ok(launcher.includes(l.install));

  const configured = await ok(l, "config", ["--no-skills"]);
  assert.equal(configured.config, "kept");
  assert.equal(await Deno.readTextFile(join(l.heraldHome, "config.yaml")), config);
  assert.ok(await exists(join(l.heraldHome, ".no-bundled-skills")));
  assert.deepEqual([...Deno.readDirSync(join(l.heraldHome, "skills"))], [], "nothing seeded");

  for (const name of ["setup", "gateway"]) {
    const frame = await ok(l, name, ["--non-interactive"]);
    assert.equal(frame.skipped, true);
    assert.match(String(frame.reason), /non-interactive/);
  }
  const complete = await ok(l, "complete");
  const marker = await readMarker(l.install);
  assert.equal(marker.schemaVersion, 1);
  assert.equal(marker.pinnedCommit, head);
  assert.equal(marker.pinnedBranch, "main");
  assert.ok(!Number.isNaN(Date.parse(String(marker.completedAt))));
  assert.equal(complete.commit, head);
  assert.equal(
    await git(l.install, "status", "--porcelain"),
    "",
    "the state files are git-ignored",
  );

  const version = await new Deno.Command(join(l.bin, "herald"), {
    args: ["--version"],
    env: { DENO_DIR, HERALD_HOME: l.heraldHome },
  }).output();
  assert.equal(version.code, 0, new TextDecoder().decode(version.stderr));
  assert.match(new TextDecoder().decode(version.stdout), new RegExp(head.slice(0, 12)));
});

/** A release folder on 127.0.0.1: the "binary" is a shell script printing a version. */
function releaseServer(folder: string): { url: string; server: Deno.HttpServer } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const name = new URL(req.url).pathname.slice(1);
    try {
      return new Response(await Deno.readFile(join(folder, name)));
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, server };
}

const ASSET = `herald-${Deno.build.os === "darwin" ? "darwin" : "linux"}-${
  Deno.build.arch === "aarch64" ? "aarch64" : "x86_64"
}`;
const STAMP_COMMIT = "0123456789abcdef0123456789abcdef01234567";

async function writeRelease(folder: string, binary: string, sums?: string): Promise<void> {
  await Deno.mkdir(folder, { recursive: true });
  const stamp = JSON.stringify({
    commit: STAMP_COMMIT,
    branch: "release",
    builtAt: new Date().toISOString(),
    dirty: false,
  });
  await Deno.writeTextFile(join(folder, ASSET), binary);
  await Deno.writeTextFile(join(folder, "install-stamp.json"), stamp);
  const enc = new TextEncoder();
  await Deno.writeTextFile(
    join(folder, "SHA256SUMS"),
    sums ??
      `${await sha256(enc.encode(binary))}  ${ASSET}\n` +
        `${await sha256(enc.encode(stamp))}  install-stamp.json\n`,
  );
}

const BINARY = '#!/bin/sh\necho "herald 0.1.0 (0123456789ab)"\n';

Deno.test("binary mode: fetches the release binary, verifies SHA256SUMS, pins by the stamp", async () => {
  await using dir = await tempDir();
  const l = layout(dir.path);
  const release = join(dir.path, "release");
  await writeRelease(release, BINARY);
  const { url, server } = releaseServer(release);
  try {
    const pre = await ok(l, "prerequisites", ["--release-url", url]);
    assert.equal(pre.mode, "binary");
    const wrongPin = await stage(l, "repository", ["--commit", "deadbeef"]);
    assert.equal(wrongPin.frame.ok, false);
    assert.match(String(wrongPin.frame.reason), /not the pinned deadbeef/);
    const repo = await ok(l, "repository", ["--commit", STAMP_COMMIT.slice(0, 9)]);
    assert.equal(repo.commit, STAMP_COMMIT);
    assert.equal(repo.asset, ASSET);
    assert.equal(await Deno.readTextFile(join(l.install, "bin", "herald")), BINARY);
    for (const name of ALL) assert.equal((await ok(l, name)).skipped, true);
    const deps = await ok(l, "node-deps");
    assert.equal(deps.skipped, true);
    await ok(l, "path");
    assert.equal(await Deno.realPath(join(l.bin, "herald")), join(l.install, "bin", "herald"));
    await ok(l, "config");
    assert.equal(await exists(join(l.heraldHome, ".no-bundled-skills")), false);
    for (const name of ["setup", "gateway"]) {
      assert.equal((await ok(l, name, ["--non-interactive"])).skipped, true);
    }
    await ok(l, "complete");
    const marker = await readMarker(l.install);
    assert.equal(marker.pinnedCommit, STAMP_COMMIT);
    assert.equal(marker.pinnedBranch, "release");
    assert.equal(await Deno.readTextFile(join(l.install, ".install_method")), "binary\n");
  } finally {
    await server.shutdown();
  }
});

Deno.test("binary mode: a checksum mismatch is refused with ok:false and nothing installed", async () => {
  await using dir = await tempDir();
  const l = layout(dir.path);
  const release = join(dir.path, "release");
  await writeRelease(release, BINARY);
  // The binary changes after SHA256SUMS was written.
  await Deno.writeTextFile(join(release, ASSET), BINARY + "echo tampered\n");
  const { url, server } = releaseServer(release);
  try {
    await ok(l, "prerequisites", ["--release-url", url]);
    const repo = await stage(l, "repository");
    assert.equal(repo.code, 1);
    assert.equal(repo.frame.ok, false);
    assert.match(String(repo.frame.reason), new RegExp(`checksum mismatch for ${ASSET}`));
    assert.equal(await exists(join(l.install, "bin", "herald")), false);
    const path = await stage(l, "path");
    assert.equal(path.frame.ok, false, "later stages wait for the stages before them");
    // A release whose SHA256SUMS does not list the binary is refused too.
    await writeRelease(release, BINARY, "0000  something-else\n");
    const unlisted = await stage(l, "repository");
    assert.equal(unlisted.frame.ok, false);
    assert.match(String(unlisted.frame.reason), /does not list/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a full install with --json prints one frame per stage, all ok", async () => {
  await using dir = await tempDir();
  const l = layout(dir.path);
  const release = join(dir.path, "release");
  await writeRelease(release, BINARY);
  const { url, server } = releaseServer(release);
  try {
    const full = await run(l, ["--json", "--non-interactive", "--release-url", url]);
    assert.equal(full.code, 0, full.stderr);
    const names = (await readStages()).filter((s) => s.when === "always").map((s) => s.name);
    assert.deepEqual(full.frames.map((f) => f.stage), names);
    assert.ok(full.frames.every((f) => f.ok === true));
  } finally {
    await server.shutdown();
  }
});

Deno.test("a stage that fails inside still prints exactly one frame with ok:false", async () => {
  await using dir = await tempDir();
  const l = layout(dir.path);
  await ok(l, "prerequisites");
  const repo = await stage(l, "repository", [], {
    HERALD_REPO_URL: join(dir.path, "no-such-repo"),
  });
  assert.equal(repo.code, 1);
  assert.equal(repo.frame.ok, false);
  assert.match(String(repo.frame.reason), /git fetch from .*no-such-repo failed/);
});

const shellcheck = await new Deno.Command("sh", { args: ["-c", "command -v shellcheck"] })
  .output().then((out) => out.code === 0, () => false);

Deno.test({
  name: "install.sh passes shellcheck",
  ignore: !shellcheck,
  async fn() {
    const out = await new Deno.Command("shellcheck", { args: ["-s", "sh", SCRIPT] }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stdout));
  },
});
if (!shellcheck) {
  console.error("install.sh shellcheck test ignored: no shellcheck (apt-get install shellcheck)");
}

const pwsh = await new Deno.Command("sh", { args: ["-c", "command -v pwsh"] })
  .output().then((out) => out.code === 0, () => false);

Deno.test({
  // PowerShell is not in Debian's archive and the npm `pwsh` package downloads it from GitHub,
  // which these machines cannot reach; the shared stage list is checked above instead.
  name: "install.ps1 parses and its -Manifest equals install.sh's --manifest (needs pwsh)",
  ignore: !pwsh,
  async fn() {
    await using dir = await tempDir();
    const ps1 = join(REPO_ROOT, "installers", "install.ps1");
    const parse = await new Deno.Command("pwsh", {
      args: [
        "-NoProfile",
        "-Command",
        `$e = $null; [System.Management.Automation.Language.Parser]::ParseFile('${ps1}', [ref]$null, [ref]$e) | Out-Null; exit $e.Count`,
      ],
    }).output();
    assert.equal(parse.code, 0, new TextDecoder().decode(parse.stdout));
    for (const extra of [[], ["-IncludeDesktop"]]) {
      const out = await new Deno.Command("pwsh", {
        args: ["-NoProfile", "-File", ps1, "-Manifest", ...extra],
      }).output();
      const sh = await run(layout(dir.path), [
        "--manifest",
        ...(extra.length ? ["--include-desktop"] : []),
      ]);
      assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), sh.frames[0]);
    }
  },
});
if (!pwsh) console.error("install.ps1 test ignored: no pwsh (PowerShell cannot be installed here)");
