/**
 * installers/install.sh refusing what would harm: option injection through
 * pins, losing local work or another origin on a re-install, relative paths,
 * foreign links, plain-http release URLs, a tampered stamp; a signal still
 * ends in exactly one frame and no temporary folder. Everything runs in a
 * temporary HOME against small git repositories made here and a release
 * folder served on 127.0.0.1.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "../_helpers.ts";

const SCRIPT = join(REPO_ROOT, "installers", "install.sh");
const dec = new TextDecoder();

interface Layout {
  root: string;
  home: string;
  heraldHome: string;
  install: string;
  bin: string;
  tmp: string;
}

async function layout(root: string): Promise<Layout> {
  const l = {
    root,
    home: join(root, "home"),
    heraldHome: join(root, "home", ".herald"),
    install: join(root, "install"),
    bin: join(root, "bin"),
    tmp: join(root, "tmp"),
  };
  await Deno.mkdir(l.tmp, { recursive: true });
  return l;
}

interface RunOptions {
  env?: Record<string, string>;
  unset?: string[];
  cwd?: string;
}

function command(l: Layout, args: string[], opts: RunOptions = {}): Deno.Command {
  const env: Record<string, string> = {
    ...Object.fromEntries(
      Object.entries(Deno.env.toObject()).filter(([key]) => !key.startsWith("HERALD_")),
    ),
    HOME: l.home,
    HERALD_HOME: l.heraldHome,
    HERALD_INSTALL_DIR: l.install,
    HERALD_BIN_DIR: l.bin,
    TMPDIR: l.tmp,
    ...opts.env,
  };
  for (const key of opts.unset ?? []) delete env[key];
  return new Deno.Command("sh", {
    args: [SCRIPT, ...args],
    clearEnv: true,
    env,
    cwd: opts.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

function frames(stdout: Uint8Array): Record<string, unknown>[] {
  return dec.decode(stdout).split("\n").filter((x) => x !== "").map((x) => JSON.parse(x));
}

/** Runs one stage; asserts exactly one frame. */
async function stage(l: Layout, name: string, args: string[] = [], opts: RunOptions = {}) {
  const out = await command(l, ["--stage", name, "--json", ...args], opts).output();
  const all = frames(out.stdout);
  assert.equal(all.length, 1, `one frame for ${name}; stderr: ${dec.decode(out.stderr)}`);
  return { code: out.code, frame: all[0], stderr: dec.decode(out.stderr) };
}

async function ok(l: Layout, name: string, args: string[] = [], opts: RunOptions = {}) {
  const result = await stage(l, name, args, opts);
  assert.equal(result.frame.ok, true, `${name}: ${JSON.stringify(result.frame)}\n${result.stderr}`);
  return result.frame;
}

async function refused(
  l: Layout,
  name: string,
  args: string[],
  reason: RegExp,
  opts: RunOptions = {},
) {
  const result = await stage(l, name, args, opts);
  assert.equal(result.frame.ok, false, JSON.stringify(result.frame));
  assert.notEqual(result.code, 0);
  assert.match(String(result.frame.reason), reason);
  return result;
}

const IDENTITY = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"];

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args: [...IDENTITY, ...args], cwd }).output();
  if (out.code !== 0) throw new Error(`git ${args.join(" ")}: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout).trim();
}

/** A small repository with branch main and two commits; returns its path. */
async function smallRepo(root: string, name = "repo"): Promise<string> {
  const repo = join(root, name);
  await Deno.mkdir(repo, { recursive: true });
  await git(repo, "init", "-q", "-b", "main");
  await Deno.writeTextFile(join(repo, "README.md"), "one\n");
  await git(repo, "add", ".");
  await git(repo, "commit", "-q", "-m", "one");
  await Deno.writeTextFile(join(repo, "README.md"), "two\n");
  await git(repo, "commit", "-q", "-am", "two");
  return repo;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A stand-in Deno 2.9.6: answers --version, and `install` writes a file then sleeps. */
async function slowDeno(root: string): Promise<{ path: string; started: string }> {
  const path = join(root, "slowdeno");
  const started = join(root, "deno-started");
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\ncase "$1" in --version) echo "deno 2.9.6 (fake)" ;; *) : >"${started}"; exec sleep 60 ;; esac\n`,
  );
  await Deno.chmod(path, 0o755);
  return { path, started };
}

async function waitFor(path: string): Promise<void> {
  for (let i = 0; i < 600 && !(await exists(path)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(await exists(path), `${path} appeared`);
}

Deno.test("pins that could be read as git options, or are no hash, are refused before git runs", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  const repo = await smallRepo(dir.path);
  const opts = { env: { HERALD_REPO_URL: repo } };
  await ok(l, "prerequisites", [], opts);
  const pwned = join(dir.path, "PWNED");
  for (
    const args of [
      ["--commit", `--upload-pack=touch ${pwned};true`],
      ["--commit", "abc"],
      ["--commit", "ABCDEF0"],
      ["--commit", "abcdef0\n--upload-pack=x"],
      ["--tag", "--upload-pack=x"],
      ["--branch", "-x"],
      ["--branch", "a..b"],
    ]
  ) {
    const result = await refused(l, "repository", args, /is not a (commit hash|valid)/, opts);
    assert.equal(result.code, 2);
  }
  assert.equal(await exists(pwned), false, "no command ran");
  assert.equal(await exists(join(l.install, ".git")), false, "nothing fetched");
  // In binary mode too: a short --commit is refused.
  await refused(l, "repository", ["--commit", "0123"], /is not a commit hash/, {
    env: { HERALD_RELEASE_URL: "http://127.0.0.1:9/rel" },
  });
});

Deno.test("a re-install never loses local commits, changes or another origin", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  const repo = await smallRepo(dir.path);
  const opts = { env: { HERALD_REPO_URL: repo } };
  await ok(l, "prerequisites", [], opts);
  const first = await ok(l, "repository", [], opts);
  assert.equal(first.commit, await git(repo, "rev-parse", "HEAD"));
  // An older pin is fine while nothing local would be lost.
  const older = await git(repo, "rev-parse", "HEAD~1");
  assert.equal((await ok(l, "repository", ["--commit", older], opts)).commit, older);
  assert.equal((await ok(l, "repository", [], opts)).commit, first.commit);

  // A fast-forward is taken.
  await Deno.writeTextFile(join(repo, "README.md"), "three\n");
  await git(repo, "commit", "-q", "-am", "three");
  const ahead = await git(repo, "rev-parse", "HEAD");
  assert.equal((await ok(l, "repository", [], opts)).commit, ahead);

  // Uncommitted changes are refused and kept.
  await Deno.writeTextFile(join(l.install, "README.md"), "mine\n");
  await refused(l, "repository", [], /uncommitted changes/, opts);
  assert.equal(await Deno.readTextFile(join(l.install, "README.md")), "mine\n");

  // A local commit is refused and kept, for a branch and for a pinned commit.
  await git(l.install, "commit", "-q", "-am", "local work");
  const local = await git(l.install, "rev-parse", "HEAD");
  await refused(l, "repository", [], /local commits/, opts);
  await refused(l, "repository", ["--commit", older], /local commits/, opts);
  assert.equal(await git(l.install, "rev-parse", "HEAD"), local);
  assert.equal(await git(l.install, "rev-parse", "refs/heads/main"), local);

  // Another origin is refused without --replace-origin; a failing one changes nothing.
  await git(l.install, "reset", "-q", "--hard", ahead);
  const other = await smallRepo(dir.path, "other");
  await refused(l, "repository", [], /--replace-origin/, { env: { HERALD_REPO_URL: other } });
  const missing = join(dir.path, "no-such-repo");
  await refused(l, "repository", ["--replace-origin"], /git fetch from .*no-such-repo failed/, {
    env: { HERALD_REPO_URL: missing },
  });
  assert.equal(await git(l.install, "remote", "get-url", "origin"), repo);
  assert.equal(
    (await Deno.readTextFile(join(l.install, ".install-state", "repo-url"))).trim(),
    repo,
  );
  await ok(l, "repository", ["--replace-origin", "--branch", "main"], {
    env: { HERALD_REPO_URL: other },
  });
  assert.equal(await git(l.install, "remote", "get-url", "origin"), other);
});

Deno.test("the resolver's files in the install folder are tolerated and git-ignored; a tag 'true' stays a string", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  const repo = await smallRepo(dir.path);
  await git(repo, "tag", "true", "HEAD~1");
  const opts = { env: { HERALD_REPO_URL: repo } };
  await ok(l, "prerequisites", [], opts);
  await Deno.writeTextFile(join(l.install, ".herald-bootstrap-failed"), "{}\n");
  await Deno.writeTextFile(join(l.install, ".herald-bootstrap.lock"), "1\n");
  const tagged = await ok(l, "repository", ["--tag", "true"], opts);
  assert.equal(tagged.tag, "true");
  assert.equal(await git(l.install, "status", "--porcelain"), "");
});

/** A release folder on 127.0.0.1 whose "binary" is a shell script. */
async function release(
  root: string,
  tamper?: "stamp",
): Promise<{ url: string; server: Deno.HttpServer }> {
  const folder = join(root, "release");
  await Deno.mkdir(folder, { recursive: true });
  const asset = `herald-${Deno.build.os === "darwin" ? "darwin" : "linux"}-${
    Deno.build.arch === "aarch64" ? "aarch64" : "x86_64"
  }`;
  const binary = '#!/bin/sh\necho "herald 0.1.0 (0123456789ab)"\n';
  const stamp = JSON.stringify({ commit: "0123456789abcdef0123456789abcdef01234567", branch: "r" });
  const sum = async (text: string) =>
    [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))]
      .map((b) => b.toString(16).padStart(2, "0")).join("");
  await Deno.writeTextFile(join(folder, asset), binary);
  await Deno.writeTextFile(
    join(folder, "install-stamp.json"),
    tamper === "stamp" ? stamp.replace("0123456", "fedcba9") : stamp,
  );
  await Deno.writeTextFile(
    join(folder, "SHA256SUMS"),
    `${await sum(binary)}  ${asset}\n${await sum(stamp)}  install-stamp.json\n`,
  );
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    try {
      return new Response(await Deno.readFile(join(folder, new URL(req.url).pathname.slice(1))));
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, server };
}

Deno.test("binary mode: a tampered install-stamp.json is refused and the download removed at once", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  const { url, server } = await release(dir.path, "stamp");
  try {
    await ok(l, "prerequisites", ["--release-url", url]);
    await refused(l, "repository", [], /checksum mismatch for install-stamp\.json/);
    assert.equal(await exists(join(l.install, ".install-state", "download")), false);
    assert.equal(await exists(join(l.install, "install-stamp.json")), false);
    assert.equal(await exists(join(l.install, "bin", "herald")), false);
  } finally {
    await server.shutdown();
  }
});

Deno.test("release URLs must be https (http only to this machine)", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  for (
    const url of [
      "http://example.invalid/rel",
      "http://127.0.0.1.example.invalid/rel",
      "http://127.0.0.1@example.invalid/rel",
      "ftp://127.0.0.1/rel",
      "file:///etc",
    ]
  ) {
    await refused(l, "prerequisites", ["--release-url", url], /is not https/);
  }
});

Deno.test("relative --dir, --home and HERALD_BIN_DIR are made absolute; an empty HOME is a frame", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  const { url, server } = await release(dir.path);
  try {
    const opts = {
      cwd: dir.path,
      env: { HERALD_BIN_DIR: "relbin" },
      unset: ["HERALD_INSTALL_DIR", "HERALD_HOME"],
    };
    const args = ["--dir", "relinstall", "--home", "relhome"];
    await ok(l, "prerequisites", [...args, "--release-url", url], opts);
    await ok(l, "repository", args, opts);
    for (const name of ["venv", "python-deps", "node-deps"]) await ok(l, name, args, opts);
    const path = await ok(l, "path", args, opts);
    assert.equal(path.bin, join(dir.path, "relbin", "herald"));
    assert.equal(path.onPath, false);
    assert.equal(
      await Deno.realPath(join(dir.path, "relbin", "herald")),
      join(dir.path, "relinstall", "bin", "herald"),
    );
    assert.ok(await exists(join(dir.path, "relinstall", ".install-state", "path.done")));
  } finally {
    await server.shutdown();
  }
  const empty = await refused(l, "venv", [], /HOME is empty/, {
    env: { HOME: "" },
    unset: ["HERALD_HOME"],
  });
  assert.equal(empty.code, 2);
});

Deno.test("binary mode: a link at the herald command is replaced only when it points into the install", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  const { url, server } = await release(dir.path);
  try {
    await ok(l, "prerequisites", ["--release-url", url]);
    for (const name of ["repository", "venv", "python-deps", "node-deps"]) await ok(l, name);
    await Deno.mkdir(l.bin, { recursive: true });
    const foreign = join(dir.path, "someone-elses-herald");
    await Deno.writeTextFile(foreign, "#!/bin/sh\n");
    await Deno.symlink(foreign, join(l.bin, "herald"));
    await refused(l, "path", [], /is a link to .*someone-elses-herald, not into/);
    assert.equal(await Deno.readLink(join(l.bin, "herald")), foreign);
    await Deno.remove(join(l.bin, "herald"));
    await Deno.symlink(join(l.install, "bin", "old-herald"), join(l.bin, "herald"));
    await ok(l, "path");
    await ok(l, "path");
    assert.equal(await Deno.readLink(join(l.bin, "herald")), join(l.install, "bin", "herald"));
  } finally {
    await server.shutdown();
  }
});

async function tmpEmpty(l: Layout): Promise<void> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(l.tmp)) names.push(entry.name);
  assert.deepEqual(names, [], "no temporary folder left");
}

Deno.test("SIGTERM to a running stage: exactly one frame, ok:false, no temporary folder left", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  const repo = await smallRepo(dir.path);
  const deno = await slowDeno(dir.path);
  const opts = { env: { HERALD_REPO_URL: repo, HERALD_DENO: deno.path } };
  await ok(l, "prerequisites", [], opts);
  await ok(l, "repository", [], opts);
  const child = command(l, ["--stage", "node-deps", "--json"], opts).spawn();
  await waitFor(deno.started);
  child.kill("SIGTERM");
  const out = await child.output();
  const all = frames(out.stdout);
  assert.equal(all.length, 1, dec.decode(out.stderr));
  assert.equal(all[0].ok, false);
  assert.equal(all[0].stage, "node-deps");
  assert.equal(out.code, 143);
  await tmpEmpty(l);
});

Deno.test("SIGTERM to a full install with --json: the running stage gets one ok:false frame", async () => {
  await using dir = await tempDir();
  const l = await layout(dir.path);
  const repo = await smallRepo(dir.path);
  const deno = await slowDeno(dir.path);
  const opts = { env: { HERALD_REPO_URL: repo, HERALD_DENO: deno.path } };
  const child = command(l, ["--json", "--non-interactive"], opts).spawn();
  await waitFor(deno.started);
  child.kill("SIGTERM");
  const out = await child.output();
  const all = frames(out.stdout);
  assert.deepEqual(
    all.map((f) => [f.stage, f.ok]),
    [
      ["prerequisites", true],
      ["repository", true],
      ["venv", true],
      ["python-deps", true],
      ["node-deps", false],
    ],
    dec.decode(out.stderr),
  );
  assert.equal(out.code, 143);
  await tmpEmpty(l);
});
