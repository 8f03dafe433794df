/**
 * Where a Herald is and how it runs, for the desktop bootstrap resolver:
 * the install folder, the command that runs a checkout or an install
 * folder (its binary, else `cli/main.ts` with Deno), the platform's package
 * paths, and the `--version` probe that tells whether a command is a
 * working Herald.
 *
 * Private to adapters/install/bootstrap.ts (which re-exports what callers use)
 * and its `_bootstrap_*` modules.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { resolveRoot } from "../home/layout.ts";
import { missing, pathExists } from "../fs/read.ts";
import { parseLauncherMarker, shellQuote } from "./launcher.ts";
import { currentRuntimeFacts, heraldLaunchMode } from "../process/herald_command.ts";
import { type DesktopEnv, isHeraldVersion } from "../../core/desktop/bootstrap.ts";
import { type ChildResult, runChild } from "./_child.ts";

/** How long a `--version` probe may take before it is ended (ms). */
export const PROBE_TIMEOUT_MS = 20_000;

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

/** The install folder: `HERALD_INSTALL_DIR`, else `<HERALD_HOME or ~/.herald>/herald-agent`. */
export function installDirOf(env: ResolverEnv): string {
  const chosen = env.HERALD_INSTALL_DIR?.trim();
  if (chosen) return resolve(chosen);
  return join(resolveRoot(env), "herald-agent");
}

/** The result of a `--version` probe. */
export type VersionProbe = { ok: true; version: string } | { ok: false; reason: string };

/** How much of a failed probe's stderr its reason quotes: the last lines, at most this many characters. */
export const PROBE_STDERR_CHARS = 300;
/** How many of the last stderr lines a failed probe's reason quotes. */
const PROBE_STDERR_LINES = 2;

/**
 * The end of a stream's text, kept bounded while it arrives: at most
 * `2 * max` characters held, the last lines (up to `lines`, `max`
 * characters in all) given back.
 */
class TextTail {
  #text = "";
  constructor(readonly max: number, readonly lines: number) {}

  /** Adds `text`, dropping what is far enough back. */
  add(text: string): void {
    this.#text = (this.#text + text).slice(-2 * this.max);
  }

  /** The last non-empty lines, joined with " | ", cut to `max` characters from the end. */
  tail(): string {
    const kept = this.#text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line)
      .slice(-this.lines).join(" | ");
    return kept.length > this.max ? `…${kept.slice(-(this.max - 1))}` : kept;
  }
}

/**
 * Runs `command --version` with a timeout; ok when it exits 0 and prints a
 * Herald version line. A failing exit's reason ends with the last lines of
 * its stderr (bounded: {@link PROBE_STDERR_CHARS}); they are Herald's own
 * diagnostics, such as a missing module or a bad config.
 */
export async function probeVersion(
  command: readonly string[],
  env: ResolverEnv,
  timeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<VersionProbe> {
  let result: ChildResult;
  const stderr = new TextTail(PROBE_STDERR_CHARS, PROBE_STDERR_LINES);
  try {
    result = await runChild(
      command,
      ["--version"],
      env,
      timeoutMs,
      { onStderr: (text) => stderr.add(text), endLeftoversAlways: true },
    );
  } catch (error) {
    return { ok: false, reason: `${command[0]} cannot be started (${(error as Error).message})` };
  }
  if (result.timedOut) {
    return { ok: false, reason: `\`${command[0]} --version\` gave no answer in ${timeoutMs} ms` };
  }
  const line = result.stdout.trim().split("\n")[0] ?? "";
  if (result.code !== 0) {
    const said = stderr.tail();
    return {
      ok: false,
      reason: `\`${command[0]} --version\` exited with ${result.code}${said ? `: ${said}` : ""}`,
    };
  }
  if (!isHeraldVersion(line)) {
    return {
      ok: false,
      reason: `\`${command[0]} --version\` printed "${line.slice(0, 80)}", not Herald's version`,
    };
  }
  return { ok: true, version: line.trim() };
}

/** What is at a path that should be a program. */
export type ProgramFile = "executable" | "not-executable" | "not-a-file" | "missing" | "unreadable";

/** What is at `path`: an executable file, a file without an execute bit, something else, nothing. */
export async function programFile(path: string): Promise<ProgramFile> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) return "not-a-file";
    return ((info.mode ?? 0o111) & 0o111) !== 0 ? "executable" : "not-executable";
  } catch (error) {
    if (missing(error)) return "missing";
    if (error instanceof Deno.errors.PermissionDenied) return "unreadable";
    throw error;
  }
}

/** True when `path` is a file with an execute bit; false when it is missing or cannot be seen. */
export async function isExecutableFile(path: string): Promise<boolean> {
  return await programFile(path) === "executable";
}

/** True when `a` and `b` name the same place (links resolved where they can be). */
export async function samePath(a: string, b: string): Promise<boolean> {
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

/** The command that runs the checkout in `root` with `deno`. */
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
