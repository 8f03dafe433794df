/**
 * The I/O of `herald update` (core/usecases/update.ts): which install this
 * is, git for a checkout, the verified download for a release binary, the
 * pre-update snapshot, the start probe of the new code, the rollback, the
 * gateway restarts after in-flight turns, and the receipts.
 *
 * Files, under the root home:
 *
 * - `logs/update_snapshots/<id>/<profile>/{config.yaml,.env,cron/jobs.json,pairing.json}`
 *   and `manifest.json` (modes kept: `.env` stays 0600); the newest
 *   {@link KEEP_SNAPSHOTS} are kept;
 * - `logs/update_receipts/<id>.json` and `latest.json` (the newest); the
 *   newest {@link KEEP_RECEIPTS} are kept.
 *
 * `<id>` is the start time, `2026-11-24T21-13-37-123Z`.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { HeraldError } from "../../core/errors.ts";
import {
  type Available,
  type CurrentCode,
  type GatewayRestart,
  type InstallFacts,
  type ProbeResult,
  type SnapshotResult,
  type UpdatePlan,
  type UpdatePorts,
  type UpdateReceipt,
  type UpdateSource,
} from "../../core/usecases/update.ts";
import { GATEWAY_STOP_GRACE_MS, gatewayStatus } from "../../core/usecases/gateway.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { pathExists } from "../fs/read.ts";
import { fetchSecure, MAX_SECURE_REDIRECTS, secureReleaseUrl } from "./release_url.ts";
import { redactUrl } from "../../core/config/redact.ts";
import { listProfiles } from "../home/home.ts";
import { profilePaths } from "../home/layout.ts";
import { gatewayFiles } from "../channels/gateway_files.ts";
import { PAIRING_FILE } from "../channels/pairing_store.ts";
import {
  currentRuntimeFacts,
  heraldCheckout,
  heraldLaunchMode,
} from "../process/herald_command.ts";
import { runChild } from "./_child.ts";
import { importLazily } from "../lazy.ts";
import { withInstallLock } from "./install_lock.ts";

/** Receipts kept in `logs/update_receipts/` (besides `latest.json`). */
export const KEEP_RECEIPTS = 20;
/** Snapshots kept in `logs/update_snapshots/`. */
export const KEEP_SNAPSHOTS = 20;
/** How long one start probe of the new code may take (ms). */
export const PROBE_TIMEOUT_MS = 60_000;
/** How long a gateway's in-flight turns are waited for before it is restarted anyway (ms). */
export const DRAIN_TIMEOUT_MS = 30 * 60_000;
/** The files of a profile home the snapshot copies, relative to it. */
export const SNAPSHOT_FILES: readonly string[] = [
  "config.yaml",
  ".env",
  join("cron", "jobs.json"),
  PAIRING_FILE,
];

/** `.install_method` values of package managers, and what to run instead. */
const PACKAGE_HINTS: Readonly<Record<string, string>> = {
  brew: "brew upgrade herald",
  homebrew: "brew upgrade herald",
  apt: "sudo apt upgrade herald",
  nix: "update it through your Nix configuration (nix profile upgrade herald)",
  docker: "pull the new image (docker pull <image>:latest) and recreate the container",
  npm: "npm update -g herald",
  package: "update it with the package manager that installed it",
};

/** Folders only a package manager writes, and what to run instead. */
const PACKAGE_PATHS: readonly [RegExp, string][] = [
  [/^\/nix\/store\//, PACKAGE_HINTS.nix],
  [/\/Cellar\//, PACKAGE_HINTS.brew],
  [/^\/usr\/(lib|share|libexec)\//, "update it with your system's package manager (apt, dnf, ...)"],
  [/^\/opt\/homebrew\//, PACKAGE_HINTS.brew],
];

const REINSTALL =
  "reinstall with installers/install.sh (a git checkout or release binaries Herald manages)";

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** What {@link detectInstall} decides from. */
export interface InstallDetectOptions {
  env: Record<string, string | undefined>;
}

/** The install the folder `dir` holds per its `.install_method`, when that names a package manager. */
async function packageRefusal(dir: string): Promise<InstallFacts | undefined> {
  const method = (await readText(join(dir, ".install_method")))?.trim().toLowerCase();
  if (method && method !== "git" && method !== "binary") {
    return {
      kind: "unmanaged",
      reason: `${dir} was installed by ${method}`,
      hint: PACKAGE_HINTS[method] ?? PACKAGE_HINTS.package,
    };
  }
  for (const [pattern, hint] of PACKAGE_PATHS) {
    if (pattern.test(dir + "/")) {
      return { kind: "unmanaged", reason: `${dir} is installed by a package manager`, hint };
    }
  }
  return undefined;
}

/**
 * Which install runs this Herald: a compiled binary is a managed release
 * when `.install_method` says `binary` and `install-stamp.json` lies beside
 * the binary or its `bin/` folder; from source, the checkout is
 * `HERALD_CHECKOUT` or the tree this code runs from, managed when it is a git
 * checkout of Herald. Anything else is unmanaged, with what to do instead.
 */
export async function detectInstall(options: InstallDetectOptions): Promise<InstallFacts> {
  const facts = currentRuntimeFacts();
  if (heraldLaunchMode(facts) === "compiled") {
    const binary = facts.execPath;
    for (const dir of [dirname(binary), dirname(dirname(binary))]) {
      if (!(await pathExists(join(dir, "install-stamp.json")))) continue;
      const refused = await packageRefusal(dir);
      if (refused) return refused;
      const method = (await readText(join(dir, ".install_method")))?.trim();
      if (method !== "binary") continue;
      const recorded = (await readText(join(dir, ".install-state", "release-url")))?.trim();
      const releaseUrl = options.env.HERALD_RELEASE_URL?.trim() || recorded || null;
      return { kind: "binary", dir, binary, releaseUrl };
    }
    return {
      kind: "unmanaged",
      reason: `${binary} is not a Herald-managed install (no install-stamp.json and ` +
        `.install_method "binary" beside it)`,
      hint: REINSTALL,
    };
  }
  const named = options.env.HERALD_CHECKOUT?.trim();
  const dir = named ? resolve(named) : heraldCheckout();
  if (!dir) {
    return { kind: "unmanaged", reason: "this Herald runs from no folder", hint: REINSTALL };
  }
  const refused = await packageRefusal(dir);
  if (refused) return refused;
  if (!(await pathExists(join(dir, ".git")))) {
    return {
      kind: "unmanaged",
      reason: `${dir} is not a Herald-managed install (not a git checkout)`,
      hint: REINSTALL,
    };
  }
  if (!(await pathExists(join(dir, "cli", "main.ts")))) {
    return {
      kind: "unmanaged",
      reason: `${dir} is not a Herald checkout (no cli/main.ts)`,
      hint: REINSTALL,
    };
  }
  return { kind: "checkout", dir };
}

/** What a finished subprocess printed. */
interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** The most stderr kept from a child (its last characters). */
const STDERR_KEPT = 64 * 1024;

/**
 * Runs `command` as a process group with exactly `env`, ended after
 * `timeoutMs` (see runChild: a process it leaves holding its output never
 * stalls the update); `endLeftovers` also ends what it left behind when it
 * exited in time (a start probe leaves nothing).
 */
async function runBounded(
  command: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number; endLeftovers?: boolean },
): Promise<Ran> {
  let stderr = "";
  const ran = await runChild(command, [], options.env, options.timeoutMs, {
    cwd: options.cwd,
    onStderr: (text) => stderr = (stderr + text).slice(-STDERR_KEPT),
    endLeftoversAlways: options.endLeftovers ?? false,
  });
  return { code: ran.code, stdout: ran.stdout, stderr, timedOut: ran.timedOut };
}

/** The last few lines of `text`, on one line. */
function tail(text: string, lines = 4): string {
  return text.trim().split("\n").slice(-lines).join(" | ").slice(0, 800);
}

/** The environment children get: this process's, with `HERALD_HOME` pinned and git never prompting. */
function childEnv(env: Record<string, string | undefined>, root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  out.HERALD_HOME = root;
  out.NO_COLOR = "1";
  out.GIT_TERMINAL_PROMPT = "0";
  out.DENO_NO_UPDATE_CHECK = "1";
  return out;
}

/** Runs the start probe: `--version` (its first line must name herald), then `--help`. */
async function probeCommand(
  command: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ProbeResult> {
  let version = "";
  for (const arg of ["--version", "--help"]) {
    const ran = await runBounded([...command, arg], { cwd, env, timeoutMs, endLeftovers: true });
    const what = `herald ${arg}`;
    if (ran.timedOut) {
      return { ok: false, output: `${what} did not answer within ${timeoutMs / 1000} s` };
    }
    if (ran.code !== 0) {
      return {
        ok: false,
        output: `${what} exited with ${ran.code}: ${tail(ran.stderr || ran.stdout)}`,
      };
    }
    if (arg === "--version") {
      version = ran.stdout.trim().split("\n")[0] ?? "";
      if (!/^herald /.test(version)) {
        return {
          ok: false,
          output: `${what} printed "${version.slice(0, 200)}", not a Herald version`,
        };
      }
    }
  }
  return { ok: true, output: version };
}

/** The checkout's source of updates: git fetch, fast-forward, `deno install --frozen`. */
class CheckoutSource implements UpdateSource {
  readonly #dir: string;
  readonly #env: Record<string, string>;
  readonly #deno: string;
  readonly #timeoutMs: number;
  /** The target branch's local commit before apply (null: the branch was made by apply). */
  #targetBefore: string | null = null;

  constructor(dir: string, env: Record<string, string>, deno: string, timeoutMs: number) {
    this.#dir = dir;
    this.#env = env;
    this.#deno = deno;
    this.#timeoutMs = timeoutMs;
  }

  async #git(...args: string[]): Promise<string> {
    const output = await new Deno.Command("git", {
      args: ["-C", this.#dir, ...args],
      env: this.#env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output().catch((error) => {
      throw new HeraldError(
        "update_git_missing",
        "unavailable",
        `git cannot be run (${error instanceof Error ? error.message : error}); install git`,
      );
    });
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    if (output.code !== 0) {
      throw new HeraldError(
        "update_git_failed",
        "state",
        `git ${args.join(" ")} failed in ${this.#dir}: ${tail(decode(output.stderr))}`,
      );
    }
    return decode(output.stdout).trim();
  }

  async #ref(ref: string): Promise<string | null> {
    try {
      return await this.#git("rev-parse", "-q", "--verify", `${ref}^{commit}`);
    } catch {
      return null;
    }
  }

  async current(): Promise<CurrentCode> {
    const commit = await this.#git("rev-parse", "HEAD");
    let branch: string | null = null;
    try {
      branch = await this.#git("symbolic-ref", "-q", "--short", "HEAD") || null;
    } catch {
      branch = null;
    }
    // Staged or not, every tracked file that differs from HEAD.
    const changed = await this.#git("diff", "--name-only", "HEAD", "--");
    const dirty = changed.split("\n").filter((line) => line.trim() !== "");
    return { commit, branch, dirty };
  }

  async available(branch: string): Promise<Available> {
    const remotes = (await this.#git("remote")).split("\n");
    if (!remotes.includes("origin")) {
      throw new HeraldError(
        "update_no_origin",
        "state",
        `${this.#dir} has no remote "origin" to update from; add it with git -C ${this.#dir} ` +
          "remote add origin <url>",
      );
    }
    try {
      await this.#git(
        "fetch",
        "-q",
        "origin",
        `+refs/heads/${branch}:refs/remotes/origin/${branch}`,
      );
    } catch (error) {
      throw new HeraldError(
        "update_fetch_failed",
        "unavailable",
        `Fetching ${branch} from origin failed (is there a branch "${branch}"? the network?): ` +
          (error instanceof Error ? error.message : String(error)),
      );
    }
    const target = await this.#git("rev-parse", `refs/remotes/origin/${branch}`);
    const local = await this.#ref(`refs/heads/${branch}`);
    const base = local ?? "HEAD";
    const behind = Number(await this.#git("rev-list", "--count", `${base}..${target}`));
    const ahead = local ? Number(await this.#git("rev-list", "--count", `${target}..${local}`)) : 0;
    const log = await this.#git("log", "--format=%h %s", "-n", "5", `${base}..${target}`);
    // A detached HEAD's own commits: on no branch and no remote, the update would drop them.
    const detached = (await this.current()).branch === null;
    const unreachable = detached
      ? Number(
        await this.#git(
          "rev-list",
          "--count",
          "HEAD",
          "--not",
          "--branches",
          "--remotes",
          "--tags",
        ),
      )
      : 0;
    return {
      commit: target,
      behind,
      ahead,
      subjects: log ? log.split("\n") : [],
      ...(unreachable > 0 ? { unreachable } : {}),
    };
  }

  async apply(plan: UpdatePlan): Promise<void> {
    // Checked again here: an edit made since the plan (while the user was asked) is never
    // overwritten; nothing has changed yet, so refusing loses nothing.
    const { dirty } = await this.current();
    if (dirty.length > 0) {
      throw new HeraldError(
        "update_dirty",
        "state",
        `${this.#dir} changed while the update waited: ${dirty.slice(0, 5).join(", ")} ` +
          "now differ from the last commit; commit or stash them, then update again",
      );
    }
    const branch = plan.branch;
    this.#targetBefore = await this.#ref(`refs/heads/${branch}`);
    if (plan.switching) {
      if (this.#targetBefore) await this.#git("checkout", "-q", branch);
      else await this.#git("checkout", "-q", "-b", branch, `refs/remotes/origin/${branch}`);
    }
    await this.#git("merge", "--ff-only", "-q", plan.to);
    await this.#install();
  }

  async #install(): Promise<void> {
    const ran = await runBounded([this.#deno, "install", "--frozen"], {
      cwd: this.#dir,
      env: this.#env,
      timeoutMs: 10 * 60_000,
    });
    if (ran.code !== 0 || ran.timedOut) {
      throw new HeraldError(
        "update_deps_failed",
        "state",
        `deno install --frozen failed in ${this.#dir}: ${tail(ran.stderr || ran.stdout)}`,
      );
    }
  }

  probe(): Promise<ProbeResult> {
    const command = [
      this.#deno,
      "run",
      "--allow-all",
      "--quiet",
      join(this.#dir, "cli", "main.ts"),
    ];
    return probeCommand(command, this.#dir, this.#env, this.#timeoutMs);
  }

  async rollback(plan: UpdatePlan): Promise<void> {
    // Never --force or --hard: a file edited meanwhile makes the rollback stop and say so
    // rather than lose the edit.
    if (plan.previousBranch) await this.#git("checkout", "-q", plan.previousBranch);
    else await this.#git("checkout", "-q", "--detach", plan.from);
    await this.#git("reset", "-q", "--keep", plan.from);
    if (plan.switching) {
      if (this.#targetBefore) {
        await this.#git("update-ref", `refs/heads/${plan.branch}`, this.#targetBefore);
      } else if (await this.#ref(`refs/heads/${plan.branch}`)) {
        await this.#git("branch", "-q", "-D", plan.branch);
      }
    }
    await this.#install();
  }
}

/** `SHA256SUMS` lines: `<hex>  <name>` or `<hex> *<name>`. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line.trim());
    if (match) sums.set(match[2].trim(), match[1].toLowerCase());
  }
  return sums;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The release asset for this machine, named as build/targets.ts names it. */
export function releaseAsset(): string {
  return `herald-${Deno.build.os}-${Deno.build.arch}${Deno.build.os === "windows" ? ".exe" : ""}`;
}

/** A release binary's source of updates: the release URL's stamp, binary and `SHA256SUMS`. */
class BinarySource implements UpdateSource {
  readonly #install: Extract<InstallFacts, { kind: "binary" }>;
  readonly #env: Record<string, string>;
  readonly #timeoutMs: number;
  /** True once {@link apply} put the new binary in place (the old one is `.previous`). */
  #binaryReplaced = false;
  /** True once {@link apply} put the new stamp in place (the old one is `.previous`). */
  #stampReplaced = false;

  constructor(
    install: Extract<InstallFacts, { kind: "binary" }>,
    env: Record<string, string>,
    timeoutMs: number,
  ) {
    this.#install = install;
    this.#env = env;
    this.#timeoutMs = timeoutMs;
  }

  get #stampPath(): string {
    return join(this.#install.dir, "install-stamp.json");
  }

  async #download(name: string): Promise<Uint8Array> {
    const base = this.#install.releaseUrl;
    if (!base) {
      throw new HeraldError(
        "update_no_release_url",
        "state",
        "This install records no release URL; set HERALD_RELEASE_URL to the release folder",
      );
    }
    const url = `${base.replace(/\/$/, "")}/${name}`;
    // What messages and receipts show: no credentials from the URL.
    const shown = redactUrl(url);
    if (!secureReleaseUrl(url)) {
      throw new HeraldError(
        "update_insecure_url",
        "usage",
        `The release URL ${shown} is not https: a checksum fetched from the same plain-http ` +
          "server proves nothing; use an https release URL (plain http only to this machine)",
      );
    }
    // Redirects are followed only while they stay secure, every hop.
    const fetched = await fetchSecure(url).catch((error) => {
      throw new HeraldError(
        "update_download_failed",
        "unavailable",
        `Cannot download ${shown}: ${redactUrl(String(error))}`,
      );
    });
    if (fetched.kind === "insecure-redirect") {
      throw new HeraldError(
        "update_insecure_url",
        "usage",
        `${redactUrl(fetched.from)} redirects to ${
          redactUrl(fetched.to) || "nowhere"
        }, which is not https`,
      );
    }
    if (fetched.kind === "too-many-redirects") {
      throw new HeraldError(
        "update_download_failed",
        "unavailable",
        `Cannot download ${shown}: more than ${MAX_SECURE_REDIRECTS} redirects`,
      );
    }
    return await this.#bytesOf(fetched.response, redactUrl(fetched.url));
  }

  async #bytesOf(response: Response, shown: string): Promise<Uint8Array> {
    if (!response.ok) {
      await response.body?.cancel();
      throw new HeraldError(
        "update_download_failed",
        "unavailable",
        `Cannot download ${shown}: HTTP ${response.status}`,
      );
    }
    return new Uint8Array(await response.arrayBuffer());
  }

  /** Downloads `name` and checks it against the release's `SHA256SUMS`. */
  async #verified(name: string, sums: Map<string, string>): Promise<Uint8Array> {
    const expected = sums.get(name);
    if (!expected) {
      throw new HeraldError(
        "update_unverified",
        "state",
        `SHA256SUMS of the release does not list ${name}; refusing an unverified file`,
      );
    }
    const bytes = await this.#download(name);
    const actual = await sha256(bytes);
    if (actual !== expected) {
      throw new HeraldError(
        "update_checksum_mismatch",
        "state",
        `checksum mismatch for ${name}: SHA256SUMS says ${expected}, the download is ${actual}; refusing it`,
      );
    }
    return bytes;
  }

  async #sums(): Promise<Map<string, string>> {
    return parseSums(new TextDecoder().decode(await this.#download("SHA256SUMS")));
  }

  async current(): Promise<CurrentCode> {
    const stamp = JSON.parse((await readText(this.#stampPath)) ?? "{}");
    return {
      commit: typeof stamp.commit === "string" ? stamp.commit : "unknown",
      branch: typeof stamp.branch === "string" ? stamp.branch : null,
      dirty: [],
    };
  }

  async available(): Promise<Available> {
    const stamp = JSON.parse(
      new TextDecoder().decode(await this.#verified("install-stamp.json", await this.#sums())),
    );
    const commit = typeof stamp.commit === "string" ? stamp.commit : "";
    if (commit.length < 7) {
      throw new HeraldError(
        "update_release_invalid",
        "state",
        "The release's install-stamp.json names no commit",
      );
    }
    const current = await this.current();
    return { commit, behind: commit === current.commit ? 0 : 1, ahead: 0, subjects: [] };
  }

  async apply(plan: UpdatePlan): Promise<void> {
    const sums = await this.#sums();
    const binary = await this.#verified(releaseAsset(), sums);
    const stamp = await this.#verified("install-stamp.json", sums);
    const stampCommit = JSON.parse(new TextDecoder().decode(stamp)).commit;
    if (stampCommit !== plan.to) {
      throw new HeraldError(
        "update_release_changed",
        "state",
        "The release changed during the update; run it again",
      );
    }
    const path = this.#install.binary;
    // The new binary is whole on disk before the old one is touched.
    await Deno.remove(`${path}.new`).catch(() => {});
    try {
      await Deno.writeFile(`${path}.new`, binary, { mode: 0o755 });
      await Deno.chmod(`${path}.new`, 0o755);
    } catch (error) {
      await Deno.remove(`${path}.new`).catch(() => {});
      throw error;
    }
    try {
      await keepPrevious(path);
      await Deno.rename(`${path}.new`, path);
    } catch (error) {
      // Where the old binary was moved away rather than linked, put it back.
      if (!(await pathExists(path))) await Deno.rename(`${path}.previous`, path);
      await Deno.remove(`${path}.new`).catch(() => {});
      throw error;
    }
    this.#binaryReplaced = true;
    await keepPrevious(this.#stampPath);
    // From here the old stamp is .previous (moved, where there are no links): a failed write is put back too.
    this.#stampReplaced = true;
    await writeFileAtomic(this.#stampPath, stamp, { mode: 0o644 });
  }

  probe(): Promise<ProbeResult> {
    return probeCommand([this.#install.binary], this.#install.dir, this.#env, this.#timeoutMs);
  }

  async rollback(): Promise<void> {
    // Only what was replaced is put back: nothing when the download, its check
    // or saving the old files failed.
    if (this.#binaryReplaced) {
      const path = this.#install.binary;
      await Deno.rename(`${path}.previous`, path);
      this.#binaryReplaced = false;
    }
    if (this.#stampReplaced) {
      // An install that had no stamp gets none back.
      if (await pathExists(`${this.#stampPath}.previous`)) {
        await Deno.rename(`${this.#stampPath}.previous`, this.#stampPath);
      } else await Deno.remove(this.#stampPath).catch(() => {});
      this.#stampReplaced = false;
    }
  }
}

/**
 * Keeps `path` as `<path>.previous` without ever making a partial copy: a
 * hard link to the very file (the old binary stays whole whatever happens
 * next, and `path` never goes missing); where the file system has no hard
 * links, and on Windows, where a running program cannot be replaced but can
 * be renamed, the file is moved there instead. An earlier `.previous` goes
 * first; a missing `path` (a stamp never written) is nothing to keep.
 */
async function keepPrevious(path: string): Promise<void> {
  const previous = `${path}.previous`;
  await Deno.remove(previous).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  if (!(await pathExists(path))) return;
  if (Deno.build.os !== "windows") {
    try {
      await Deno.link(path, previous);
      return;
    } catch {
      // No hard links here: move it instead.
    }
  }
  await Deno.rename(path, previous);
}

/**
 * The source of updates of a managed install: git for a checkout (run with
 * this process's Deno), the release download for a binary. `env` is the
 * children's whole environment; `probeTimeoutMs` bounds each start probe.
 */
export function updateSource(
  install: Exclude<InstallFacts, { kind: "unmanaged" }>,
  env: Record<string, string>,
  probeTimeoutMs = PROBE_TIMEOUT_MS,
): UpdateSource {
  return install.kind === "checkout"
    ? new CheckoutSource(install.dir, env, Deno.execPath(), probeTimeoutMs)
    : new BinarySource(install, env, probeTimeoutMs);
}

/** Copies what an update could lose of every profile into `logs/update_snapshots/<id>/`. */
export async function snapshotProfiles(root: string, id: string): Promise<SnapshotResult> {
  const parent = join(root, "logs", "update_snapshots");
  const dir = join(parent, id);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await Deno.chmod(dir, 0o700);
  const files: string[] = [];
  for (const profile of await listProfiles(root)) {
    const home = profilePaths(root, profile).home;
    for (const rel of SNAPSHOT_FILES) {
      const from = join(home, rel);
      let info: Deno.FileInfo;
      try {
        info = await Deno.stat(from);
      } catch {
        continue;
      }
      if (!info.isFile) continue;
      const to = join(dir, profile, rel);
      await Deno.mkdir(dirname(to), { recursive: true, mode: 0o700 });
      await Deno.copyFile(from, to);
      await Deno.chmod(to, (info.mode ?? 0o600) & 0o777);
      files.push(join(profile, rel));
    }
  }
  await writeFileAtomic(
    join(dir, "manifest.json"),
    JSON.stringify({ version: 1, id, created_at: new Date().toISOString(), files }, null, 2) + "\n",
  );
  await prune(parent, KEEP_SNAPSHOTS, (entry) => entry.isDirectory);
  return { dir, files };
}

/** Removes all but the newest `keep` entries of `dir` (by name: ids sort by time) that `pick` selects. */
async function prune(
  dir: string,
  keep: number,
  pick: (entry: Deno.DirEntry) => boolean,
): Promise<void> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (pick(entry)) names.push(entry.name);
  names.sort();
  for (const name of names.slice(0, Math.max(0, names.length - keep))) {
    await Deno.remove(join(dir, name), { recursive: true }).catch(() => {});
  }
}

/** Writes `receipt` as `logs/update_receipts/<id>.json` and `latest.json`; keeps the newest {@link KEEP_RECEIPTS}. */
export async function writeUpdateReceipt(root: string, receipt: UpdateReceipt): Promise<string> {
  const dir = join(root, "logs", "update_receipts");
  await Deno.mkdir(dir, { recursive: true });
  let name = `${receipt.id}.json`;
  for (let n = 2; await pathExists(join(dir, name)); n++) name = `${receipt.id}-${n}.json`;
  const text = JSON.stringify(receipt, null, 2) + "\n";
  const path = join(dir, name);
  await writeFileAtomic(path, text, { mode: 0o600 });
  await writeFileAtomic(join(dir, "latest.json"), text, { mode: 0o600 });
  await prune(
    dir,
    KEEP_RECEIPTS,
    (entry) => entry.isFile && entry.name.endsWith(".json") && entry.name !== "latest.json",
  );
  return path;
}

/** Options of {@link updatePorts}. */
export interface UpdatePortsOptions {
  /** The root home (`HERALD_HOME`). */
  root: string;
  env: Record<string, string | undefined>;
  progress(line: string): void;
  confirm?: (question: string) => Promise<boolean>;
  probeTimeoutMs?: number;
  drainTimeoutMs?: number;
  /** How long to wait for another update or bootstrap of the install (ms). */
  lockWaitMs?: number;
}

/** The command that runs the installed (new) code of `install`. */
function installedCommand(install: Exclude<InstallFacts, { kind: "unmanaged" }>): string[] {
  return install.kind === "binary"
    ? [install.binary]
    : [Deno.execPath(), "run", "--allow-all", "--quiet", join(install.dir, "cli", "main.ts")];
}

/** The real ports of `herald update`. */
export function updatePorts(options: UpdatePortsOptions): UpdatePorts {
  const env = childEnv(options.env, options.root);
  // Loaded now, while the files on disk are still the code this process runs: after the
  // update they are the new code's.
  const gatewayProcess = importLazily<typeof import("../runtime/gateway_process.ts")>(
    "adapters/runtime/gateway_process.ts",
  );
  gatewayProcess.catch(() => {});
  const probeTimeoutMs = options.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
  const drainTimeoutMs = options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS;
  let installed: Exclude<InstallFacts, { kind: "unmanaged" }> | undefined;
  return {
    now: () => Date.now(),
    install: () => detectInstall({ env: options.env }),
    source(install) {
      installed = install;
      return updateSource(install, env, probeTimeoutMs);
    },
    snapshot: (id) => snapshotProfiles(options.root, id),
    async runningGateways() {
      const running: string[] = [];
      for (const profile of await listProfiles(options.root)) {
        const files = gatewayFiles(profilePaths(options.root, profile).home);
        const view = await gatewayStatus(profile, files, { now: Date.now() });
        if (view.running) running.push(profile);
      }
      return running;
    },
    async restartGateway(profile): Promise<GatewayRestart> {
      const files = gatewayFiles(profilePaths(options.root, profile).home);
      const deadline = Date.now() + drainTimeoutMs;
      let busy = 0;
      for (;;) {
        const counts = (await files.readState())?.counts;
        busy = counts ? counts.running + counts.queued : 0;
        const jobs = counts?.jobs ?? 0;
        if (busy + jobs === 0 || Date.now() >= deadline) break;
        options.progress(
          `Gateway of ${profile}: waiting for ${
            jobs > 0 && busy === 0 ? "its scheduled jobs" : `${busy} turn(s)`
          } to finish`,
        );
        await new Promise((done) => setTimeout(done, 2_000));
      }
      // Stopped at once, from this process: a turn that came in after the check would
      // otherwise run for the seconds a new herald process takes to start and send the stop.
      // (One interrupted anyway is answered again at the next start.)
      const { stopGateway } = await gatewayProcess;
      const stopped = await stopGateway(profilePaths(options.root, profile).home, {
        graceMs: GATEWAY_STOP_GRACE_MS,
      });
      if (stopped.kind === "still_running") {
        return { profile, ok: false, message: `pid ${stopped.pid} still runs after SIGKILL` };
      }
      const command = [...installedCommand(installed!), "-p", profile, "gateway", "start"];
      const ran = await runBounded(command, {
        cwd: installed!.dir,
        env,
        timeoutMs: 3 * 60_000,
      });
      const waited = busy > 0 ? ` (${busy} turn(s) still running after the wait)` : "";
      return ran.code === 0 && !ran.timedOut
        ? { profile, ok: true, message: `restarted${waited}` }
        : { profile, ok: false, message: tail(ran.stderr || ran.stdout) || `exit ${ran.code}` };
    },
    writeReceipt: (receipt) => writeUpdateReceipt(options.root, receipt),
    exclusive: (install, work) =>
      withInstallLock(install.dir, "herald update", work, options.lockWaitMs),
    ...(options.confirm ? { confirm: options.confirm } : {}),
    progress: options.progress,
  };
}

/** Moved to release_url.ts (the desktop bootstrap uses it too); re-exported for callers. */
export { secureReleaseUrl };
