/**
 * The desktop bootstrap resolver's I/O: the probes of each rung (files,
 * `herald --version` in a subprocess, with a timeout), running the staged
 * installer (`install.sh --manifest`, then `install.sh --stage <name>
 * --json --non-interactive` per stage) with progress events, and the
 * latched failure (in memory and in `<install folder>/.herald-bootstrap-failed`).
 * The order and the decisions are core/desktop/bootstrap.ts's.
 *
 * Used by `herald desktop` (cli/commands/desktop.ts) and by a desktop shell,
 * which keeps one {@link DesktopResolver} for its life.
 *
 * Defined here:
 * - the install folder: `HERALD_INSTALL_DIR`, else `<HERALD_HOME or ~/.herald>/herald-agent`;
 * - an install folder's runtime: `<folder>/herald` or `<folder>/bin/herald` (binary installs),
 *   else `<folder>/cli/main.ts` run by Deno (checkout installs);
 * - the installed package (rung 5): `HERALD_DESKTOP_HERALD`, then the shell's bundled binary
 *   (`bundledBinary`), then {@link PACKAGE_PATHS} for this platform;
 * - the installer: the `installer` option, else `<checkout>/installers/install.sh`, else a copy
 *   downloaded from `HERALD_INSTALLER_URL`.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { resolveRoot } from "../home/layout.ts";
import { missing, pathExists } from "../fs/read.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { findOnPath, parseLauncherMarker, shellQuote } from "./launcher.ts";
import { readMarker, stampDesktopVersion } from "./marker.ts";
import { spawnProcessGroup } from "../process/spawn_group.ts";
import { endLeftovers } from "./_group.ts";
import {
  currentRuntimeFacts,
  heraldCheckout,
  heraldLaunchMode,
} from "../process/herald_command.ts";
import { HeraldError } from "../../core/errors.ts";
import {
  type BootstrapEvent,
  bootstrapFailedError,
  type BootstrapFailure,
  type DesktopBackend,
  type DesktopEnv,
  devCheckout,
  FAILURE_FILE,
  firstAnswer,
  type InstallerStage,
  isHeraldVersion,
  newFailure,
  OutputRing,
  parseFailure,
  parseFrame,
  parseManifest,
  type Resolution,
  type RungAnswer,
  type RungProbe,
  truthy,
} from "../../core/desktop/bootstrap.ts";

/** How long a `--version` probe may take before it is ended (ms). */
export const PROBE_TIMEOUT_MS = 20_000;
/** How long `install.sh --manifest` may take (ms). */
export const MANIFEST_TIMEOUT_MS = 30_000;
/** How long one installer stage may take (ms); npm downloads can be slow. */
export const STAGE_TIMEOUT_MS = 20 * 60_000;
/** How long a bootstrap waits for another process's bootstrap of the same folder (ms). */
export const BOOTSTRAP_LOCK_TIMEOUT_MS = 2 * 60 * 60_000;
/** The most stdout kept from a probe or a stage (bytes); a frame is one short line. */
const STDOUT_MAX = 256 * 1024;

/** Where a packaged Herald's binary is, per platform (rung 5). */
export const PACKAGE_PATHS: Readonly<Partial<Record<typeof Deno.build.os, readonly string[]>>> = {
  linux: ["/opt/Herald/resources/bin/herald", "/usr/lib/herald/herald"],
  darwin: ["/Applications/Herald.app/Contents/Resources/bin/herald"],
};

/** The environment: {@link DesktopEnv} plus what finding folders and programs needs. */
export type ResolverEnv =
  & DesktopEnv
  & { HOME?: string; PATH?: string; HERALD_HOME?: string; HERALD_INSTALLER_URL?: string }
  & Record<string, string | undefined>;

/** Options of {@link DesktopResolver}; everything but `env` has a default. */
export interface DesktopResolverOptions {
  /** The environment: read for the rungs' variables and given to every child. */
  env: ResolverEnv;
  /** The running checkout; `null` for none (a compiled binary). Default: heraldCheckout(). */
  checkout?: string | null;
  /** The Deno binary that runs a checkout. Default: this one from source, else `deno`. */
  deno?: string;
  /** The installer command (program first); `--manifest` / `--stage ...` are appended. */
  installer?: string[];
  /** More installer arguments for every stage (`--branch b`, `--commit c`, ...). */
  installerArgs?: string[];
  /** The desktop shell's bundled `herald` binary (rung 5). */
  bundledBinary?: string;
  /** Replaces {@link PACKAGE_PATHS} for this platform (rung 5). */
  packagePaths?: readonly string[];
  /** Written into the marker as `desktopVersion` after a bootstrap. */
  desktopVersion?: string;
  /** Receives the progress events of a bootstrap. */
  onEvent?: (event: BootstrapEvent) => void;
  /** Lines kept in the output ring buffer (default OUTPUT_RING_LINES). */
  outputLines?: number;
  probeTimeoutMs?: number;
  manifestTimeoutMs?: number;
  stageTimeoutMs?: number;
  /** How long to wait for another process's bootstrap of the same folder (ms). */
  bootstrapLockTimeoutMs?: number;
  /** The clock (tests). */
  now?: () => Date;
}

/** The install folder: `HERALD_INSTALL_DIR`, else `<HERALD_HOME or ~/.herald>/herald-agent`. */
export function installDirOf(env: ResolverEnv): string {
  const chosen = env.HERALD_INSTALL_DIR?.trim();
  if (chosen) return resolve(chosen);
  return join(resolveRoot(env), "herald-agent");
}

/** The result of a `--version` probe. */
export type VersionProbe = { ok: true; version: string } | { ok: false; reason: string };

/** What a finished child process left. */
interface ChildResult {
  code: number;
  stdout: string;
  timedOut: boolean;
}

function childEnv(env: ResolverEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) kept[key] = value;
  return kept;
}

/** A stream being read to its end, which can be cut short. */
interface Drain {
  /** Settles when the stream ended or was cancelled. */
  done: Promise<void>;
  /** Stops reading (what was read stays). */
  cancel(): void;
}

/** Reads `stream` chunk by chunk into `onChunk` until it ends or is cancelled. */
function drain(stream: ReadableStream<Uint8Array>, onChunk: (chunk: Uint8Array) => void): Drain {
  const reader = stream.getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        onChunk(value);
      }
    } catch {
      // The process is gone: what was read stays.
    } finally {
      reader.releaseLock();
    }
  })();
  return { done, cancel: () => void reader.cancel().catch(() => {}) };
}

/** Keeps at most {@link STDOUT_MAX} bytes of the chunks it is given. */
class CappedText {
  #chunks: Uint8Array[] = [];
  #size = 0;

  /** Adds `chunk`, cut at the cap. */
  add(chunk: Uint8Array): void {
    if (this.#size < STDOUT_MAX) this.#chunks.push(chunk.subarray(0, STDOUT_MAX - this.#size));
    this.#size += chunk.length;
  }

  /** What was kept, as text. */
  text(): string {
    const all = new Uint8Array(Math.min(this.#size, STDOUT_MAX));
    let at = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return new TextDecoder().decode(all);
  }
}

/**
 * How long the streams may stay open after the program exited (ms): a
 * process it left behind may hold them; then they are no longer read.
 */
export const EOF_GRACE_MS = 500;
/** How long a timed-out group, or what a probe left behind, gets between SIGTERM and SIGKILL (ms). */
const KILL_GRACE_MS = 2000;

/** Whether `promise` settles within `ms` (its timer is cleared either way). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((done) => timer = setTimeout(() => done(false), ms));
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `command` + `args` in its own process group, standard input closed,
 * and ends the whole group after `timeoutMs`. `onStderr` gets stderr as text
 * (else it is dropped). Once the program exited the streams get
 * {@link EOF_GRACE_MS} to end, then are cancelled, so a process it left
 * holding them cannot stall the caller. What is left in the group is ended
 * after a timeout, and always with `endLeftovers` (a probe leaves nothing).
 */
async function runChild(
  command: readonly string[],
  args: readonly string[],
  env: ResolverEnv,
  timeoutMs: number,
  onStderr?: (text: string) => void,
  endLeftoversAlways = false,
): Promise<ChildResult> {
  const group = spawnProcessGroup(command[0], {
    args: [...command.slice(1), ...args],
    env: childEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  let timedOut = false;
  let terminating: Promise<void> | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    terminating = group.terminate({ graceMs: KILL_GRACE_MS }).catch(() => {});
  }, timeoutMs);
  const stdout = new CappedText();
  const decoder = new TextDecoder();
  const streams = [
    drain(group.child.stdout, (chunk) => stdout.add(chunk)),
    drain(group.child.stderr, (chunk) => onStderr?.(decoder.decode(chunk, { stream: true }))),
  ];
  let status: Deno.CommandStatus;
  try {
    status = await group.status;
  } finally {
    clearTimeout(timer);
  }
  await terminating;
  if (timedOut || endLeftoversAlways) await endLeftovers(group.pid, KILL_GRACE_MS);
  const ended = Promise.all(streams.map((s) => s.done));
  if (!await within(ended, EOF_GRACE_MS)) {
    for (const stream of streams) stream.cancel();
    await ended;
  }
  const tail = decoder.decode();
  if (tail) onStderr?.(tail);
  return { code: status.code, stdout: stdout.text(), timedOut };
}

/**
 * Runs `command --version` with a timeout; ok when it exits 0 and prints a
 * Herald version line.
 */
export async function probeVersion(
  command: readonly string[],
  env: ResolverEnv,
  timeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<VersionProbe> {
  let result: ChildResult;
  try {
    result = await runChild(command, ["--version"], env, timeoutMs, undefined, true);
  } catch (error) {
    return { ok: false, reason: `${command[0]} cannot be started (${(error as Error).message})` };
  }
  if (result.timedOut) {
    return { ok: false, reason: `\`${command[0]} --version\` gave no answer in ${timeoutMs} ms` };
  }
  const line = result.stdout.trim().split("\n")[0] ?? "";
  if (result.code !== 0) {
    return { ok: false, reason: `\`${command[0]} --version\` exited with ${result.code}` };
  }
  if (!isHeraldVersion(line)) {
    return {
      ok: false,
      reason: `\`${command[0]} --version\` printed "${line.slice(0, 80)}", not Herald's version`,
    };
  }
  return { ok: true, version: line.trim() };
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch (error) {
    if (missing(error) || error instanceof Deno.errors.PermissionDenied) return false;
    throw error;
  }
}

async function samePath(a: string, b: string): Promise<boolean> {
  const real = async (path: string) => await Deno.realPath(path).catch(() => resolve(path));
  return await real(a) === await real(b);
}

/** The Deno binary that runs a checkout: `preferred`, else this one from source, else `deno`. */
export function denoFor(preferred?: string): string {
  if (preferred) return preferred;
  return heraldLaunchMode(currentRuntimeFacts()) === "source" ? Deno.execPath() : "deno";
}

/** `<root>/herald` or `<root>/bin/herald` when it is an executable file. */
async function binaryOf(root: string): Promise<string | undefined> {
  const exe = Deno.build.os === "windows" ? "herald.exe" : "herald";
  for (const binary of [join(root, exe), join(root, "bin", exe)]) {
    if (await isExecutableFile(binary)) return binary;
  }
  return undefined;
}

function sourceCommand(root: string, deno: string): string[] {
  return [
    deno,
    "run",
    "--allow-all",
    "--quiet",
    "--config",
    join(root, "deno.json"),
    join(root, "cli", "main.ts"),
  ];
}

/**
 * The command that runs the Herald in `root`: its `herald` binary
 * (`<root>/herald`, `<root>/bin/herald`), else its `cli/main.ts` with
 * `deno`; undefined when `root` holds neither.
 */
export async function runtimeOf(root: string, deno: string): Promise<string[] | undefined> {
  const binary = await binaryOf(root);
  if (binary) return [binary];
  if (await pathExists(join(root, "cli", "main.ts"))) return sourceCommand(root, deno);
  return undefined;
}

/** A value install.sh recorded in `<installDir>/.install-state/<key>` (one line), if any. */
async function recorded(installDir: string, key: string): Promise<string | undefined> {
  try {
    return (await Deno.readTextFile(join(installDir, ".install-state", key))).trim() || undefined;
  } catch (error) {
    if (missing(error) || error instanceof Deno.errors.PermissionDenied) return undefined;
    throw error;
  }
}

/**
 * The command that runs the install in `installDir`: its binary; else, for
 * a checkout install, its `cli/main.ts` with the Deno install.sh recorded
 * (`.install-state/deno`), else through the launcher it recorded
 * (`.install-state/herald`) when that launcher runs this folder, and only
 * then with `fallbackDeno`. Undefined when the folder holds no Herald.
 */
export async function installRuntimeOf(
  installDir: string,
  fallbackDeno: string,
): Promise<string[] | undefined> {
  const binary = await binaryOf(installDir);
  if (binary) return [binary];
  if (!await pathExists(join(installDir, "cli", "main.ts"))) return undefined;
  const deno = await recorded(installDir, "deno");
  if (deno && await isExecutableFile(deno)) return sourceCommand(installDir, deno);
  const launcher = await recorded(installDir, "herald");
  if (launcher && await isExecutableFile(launcher)) {
    const text = await Deno.readTextFile(launcher).catch(() => "");
    const runs = text.split("\n").includes(`checkout=${shellQuote(resolve(installDir))}`);
    if (runs && parseLauncherMarker(text)?.kind === "herald") return [launcher];
  }
  return sourceCommand(installDir, fallbackDeno);
}

/**
 * Finds the Herald a desktop runs, rung by rung, and runs the staged
 * installer when none answers. Keep one per process: it holds the latched
 * failure in memory (and on disk, for the next process).
 */
export class DesktopResolver {
  readonly options: DesktopResolverOptions;
  /** The install folder (rung 3's, and where the installer installs). */
  readonly installDir: string;
  #latched: BootstrapFailure | undefined;
  #inFlight: Promise<RungAnswer> | undefined;

  /** A resolver for `options` (see {@link DesktopResolverOptions}). */
  constructor(options: DesktopResolverOptions) {
    this.options = options;
    this.installDir = installDirOf(options.env);
  }

  /** The latch file's path. */
  get failurePath(): string {
    return join(this.installDir, FAILURE_FILE);
  }

  /** The latched failure: the one in memory, else the one on disk, else undefined. */
  async latched(): Promise<BootstrapFailure | undefined> {
    if (this.#latched) return this.#latched;
    let text: string;
    try {
      text = await Deno.readTextFile(this.failurePath);
    } catch (error) {
      if (missing(error)) return undefined;
      throw error;
    }
    this.#latched = parseFailure(text) ??
      newFailure(
        "unknown",
        `the failure record ${this.failurePath} is unreadable`,
        [],
        this.#now(),
      );
    return this.#latched;
  }

  /** Clears the latched failure (memory and disk); true when there was one. */
  async reset(): Promise<boolean> {
    const had = this.#latched !== undefined;
    this.#latched = undefined;
    try {
      await Deno.remove(this.failurePath);
      return true;
    } catch (error) {
      if (missing(error)) return had;
      throw error;
    }
  }

  /**
   * Tries the rungs in order and returns the first that answers; rung 6
   * runs the installer.
   *
   * @throws HeraldError (`desktop_bootstrap_failed`) for a latched or new installer failure.
   */
  async resolve(): Promise<Resolution> {
    return await firstAnswer(this.rungs());
  }

  /** The rungs' probes, in order (exposed so tests can swap single probes). */
  rungs(): RungProbe[] {
    return [
      { rung: "root-override", probe: () => this.rootOverride() },
      { rung: "dev-checkout", probe: () => this.devCheckout() },
      { rung: "active-install", probe: () => this.guarded(() => this.activeInstall()) },
      { rung: "path", probe: () => this.guarded(() => this.onPath()) },
      { rung: "package", probe: () => this.guarded(() => this.installedPackage()) },
      { rung: "bootstrap", probe: () => this.guarded(() => this.bootstrap()) },
    ];
  }

  #now(): Date {
    return this.options.now?.() ?? new Date();
  }

  #deno(): string {
    return denoFor(this.options.deno);
  }

  #checkout(): string | undefined {
    return this.options.checkout === undefined
      ? heraldCheckout()
      : this.options.checkout ?? undefined;
  }

  /** Rungs 3 to 6 throw a latched failure at once instead of probing. */
  async guarded(probe: () => Promise<RungAnswer>): Promise<RungAnswer> {
    const failure = await this.latched();
    if (failure) throw bootstrapFailedError(failure);
    return await probe();
  }

  /** Rung 1: `HERALD_DESKTOP_ROOT`. */
  async rootOverride(): Promise<RungAnswer> {
    const root = this.options.env.HERALD_DESKTOP_ROOT?.trim();
    if (!root) return { answered: false, reason: "HERALD_DESKTOP_ROOT is not set" };
    const folder = resolve(root);
    const command = await runtimeOf(folder, this.#deno());
    if (!command) {
      throw new HeraldError(
        "desktop_root_invalid",
        "usage",
        `HERALD_DESKTOP_ROOT=${root} holds neither a herald binary nor cli/main.ts; point it at ` +
          "a Herald checkout or install folder, or unset it",
        { details: { root } },
      );
    }
    return { answered: true, backend: { rung: "root-override", command, root: folder } };
  }

  /** Rung 2: a source checkout in development mode. */
  async devCheckout(): Promise<RungAnswer> {
    const checkout = this.#checkout();
    const decision = devCheckout(this.options.env, {
      checkout,
      isGitCheckout: checkout !== undefined && await pathExists(join(checkout, ".git")),
      sameFolder: checkout !== undefined && await samePath(checkout, this.installDir),
    });
    if (!decision.dev) return { answered: false, reason: decision.reason };
    const command = await runtimeOf(decision.checkout, this.#deno());
    if (!command) return { answered: false, reason: `${decision.checkout} has no cli/main.ts` };
    return {
      answered: true,
      backend: { rung: "dev-checkout", command, root: decision.checkout },
    };
  }

  /** Rung 3: the install folder with a valid marker and a runtime answering `--version`. */
  async activeInstall(): Promise<RungAnswer> {
    const marker = await readMarker(this.installDir);
    if (marker.state === "missing") {
      return { answered: false, reason: `${marker.path} is missing (bootstrap needed)` };
    }
    if (marker.state === "invalid") {
      return {
        answered: false,
        reason: `${marker.path} is malformed: ${marker.reason} (bootstrap needed)`,
      };
    }
    const command = await installRuntimeOf(this.installDir, this.#deno());
    if (!command) {
      return {
        answered: false,
        reason: `${this.installDir} holds no herald binary or cli/main.ts`,
      };
    }
    return await this.#probed("active-install", command, this.installDir);
  }

  /** Rung 4: a `herald` on the PATH answering `--version`. */
  async onPath(): Promise<RungAnswer> {
    if (truthy(this.options.env.HERALD_DESKTOP_IGNORE_EXISTING)) {
      return { answered: false, reason: "HERALD_DESKTOP_IGNORE_EXISTING is set" };
    }
    const found = await findOnPath("herald", this.options.env);
    if (!found) return { answered: false, reason: "no herald on the PATH" };
    return await this.#probed("path", [found]);
  }

  /** Rung 5: an installed package's binary answering `--version`. */
  async installedPackage(): Promise<RungAnswer> {
    const candidates = [
      this.options.env.HERALD_DESKTOP_HERALD?.trim(),
      this.options.bundledBinary,
      ...(this.options.packagePaths ?? PACKAGE_PATHS[Deno.build.os] ?? []),
    ].filter((path): path is string => !!path);
    const reasons: string[] = [];
    for (const path of candidates) {
      if (!await isExecutableFile(path)) {
        reasons.push(`${path} is not there`);
        continue;
      }
      const answer = await this.#probed("package", [path]);
      if (answer.answered) return answer;
      reasons.push(answer.reason);
    }
    return {
      answered: false,
      reason: reasons.length > 0 ? reasons.join("; ") : "no package path for this platform",
    };
  }

  async #probed(rung: DesktopBackend["rung"], command: string[], root?: string) {
    const probe = await probeVersion(
      command,
      this.options.env,
      this.options.probeTimeoutMs ?? PROBE_TIMEOUT_MS,
    );
    if (!probe.ok) return { answered: false as const, reason: probe.reason };
    const backend: DesktopBackend = { rung, command, version: probe.version };
    if (root !== undefined) backend.root = root;
    return { answered: true as const, backend };
  }

  /** The installer command: the option, else the checkout's install.sh, else a download. */
  async installer(): Promise<string[]> {
    if (this.options.installer) return this.options.installer;
    if (Deno.build.os === "windows") {
      throw new HeraldError(
        "desktop_installer_unsupported",
        "unavailable",
        "The desktop bootstrap runs install.sh, which needs a POSIX system; on Windows run " +
          "installers/install.ps1 yourself, then start the desktop again",
      );
    }
    const checkout = this.#checkout();
    const script = checkout ? join(checkout, "installers", "install.sh") : undefined;
    if (script && await pathExists(script)) {
      return await isExecutableFile(script) ? [script] : ["bash", script];
    }
    const url = this.options.env.HERALD_INSTALLER_URL?.trim();
    if (!url) {
      throw new HeraldError(
        "desktop_installer_missing",
        "state",
        "No Herald is installed and there is no installer to run: this Herald has no checkout " +
          "with installers/install.sh; set HERALD_INSTALLER_URL to the install.sh to download",
      );
    }
    return [await downloadInstaller(url, this.installDir)];
  }

  #emit(event: BootstrapEvent): void {
    this.options.onEvent?.(event);
  }

  /**
   * Reports `failure` as its stage's `failed` event, latches it (memory and
   * disk) and returns the error to throw.
   */
  async #fail(failure: BootstrapFailure): Promise<HeraldError> {
    this.#emit({
      type: "stage",
      stage: failure.stage,
      state: "failed",
      reason: failure.reason,
      output: [...failure.output],
    });
    this.#latched = failure;
    await Deno.mkdir(this.installDir, { recursive: true });
    await writeFileAtomic(this.failurePath, JSON.stringify(failure, null, 2) + "\n", {
      mode: 0o644,
    });
    return bootstrapFailedError(failure);
  }

  /**
   * Rung 6: runs the staged installer, then answers with the install it
   * made. One bootstrap at a time: callers of this resolver share the one in
   * flight, and other processes wait for the install folder's lock
   * (`.install-state/.herald-bootstrap.lock`; install.sh lets a git install
   * folder hold only `.install-state/` before its checkout) and then take the
   * install, or the failure, it left.
   */
  bootstrap(): Promise<RungAnswer> {
    this.#inFlight ??= this.#lockedBootstrap().finally(() => this.#inFlight = undefined);
    return this.#inFlight;
  }

  async #lockedBootstrap(): Promise<RungAnswer> {
    const stateDir = join(this.installDir, ".install-state");
    await Deno.mkdir(stateDir, { recursive: true });
    return await withFileLock(join(stateDir, "herald-bootstrap"), async () => {
      // Another process may have finished, or failed, while this one waited.
      const failure = await this.latched();
      if (failure) throw bootstrapFailedError(failure);
      const done = await this.activeInstall();
      if (done.answered) return { answered: true, backend: { ...done.backend, rung: "bootstrap" } };
      return await this.#bootstrap();
    }, { timeoutMs: this.options.bootstrapLockTimeoutMs ?? BOOTSTRAP_LOCK_TIMEOUT_MS });
  }

  async #bootstrap(): Promise<RungAnswer> {
    const installer = await this.installer();
    const env: ResolverEnv = { ...this.options.env, HERALD_INSTALL_DIR: this.installDir };
    const ring = new OutputRing(this.options.outputLines);
    this.#emit({ type: "manifest", stages: [] });

    let manifest;
    try {
      manifest = await runChild(
        installer,
        ["--manifest"],
        env,
        this.options.manifestTimeoutMs ?? MANIFEST_TIMEOUT_MS,
        (text) => ring.write(text),
      );
    } catch (error) {
      throw await this.#fail(
        newFailure("manifest", `the installer cannot be started (${(error as Error).message})`, [
          installer.join(" "),
        ], this.#now()),
      );
    }
    ring.flush();
    const parsed = manifest.timedOut
      ? { ok: false as const, reason: "`install.sh --manifest` gave no answer in time" }
      : manifest.code !== 0
      ? { ok: false as const, reason: `\`install.sh --manifest\` exited with ${manifest.code}` }
      : parseManifest(manifest.stdout);
    if (!parsed.ok) {
      throw await this.#fail(newFailure("manifest", parsed.reason, ring.lines(), this.#now()));
    }
    const stages: InstallerStage[] = parsed.value.stages;
    this.#emit({ type: "manifest", stages });

    for (const stage of stages) await this.#runStage(installer, stage.name, env, ring);

    const marker = await readMarker(this.installDir);
    if (marker.state !== "ok") {
      const why = marker.state === "missing" ? "is missing" : `is malformed: ${marker.reason}`;
      throw await this.#fail(
        newFailure(
          "complete",
          `the installer finished but ${marker.path} ${why}`,
          ring.lines(),
          this.#now(),
        ),
      );
    }
    if (this.options.desktopVersion) {
      await stampDesktopVersion(this.installDir, this.options.desktopVersion);
    }
    const answer = await this.activeInstall();
    if (!answer.answered) {
      throw await this.#fail(
        newFailure(
          "complete",
          `the installer finished but the install does not run: ${answer.reason}`,
          ring.lines(),
          this.#now(),
        ),
      );
    }
    return { answered: true, backend: { ...answer.backend, rung: "bootstrap" } };
  }

  async #runStage(
    installer: string[],
    stage: string,
    env: ResolverEnv,
    ring: OutputRing,
  ): Promise<void> {
    this.#emit({ type: "stage", stage, state: "running" });
    const timeoutMs = this.options.stageTimeoutMs ?? STAGE_TIMEOUT_MS;
    const lines = (completed: string[]) => {
      for (const line of completed) this.#emit({ type: "output", stage, line });
    };
    let result: ChildResult | undefined;
    let failure: string | undefined;
    try {
      result = await runChild(
        installer,
        ["--stage", stage, "--json", "--non-interactive", ...(this.options.installerArgs ?? [])],
        env,
        timeoutMs,
        (text) => lines(ring.write(text)),
      );
    } catch (error) {
      failure = `the installer cannot be started (${(error as Error).message})`;
    }
    lines(ring.flush());
    if (result) {
      const frame = parseFrame(result.stdout, stage);
      if (result.timedOut) failure = `the stage gave no result in ${timeoutMs} ms`;
      else if (!frame.ok) failure = frame.reason;
      else if (!frame.value.ok) failure = frame.value.reason || `exit code ${result.code}`;
      else if (result.code !== 0) failure = `the stage reported ok but exited with ${result.code}`;
      else {
        const reason = frame.value.reason ?? undefined;
        this.#emit({
          type: "stage",
          stage,
          state: "done",
          skipped: frame.value.skipped,
          ...(reason ? { reason } : {}),
        });
        return;
      }
    }
    throw await this.#fail(newFailure(stage, failure!, ring.lines(), this.#now()));
  }
}

/**
 * Downloads the installer from `url` (http or https) to
 * `<dirname(installDir)>/.herald-install.sh`, executable; returns the path.
 */
export async function downloadInstaller(url: string, installDir: string): Promise<string> {
  if (!/^https?:\/\//.test(url)) {
    throw new HeraldError(
      "desktop_installer_url",
      "usage",
      `HERALD_INSTALLER_URL must be an http or https URL, not "${url}"`,
    );
  }
  const response = await fetch(url, { signal: AbortSignal.timeout(MANIFEST_TIMEOUT_MS) });
  if (!response.ok) {
    await response.body?.cancel();
    throw new HeraldError(
      "desktop_installer_download",
      "unavailable",
      `Downloading the installer from ${url} failed with HTTP ${response.status}; check ` +
        "HERALD_INSTALLER_URL and the network, then start again",
    );
  }
  const path = join(dirname(installDir), ".herald-install.sh");
  await Deno.mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, new Uint8Array(await response.arrayBuffer()), {
    mode: 0o755,
    forceMode: true,
  });
  return path;
}
