/**
 * Rung 6 of the desktop bootstrap resolver: finding the staged installer
 * (the `installer` option, the checkout's `installers/install.sh`, else a
 * download from `HERALD_INSTALLER_URL`) and running it: `install.sh
 * --manifest`, then `install.sh --stage <name> --json --non-interactive` per
 * stage, with progress events, the output ring, and every failure reported
 * through the caller's `fail` (which latches it). Then the install it made
 * must hold a valid marker and answer `--version`.
 *
 * Private to adapters/install/bootstrap.ts (which re-exports what callers use).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { pathExists } from "../fs/read.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { readMarker, stampDesktopVersion } from "./marker.ts";
import { HeraldError } from "../../core/errors.ts";
import {
  type BootstrapEvent,
  type BootstrapFailure,
  type InstallerStage,
  newFailure,
  OutputRing,
  parseFrame,
  parseManifest,
  type RungAnswer,
} from "../../core/desktop/bootstrap.ts";
import { type ChildResult, runChild } from "./_bootstrap_child.ts";
import { isExecutableFile, type ResolverEnv } from "./_bootstrap_runtime.ts";

/** How long `install.sh --manifest` may take (ms). */
export const MANIFEST_TIMEOUT_MS = 30_000;
/** How long one installer stage may take (ms); npm downloads can be slow. */
export const STAGE_TIMEOUT_MS = 20 * 60_000;

/** Where {@link installerCommand} looks for the installer. */
export interface InstallerSource {
  /** The installer command given as an option (program first); wins when set. */
  installer?: string[];
  /** The running checkout, whose `installers/install.sh` comes next. */
  checkout: string | undefined;
  /** Read for `HERALD_INSTALLER_URL`, the download used last. */
  env: ResolverEnv;
  /** The install folder; a download is saved beside it. */
  installDir: string;
}

/**
 * The installer command: the option, else the checkout's install.sh, else a download.
 *
 * @throws HeraldError (`desktop_installer_unsupported`) on Windows, (`desktop_installer_missing`)
 *   when there is nothing to run, and what {@link downloadInstaller} throws.
 */
export async function installerCommand(source: InstallerSource): Promise<string[]> {
  if (source.installer) return source.installer;
  if (Deno.build.os === "windows") {
    throw new HeraldError(
      "desktop_installer_unsupported",
      "unavailable",
      "The desktop bootstrap runs install.sh, which needs a POSIX system; on Windows run " +
        "installers/install.ps1 yourself, then start the desktop again",
    );
  }
  const script = source.checkout ? join(source.checkout, "installers", "install.sh") : undefined;
  if (script && await pathExists(script)) {
    return await isExecutableFile(script) ? [script] : ["bash", script];
  }
  const url = source.env.HERALD_INSTALLER_URL?.trim();
  if (!url) {
    throw new HeraldError(
      "desktop_installer_missing",
      "state",
      "No Herald is installed and there is no installer to run: this Herald has no checkout " +
        "with installers/install.sh; set HERALD_INSTALLER_URL to the install.sh to download",
    );
  }
  return [await downloadInstaller(url, source.installDir)];
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

/** One run of the staged installer: what to run, and the resolver's hooks. */
export interface InstallerRun {
  /** The installer command (program first), from {@link installerCommand}. */
  installer: string[];
  /** The children's environment (with `HERALD_INSTALL_DIR` set to `installDir`). */
  env: ResolverEnv;
  /** The install folder the installer installs into. */
  installDir: string;
  /** More installer arguments for every stage. */
  installerArgs?: string[];
  /** Lines kept in the output ring buffer. */
  outputLines?: number;
  manifestTimeoutMs?: number;
  stageTimeoutMs?: number;
  /** Written into the marker as `desktopVersion` after the stages. */
  desktopVersion?: string;
  /** Receives the progress events. */
  emit(event: BootstrapEvent): void;
  /** Reports and latches `failure`; returns the error to throw. */
  fail(failure: BootstrapFailure): Promise<HeraldError>;
  /** The clock. */
  now(): Date;
  /** Rung 3's probe, asked about the install once the stages are done. */
  activeInstall(): Promise<RungAnswer>;
}

/**
 * Runs the manifest and every stage, then answers with the install made.
 *
 * @throws HeraldError (`desktop_bootstrap_failed`, from `run.fail`) for any failure.
 */
export async function runInstaller(run: InstallerRun): Promise<RungAnswer> {
  const { installer, env } = run;
  const ring = new OutputRing(run.outputLines);
  run.emit({ type: "manifest", stages: [] });

  let manifest;
  try {
    manifest = await runChild(
      installer,
      ["--manifest"],
      env,
      run.manifestTimeoutMs ?? MANIFEST_TIMEOUT_MS,
      (text) => ring.write(text),
    );
  } catch (error) {
    throw await run.fail(
      newFailure("manifest", `the installer cannot be started (${(error as Error).message})`, [
        installer.join(" "),
      ], run.now()),
    );
  }
  ring.flush();
  const parsed = manifest.timedOut
    ? { ok: false as const, reason: "`install.sh --manifest` gave no answer in time" }
    : manifest.code !== 0
    ? { ok: false as const, reason: `\`install.sh --manifest\` exited with ${manifest.code}` }
    : parseManifest(manifest.stdout);
  if (!parsed.ok) {
    throw await run.fail(newFailure("manifest", parsed.reason, ring.lines(), run.now()));
  }
  const stages: InstallerStage[] = parsed.value.stages;
  run.emit({ type: "manifest", stages });

  for (const stage of stages) await runStage(run, stage.name, ring);

  const marker = await readMarker(run.installDir);
  if (marker.state !== "ok") {
    const why = marker.state === "missing" ? "is missing" : `is malformed: ${marker.reason}`;
    throw await run.fail(
      newFailure(
        "complete",
        `the installer finished but ${marker.path} ${why}`,
        ring.lines(),
        run.now(),
      ),
    );
  }
  if (run.desktopVersion) await stampDesktopVersion(run.installDir, run.desktopVersion);
  const answer = await run.activeInstall();
  if (!answer.answered) {
    throw await run.fail(
      newFailure(
        "complete",
        `the installer finished but the install does not run: ${answer.reason}`,
        ring.lines(),
        run.now(),
      ),
    );
  }
  return { answered: true, backend: { ...answer.backend, rung: "bootstrap" } };
}

/** Runs one stage, its stderr lines as `output` events; throws through `run.fail` unless it is done. */
async function runStage(run: InstallerRun, stage: string, ring: OutputRing): Promise<void> {
  run.emit({ type: "stage", stage, state: "running" });
  const timeoutMs = run.stageTimeoutMs ?? STAGE_TIMEOUT_MS;
  const lines = (completed: string[]) => {
    for (const line of completed) run.emit({ type: "output", stage, line });
  };
  let result: ChildResult | undefined;
  let failure: string | undefined;
  try {
    result = await runChild(
      run.installer,
      ["--stage", stage, "--json", "--non-interactive", ...(run.installerArgs ?? [])],
      run.env,
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
      run.emit({
        type: "stage",
        stage,
        state: "done",
        skipped: frame.value.skipped,
        ...(reason ? { reason } : {}),
      });
      return;
    }
  }
  throw await run.fail(newFailure(stage, failure!, ring.lines(), run.now()));
}
