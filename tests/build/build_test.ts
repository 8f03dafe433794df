/**
 * `deno task build` (build/build.ts): the stamp and SHA256SUMS from a real
 * run in a temporary git copy of this checkout, the one line when Deno's
 * runtime image cannot be had, the `--include` list against
 * adapters/lazy.ts, and `herald --version` reading the stamp. The compiled
 * binary itself is tested only where a `denort` is available (`DENORT_BIN`).
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { REPO_ROOT, tempDir } from "../_helpers.ts";
import { LAZY_MODULES } from "../../adapters/lazy.ts";
import { VERSION } from "../../core/version.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { startDashboardProcess } from "../e2e/_herald.ts";
import {
  classifyFailure,
  compileArgs,
  EMBEDDED_FOLDERS,
  includeFor,
  includeList,
  readImports,
} from "../../build/compile.ts";
import { renderStampModule } from "../../build/stamp.ts";
import { artifactName, binaryTarget, hostTarget, TARGETS } from "../../build/targets.ts";

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function run(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Ran> {
  const output = await new Deno.Command(program, {
    args,
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await run("git", args, cwd, GIT_ENV);
  assert.equal(result.code, 0, `git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * A copy of this checkout's files (committed and new, not ignored) in a
 * fresh git repository with one commit on `release`, sharing node_modules.
 */
async function gitCopy(dir: string): Promise<string> {
  const root = join(dir, "herald");
  const listed = await run(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    REPO_ROOT,
  );
  assert.equal(listed.code, 0, listed.stderr);
  for (const path of listed.stdout.split("\0").filter((path) => path !== "")) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.copyFile(join(REPO_ROOT, path), join(root, path)).catch((error) => {
      // A file deleted in the working tree but not yet in the index.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  await Deno.symlink(join(REPO_ROOT, "node_modules"), join(root, "node_modules"));
  await git(root, "init", "--quiet", "--initial-branch", "release");
  await git(root, "add", "--all");
  await git(root, "commit", "--quiet", "--no-verify", "--message", "copy");
  return root;
}

/** `deno task build` in `root` with `env` (DENORT_BIN unset unless given). */
async function runBuild(root: string, args: string[], env: Record<string, string>): Promise<Ran> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "build", ...args],
    cwd: root,
    // INIT_CWD is where `deno task` was started (the build resolves `--out` from it); the suite
    // itself runs under `deno task test`, whose INIT_CWD is the real checkout.
    env: { ...Deno.env.toObject(), NO_COLOR: "1", INIT_CWD: root, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

async function readStampFile(out: string) {
  return JSON.parse(await Deno.readTextFile(join(out, "install-stamp.json")));
}

Deno.test("the build writes the stamp and SHA256SUMS, and says in one line that denort is missing", async () => {
  await using dir = await tempDir("herald-build-");
  const root = await gitCopy(dir.path);
  const head = await git(root, "rev-parse", "HEAD");
  const missing = join(dir.path, "no-such-denort");

  const clean = await runBuild(root, ["--out", "dist"], { DENORT_BIN: missing });
  assert.equal(clean.code, 0, clean.stderr);
  const out = join(root, "dist");
  const stamp = await readStampFile(out);
  assert.deepEqual(Object.keys(stamp).sort(), ["branch", "builtAt", "commit", "dirty"]);
  assert.equal(stamp.commit, head);
  assert.equal(stamp.branch, "release");
  assert.equal(stamp.dirty, false);
  assert.ok(Math.abs(Date.parse(stamp.builtAt) - Date.now()) < 10 * 60_000, stamp.builtAt);
  const denortLines = clean.stdout.split("\n").filter((line) => line.includes("denort"));
  assert.equal(denortLines.length, 1, clean.stdout);
  assert.ok(denortLines[0].includes(`DENORT_BIN points at ${missing}`), denortLines[0]);
  assert.ok(!/Stack backtrace| {4}at /.test(clean.stdout + clean.stderr), clean.stderr);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(out))).map((e) => e.name).sort(), [
    "SHA256SUMS",
    "install-stamp.json",
  ]);
  const verified = await run("sha256sum", ["-c", "SHA256SUMS"], out);
  assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  assert.equal(verified.stdout, "install-stamp.json: OK\n");
  // The build leaves the tree as it found it: the committed placeholder stamp module is back.
  assert.equal(await git(root, "status", "--porcelain"), "");
  assert.equal(await Deno.readTextFile(join(root, "build", "stamp.gen.ts")), renderStampModule());

  // A changed sums file is caught by sha256sum.
  await Deno.writeTextFile(join(out, "install-stamp.json"), "{}\n");
  assert.notEqual((await run("sha256sum", ["-c", "SHA256SUMS"], out)).code, 0);

  await Deno.writeTextFile(join(root, "README.md"), "\nan uncommitted line\n", { append: true });
  const dirty = await runBuild(root, ["--out", "dist"], { DENORT_BIN: missing });
  assert.equal(dirty.code, 0, dirty.stderr);
  assert.equal((await readStampFile(out)).dirty, true);
  assert.equal((await run("sha256sum", ["-c", "SHA256SUMS"], out)).code, 0);
});

Deno.test("a DENORT_BIN that is not a Deno runtime image gets one clear line and no binary", async () => {
  const host = hostTarget();
  if (!host || host.os !== "linux") return;
  await using dir = await tempDir("herald-build-");
  const root = await gitCopy(dir.path);
  const result = await runBuild(root, ["--target", host.triple, "--out", "dist"], {
    DENORT_BIN: "/bin/true",
  });
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split("\n").filter((line) => line.includes("DENORT_BIN"));
  assert.equal(lines.length, 1, result.stdout);
  assert.match(lines[0], /DENORT_BIN \(\/bin\/true\) is not a Deno runtime image/);
  const names = (await Array.fromAsync(Deno.readDir(join(root, "dist")))).map((e) => e.name);
  assert.deepEqual(names.sort(), ["SHA256SUMS", "install-stamp.json"]);
  assert.equal((await run("sha256sum", ["-c", "SHA256SUMS"], join(root, "dist"))).code, 0);
});

Deno.test("code that does not type-check fails the build even without a runtime image", async () => {
  await using dir = await tempDir("herald-build-");
  const root = await gitCopy(dir.path);
  await Deno.writeTextFile(
    join(root, "adapters", "lsp", "client.ts"),
    "\nexport const broken: number = 'not a number';\n",
    { append: true },
  );
  const result = await runBuild(root, ["--out", "dist"], { DENORT_BIN: join(dir.path, "none") });
  assert.equal(result.code, 1, result.stdout);
  assert.match(result.stderr, /does not type-check/);
  assert.equal(await Deno.readTextFile(join(root, "build", "stamp.gen.ts")), renderStampModule());
});

Deno.test("a bad --target is a usage error", async () => {
  const result = await run(
    Deno.execPath(),
    ["run", "-A", "build/build.ts", "--target", "x"],
    REPO_ROOT,
  );
  assert.equal(result.code, 2);
  assert.match(result.stderr, /Unknown target x: choose from x86_64-unknown-linux-gnu/);
});

Deno.test("every lazily loaded module and the bundled skills go to --include", async () => {
  const imports = await readImports(REPO_ROOT);
  const includes = includeList(imports);
  const args = compileArgs(TARGETS[0], "dist/herald-linux-x86_64", includes);
  const included = args.flatMap((arg, i) => (args[i - 1] === "--include" ? [arg] : []));
  for (const entry of LAZY_MODULES) {
    const include = includeFor(entry, imports);
    assert.ok(included.includes(include), `${entry} is not passed to --include`);
    if (entry.endsWith(".ts")) {
      assert.equal(include, entry);
      assert.ok(Deno.statSync(join(REPO_ROOT, entry)).isFile, `${entry} exists`);
    } else assert.match(include, /^npm:/, `${entry} resolves to an npm: specifier`);
  }
  for (const folder of EMBEDDED_FOLDERS) {
    assert.ok(included.includes(folder));
    assert.ok(Deno.statSync(join(REPO_ROOT, folder)).isDirectory);
  }
  assert.deepEqual(args.slice(-1), ["cli/main.ts"]);
  assert.deepEqual(args.slice(args.indexOf("--target"), args.indexOf("--target") + 2), [
    "--target",
    "x86_64-unknown-linux-gnu",
  ]);
  assert.throws(() => includeFor("left-pad", imports), /deno\.json's imports do not map/);
});

Deno.test("binary names and the target a program file was built for", async () => {
  assert.deepEqual(TARGETS.map(artifactName), [
    "herald-linux-x86_64",
    "herald-linux-aarch64",
    "herald-darwin-x86_64",
    "herald-darwin-aarch64",
    "herald-windows-x86_64.exe",
  ]);
  const host = hostTarget();
  if (host?.os === "linux") {
    using file = await Deno.open("/bin/true");
    const bytes = new Uint8Array(4096);
    await file.read(bytes);
    assert.equal(binaryTarget(bytes), host);
  }
  const macho = new Uint8Array(32);
  new DataView(macho.buffer).setUint32(0, 0xfeedfacf, true);
  new DataView(macho.buffer).setUint32(4, 0x0100000c, true);
  assert.equal(binaryTarget(macho)?.triple, "aarch64-apple-darwin");
  const pe = new Uint8Array(256);
  pe.set([0x4d, 0x5a]);
  new DataView(pe.buffer).setUint32(0x3c, 0x80, true);
  new DataView(pe.buffer).setUint32(0x80, 0x50450000);
  new DataView(pe.buffer).setUint16(0x84, 0x8664, true);
  assert.equal(binaryTarget(pe)?.triple, "x86_64-pc-windows-msvc");
  assert.equal(binaryTarget(new TextEncoder().encode("#!/bin/sh\necho hi\n")), undefined);
});

Deno.test("a failed download is no runtime; any other compile failure is a failure", () => {
  const download = [
    "error: Writing deno compile executable to temporary file 'dist/h.tmp'",
    "",
    "Caused by:",
    "    0: Setting up base binary.",
    "    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x.zip)",
    "    2: dns error: failed to lookup address information",
    "",
    "Stack backtrace:",
    "   0: <unknown>",
  ].join("\n");
  const result = classifyFailure(download, undefined);
  assert.equal(result.kind, "no-runtime");
  assert.match(
    result.kind === "no-runtime" ? result.reason : "",
    /download from dl\.deno\.land failed \(dns error: failed to lookup address information\)/,
  );
  assert.equal(classifyFailure("Could not find denort at '/x'", "/x").kind, "no-runtime");
  assert.equal(classifyFailure('error: Module not found "file:///a.ts"', undefined).kind, "failed");
});

Deno.test("herald --version from source shows the commit of build/install-stamp.json", async () => {
  await using dir = await tempDir("herald-build-");
  const root = await gitCopy(dir.path);
  const head = await git(root, "rev-parse", "HEAD");
  const main = join(root, "cli", "main.ts");
  const plain = await run(Deno.execPath(), ["run", "-A", "--quiet", main, "--version"], dir.path);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, `herald ${VERSION} (${head.slice(0, 12)})\n`);

  const commit = "0123456789abcdef0123456789abcdef01234567";
  await Deno.writeTextFile(
    join(root, "build", "install-stamp.json"),
    JSON.stringify({ commit, branch: "main", builtAt: "2026-01-02T03:04:05.000Z", dirty: true }),
  );
  const stamped = await run(Deno.execPath(), ["run", "-A", "--quiet", main, "--version"], dir.path);
  assert.equal(stamped.code, 0, stamped.stderr);
  assert.equal(
    stamped.stdout,
    `herald ${VERSION} (0123456789ab) main, built 2026-01-02T03:04:05.000Z, dirty\n`,
  );
});

const DENORT = Deno.env.get("DENORT_BIN");
const LINUX_X64 = TARGETS[0];
const CAN_RUN_LINUX_X64 = hostTarget() === LINUX_X64;
if (!DENORT || !CAN_RUN_LINUX_X64) {
  console.log(
    `tests/build: the compiled-binary test is ignored: ${
      DENORT ? "this machine cannot run a linux x86_64 binary" : "DENORT_BIN is not set"
    } (Deno's runtime image, denort ${Deno.version.deno}, is needed to compile; see build/README.md)`,
  );
}

Deno.test({
  name:
    "the compiled linux x86_64 binary runs --version, chat -q and the dashboard (needs DENORT_BIN)",
  ignore: !DENORT || !CAN_RUN_LINUX_X64,
  async fn() {
    await using dir = await tempDir("herald-build-");
    const root = await gitCopy(dir.path);
    const head = await git(root, "rev-parse", "HEAD");
    const built = await runBuild(root, ["--target", LINUX_X64.triple, "--out", "dist"], {
      DENORT_BIN: DENORT!,
    });
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const out = join(root, "dist");
    const binary = join(out, artifactName(LINUX_X64));
    assert.ok(Deno.statSync(binary).isFile, built.stdout);
    assert.equal((await run("sha256sum", ["-c", "SHA256SUMS"], out)).code, 0);
    // The binary runs from elsewhere, with the checkout gone from its view.
    const bin = join(dir.path, "bin");
    await Deno.mkdir(bin);
    await Deno.copyFile(binary, join(bin, "herald"));
    await Deno.chmod(join(bin, "herald"), 0o755);
    const herald = join(bin, "herald");

    const version = await run(herald, ["--version"], dir.path);
    assert.equal(version.code, 0, version.stderr);
    assert.ok(
      version.stdout.startsWith(`herald ${VERSION} (${head.slice(0, 12)}) release, built `),
    );

    const home = join(dir.path, "home");
    await Deno.mkdir(home);
    await using server = await startModelServer({ replies: [{ text: "Hello from the binary." }] });
    await Deno.writeTextFile(
      join(home, "config.yaml"),
      `model:\n  provider: custom\n  base_url: ${server.openaiBaseUrl}\n  default: test-model\n`,
    );
    const chat = await run(herald, ["chat", "-q", "hi"], dir.path, { HERALD_HOME: home });
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, "Hello from the binary.\n");

    await using dashboard = await startDashboardProcess({
      home,
      cwd: dir.path,
      program: [herald],
    });
    const page = await (await fetch(new URL("/", dashboard.url))).text();
    assert.ok(page.includes('name="herald-token"'), page.slice(0, 200));
    const script = /<script[^>]*src="([^"]+)"/.exec(page)?.[1];
    assert.ok(script, "the page loads its script");
    const asset = await fetch(new URL(script, dashboard.url));
    assert.equal(asset.status, 200);
    await asset.body?.cancel();
  },
});

Deno.test("a SIGTERM while the build compiles puts the placeholder stamp module back", async () => {
  const host = hostTarget();
  if (!host || host.os !== "linux") return;
  await using dir = await tempDir("herald-build-");
  const root = await gitCopy(dir.path);
  const module = join(root, "build", "stamp.gen.ts");
  const placeholder = await Deno.readTextFile(module);
  assert.equal(placeholder, renderStampModule());
  // DENORT_BIN is read only after the build stamp went into the module: a FIFO nobody writes
  // holds the build there until it is signalled.
  const fifo = join(dir.path, "denort");
  assert.equal((await run("mkfifo", [fifo], dir.path)).code, 0);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "build/build.ts", "--target", host.triple, "--out", "dist"],
    cwd: root,
    env: { ...Deno.env.toObject(), NO_COLOR: "1", INIT_CWD: root, DENORT_BIN: fifo },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let exited = false;
  const status = child.status.finally(() => exited = true);
  let stamped = "";
  // Bounded: the build exits (and the loop ends) if it never gets to the FIFO.
  for (let i = 0; i < 3000 && !exited; i++) {
    stamped = await Deno.readTextFile(module);
    if (stamped !== placeholder) break;
    await new Promise((done) => setTimeout(done, 20));
  }
  assert.notEqual(stamped, placeholder, "the build never wrote its stamp into build/stamp.gen.ts");
  assert.match(stamped, /commit/);
  child.kill("SIGTERM");
  assert.equal((await status).code, 143);
  assert.equal(await Deno.readTextFile(module), placeholder);
  assert.equal((await run("git", ["status", "--porcelain", "build"], root)).stdout, "");
});
