/**
 * Rung 6 of the desktop bootstrap resolver: finding the staged installer
 * (the `installer` option, the checkout's `installers/install.sh`, a copy of
 * the install.sh embedded in a compiled binary, else a download from
 * `HERALD_INSTALLER_URL`) and running it: `install.sh
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
import { fileURLToPath } from "node:url";
import { missing, pathExists } from "../fs/read.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { redactUrl } from "../../core/config/redact.ts";
import {
  fetchSecure,
  MAX_SECURE_REDIRECTS,
  type SecureFetch,
  secureReleaseUrl,
} from "./release_url.ts";
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
import { type ChildResult, runChild } from "./_child.ts";
import { isExecutableFile, type ResolverEnv } from "./_bootstrap_runtime.ts";

/** How long `install.sh --manifest` may take (ms). */
export const MANIFEST_TIMEOUT_MS = 30_000;
/** How long one installer stage may take (ms); npm downloads can be slow. */
export const STAGE_TIMEOUT_MS = 20 * 60_000;

/**
 * The installer embedded in a compiled binary (build/compile.ts embeds
 * `installers/`), found next to this code: inside a binary a file of its
 * read-only embedded folder (which can be read but not run in place), from
 * source the checkout's own file.
 */
export const EMBEDDED_INSTALLER: string = fileURLToPath(
  new URL("../../installers/install.sh", import.meta.url),
);

/** Where {@link installerCommand} looks for the installer. */
export interface InstallerSource {
  /** The installer command given as an option (program first); wins when set. */
  installer?: string[];
  /** The running checkout, whose `installers/install.sh` comes next. */
  checkout: string | undefined;
  /**
   * The embedded install.sh, copied out and run when there is no checkout's
   * script; default {@link EMBEDDED_INSTALLER}, `null` for none.
   */
  embedded?: string | null;
  /** Read for `HERALD_INSTALLER_URL`, the download used last. */
  env: ResolverEnv;
  /** The install folder; a copy or a download is saved beside it. */
  installDir: string;
}

/**
 * The installer command, the first of: the `installer` option, the
 * checkout's `installers/install.sh`, a copy of the embedded install.sh (run
 * with `sh`), a download from `HERALD_INSTALLER_URL`. A copy and a download
 * both go to {@link installerCopyPath}.
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
  const embedded = source.embedded === undefined ? EMBEDDED_INSTALLER : source.embedded;
  const bytes = embedded ? await readIfThere(embedded) : undefined;
  if (bytes) return ["sh", await placeInstaller(bytes, source.installDir)];
  const url = source.env.HERALD_INSTALLER_URL?.trim();
  if (!url) {
    throw new HeraldError(
      "desktop_installer_missing",
      "state",
      "No Herald is installed and there is no installer to run: this Herald has no checkout " +
        "with installers/install.sh and no embedded copy; set HERALD_INSTALLER_URL to the " +
        "https address of install.sh to download",
    );
  }
  return [await downloadInstaller(url, source.installDir)];
}

/** Where a copied or downloaded installer is saved: `<dirname(installDir)>/.herald-install.sh`. */
export function installerCopyPath(installDir: string): string {
  return join(dirname(installDir), ".herald-install.sh");
}

/** The bytes of `path`, or undefined when there is no such file. */
async function readIfThere(path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

/** Writes `bytes` to {@link installerCopyPath} (0755, atomically); returns the path. */
async function placeInstaller(bytes: Uint8Array, installDir: string): Promise<string> {
  const path = installerCopyPath(installDir);
  await Deno.mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, bytes, { mode: 0o755, forceMode: true });
  return path;
}

/**
 * Downloads the installer from `url` to {@link installerCopyPath},
 * executable; returns the path. The URL must be https (plain http only to
 * this machine, see secureReleaseUrl), and so must every redirect: the
 * script runs unverified, as the user.
 *
 * @throws HeraldError (`desktop_installer_url`) for an insecure URL or redirect,
 *   (`desktop_installer_download`) when the download fails.
 */
export async function downloadInstaller(url: string, installDir: string): Promise<string> {
  const shown = redactUrl(url);
  if (!secureReleaseUrl(url)) {
    throw new HeraldError(
      "desktop_installer_url",
      "usage",
      `HERALD_INSTALLER_URL=${shown} is not https: a script fetched over plain http can be ` +
        "changed on the way and would run as you; set HERALD_INSTALLER_URL to the https " +
        "address of install.sh (plain http only to this machine: 127.x, localhost, [::1])",
    );
  }
  let fetched: SecureFetch;
  try {
    fetched = await fetchSecure(url, { signal: AbortSignal.timeout(MANIFEST_TIMEOUT_MS) });
  } catch (error) {
    throw new HeraldError(
      "desktop_installer_download",
      "unavailable",
      `Downloading the installer from ${shown} failed (${redactUrl(String(error))}); check ` +
        "HERALD_INSTALLER_URL and the network, then start again",
    );
  }
  if (fetched.kind === "insecure-redirect") {
    throw new HeraldError(
      "desktop_installer_url",
      "usage",
      `HERALD_INSTALLER_URL=${shown}: ${redactUrl(fetched.from)} redirects to ` +
        `${redactUrl(fetched.to) || "nowhere"}, which is not https, so the installer was not ` +
        "downloaded; set HERALD_INSTALLER_URL to the final https address of install.sh",
    );
  }
  if (fetched.kind === "too-many-redirects") {
    throw new HeraldError(
      "desktop_installer_download",
      "unavailable",
      `HERALD_INSTALLER_URL=${shown} redirects more than ${MAX_SECURE_REDIRECTS} times; set it ` +
        "to the final https address of install.sh",
    );
  }
  const { response } = fetched;
  if (!response.ok) {
    await response.body?.cancel();
    throw new HeraldError(
      "desktop_installer_download",
      "unavailable",
      `Downloading the installer from ${redactUrl(fetched.url)} failed with HTTP ` +
        `${response.status}; check HERALD_INSTALLER_URL and the network, then start again`,
    );
  }
  return await placeInstaller(new Uint8Array(await response.arrayBuffer()), installDir);
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
      { onStderr: (text) => ring.write(text) },
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
      { onStderr: (text) => lines(ring.write(text)) },
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
