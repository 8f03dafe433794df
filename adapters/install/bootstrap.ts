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
 * - the installer: the `installer` option, else `<checkout>/installers/install.sh`, else the
 *   install.sh embedded in a compiled binary (found next to the code, so from source the
 *   checkout's file) copied out and run with `sh`, else a copy downloaded from
 *   `HERALD_INSTALLER_URL` (https, or plain http to this machine; redirects likewise). A copy
 *   or a download goes to `<dirname(install folder)>/.herald-install.sh`.
 *
 * The parts live beside it, private to this folder: `_bootstrap_runtime.ts`
 * (folders, runtimes, the `--version` probe), `_child.ts` (running
 * one child), `_bootstrap_rungs.ts` (rungs 1 to 5), `_bootstrap_installer.ts`
 * (rung 6) and `_bootstrap_latch.ts` (the latch and lock files). Everything
 * callers use is exported from here.
 *
 * @module
 */

import { heraldCheckout } from "../process/herald_command.ts";
import { pathExists } from "../fs/read.ts";
import { HeraldError } from "../../core/errors.ts";
import {
  type BootstrapEvent,
  bootstrapFailedError,
  type BootstrapFailure,
  firstAnswer,
  type Resolution,
  type RungAnswer,
  type RungProbe,
} from "../../core/desktop/bootstrap.ts";
import { denoFor, installDirOf, type ResolverEnv } from "./_bootstrap_runtime.ts";
import {
  activeInstallRung,
  devCheckoutRung,
  installedPackageRung,
  onPathRung,
  rootOverrideRung,
  type RungContext,
} from "./_bootstrap_rungs.ts";
import { installerCommand, runInstaller } from "./_bootstrap_installer.ts";
import { FailureLatch, withBootstrapLock } from "./_bootstrap_latch.ts";

export { EOF_GRACE_MS } from "./_child.ts";
export {
  denoFor,
  installDirOf,
  installRuntimeOf,
  PACKAGE_PATHS,
  PROBE_TIMEOUT_MS,
  probeVersion,
  type ResolverEnv,
  runtimeOf,
  type VersionProbe,
} from "./_bootstrap_runtime.ts";
export {
  downloadInstaller,
  EMBEDDED_INSTALLER,
  installerCopyPath,
  MANIFEST_TIMEOUT_MS,
  STAGE_TIMEOUT_MS,
} from "./_bootstrap_installer.ts";

/** How long a bootstrap waits for another process's bootstrap of the same folder (ms). */
export const BOOTSTRAP_LOCK_TIMEOUT_MS = 2 * 60 * 60_000;

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
  /**
   * The embedded install.sh, used when there is no checkout: default
   * EMBEDDED_INSTALLER (next to the code), `null` for none (tests).
   */
  embeddedInstaller?: string | null;
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

/**
 * Finds the Herald a desktop runs, rung by rung, and runs the staged
 * installer when none answers. Keep one per process: it holds the latched
 * failure in memory (and on disk, for the next process).
 */
export class DesktopResolver {
  readonly options: DesktopResolverOptions;
  /** The install folder (rung 3's, and where the installer installs). */
  readonly installDir: string;
  readonly #latch: FailureLatch;
  #inFlight: Promise<RungAnswer> | undefined;

  /** A resolver for `options` (see {@link DesktopResolverOptions}). */
  constructor(options: DesktopResolverOptions) {
    this.options = options;
    this.installDir = installDirOf(options.env);
    this.#latch = new FailureLatch(this.installDir, () => this.#now());
  }

  /** The latch file's path. */
  get failurePath(): string {
    return this.#latch.path;
  }

  /** The latched failure: the one in memory, else the one on disk, else undefined. */
  async latched(): Promise<BootstrapFailure | undefined> {
    return await this.#latch.get();
  }

  /**
   * Clears the latched failure (memory and disk); true when there was one.
   * Holds the bootstrap lock: a bootstrap of this folder running here or in
   * another process ends first, and the failure it latched is the one cleared.
   */
  async reset(): Promise<boolean> {
    // No install folder: no bootstrap has taken its lock, and no failure is on disk.
    if (!await pathExists(this.installDir)) return await this.#latch.reset();
    return await withBootstrapLock(
      this.installDir,
      this.#lockTimeoutMs(),
      () => this.#latch.reset(),
    );
  }

  #lockTimeoutMs(): number {
    return this.options.bootstrapLockTimeoutMs ?? BOOTSTRAP_LOCK_TIMEOUT_MS;
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

  #checkout(): string | undefined {
    return this.options.checkout === undefined
      ? heraldCheckout()
      : this.options.checkout ?? undefined;
  }

  /** What rungs 1 to 5 read. */
  #context(): RungContext {
    const { env, probeTimeoutMs, bundledBinary, packagePaths } = this.options;
    return {
      env,
      installDir: this.installDir,
      deno: () => denoFor(this.options.deno),
      checkout: () => this.#checkout(),
      probeTimeoutMs,
      bundledBinary,
      packagePaths,
    };
  }

  /** Rungs 3 to 6 throw a latched failure at once instead of probing. */
  async guarded(probe: () => Promise<RungAnswer>): Promise<RungAnswer> {
    const failure = await this.latched();
    if (failure) throw bootstrapFailedError(failure);
    return await probe();
  }

  /** Rung 1: `HERALD_DESKTOP_ROOT`. */
  async rootOverride(): Promise<RungAnswer> {
    return await rootOverrideRung(this.#context());
  }

  /** Rung 2: a source checkout in development mode. */
  async devCheckout(): Promise<RungAnswer> {
    return await devCheckoutRung(this.#context());
  }

  /** Rung 3: the install folder with a valid marker and a runtime answering `--version`. */
  async activeInstall(): Promise<RungAnswer> {
    return await activeInstallRung(this.#context());
  }

  /** Rung 4: a `herald` on the PATH answering `--version`. */
  async onPath(): Promise<RungAnswer> {
    return await onPathRung(this.#context());
  }

  /** Rung 5: an installed package's binary answering `--version`. */
  async installedPackage(): Promise<RungAnswer> {
    return await installedPackageRung(this.#context());
  }

  /**
   * The installer command: the option, else the checkout's install.sh, else
   * a copy of the embedded one, else a download.
   */
  async installer(): Promise<string[]> {
    return await installerCommand({
      installer: this.options.installer,
      checkout: this.#checkout(),
      embedded: this.options.embeddedInstaller,
      env: this.options.env,
      installDir: this.installDir,
    });
  }

  /**
   * Reports `failure` as its stage's `failed` event, latches it (memory and
   * disk) and returns the error to throw: the installer's failure also when
   * the latch file cannot be written (then its message says so).
   */
  async #fail(failure: BootstrapFailure): Promise<HeraldError> {
    this.options.onEvent?.({
      type: "stage",
      stage: failure.stage,
      state: "failed",
      reason: failure.reason,
      output: [...failure.output],
    });
    try {
      await this.#latch.record(failure);
    } catch (error) {
      return latchNotWritten(bootstrapFailedError(failure), this.#latch.path, error);
    }
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
    return await withBootstrapLock(this.installDir, this.#lockTimeoutMs(), async () => {
      // Another process may have finished, or failed, while this one waited.
      const failure = await this.latched();
      if (failure) throw bootstrapFailedError(failure);
      const done = await this.activeInstall();
      if (done.answered) return { answered: true, backend: { ...done.backend, rung: "bootstrap" } };
      return await this.#bootstrap();
    });
  }

  async #bootstrap(): Promise<RungAnswer> {
    const installer = await this.installer();
    return await runInstaller({
      ...this.options, // installerArgs, outputLines, the timeouts, desktopVersion
      installer,
      env: { ...this.options.env, HERALD_INSTALL_DIR: this.installDir },
      installDir: this.installDir,
      emit: (event) => this.options.onEvent?.(event),
      fail: (failure) => this.#fail(failure),
      now: () => this.#now(),
      activeInstall: () => this.activeInstall(),
    });
  }
}

/**
 * `error` (the installer's failure) with a note that its latch file `path`
 * could not be written (`cause`): the failure is latched in this process only.
 */
function latchNotWritten(error: HeraldError, path: string, cause: unknown): HeraldError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new HeraldError(
    error.code,
    error.kind,
    `${error.message} (the failure could not be kept in ${path}: ${why}; it holds in this ` +
      "process only, so a restarted desktop runs the installer again)",
    { details: { ...error.details, latchError: why } },
  );
}
