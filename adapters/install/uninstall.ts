/**
 * `herald uninstall`'s I/O: looking at what an install is made of
 * ({@link inspectInstall}) and the effects that remove it
 * ({@link createUninstallPorts}). What goes, in which order, and what is
 * refused is core/usecases/uninstall.ts's.
 *
 * Where things are (the same places installers/install.sh and
 * `deno task install` use):
 * - the Herald home: `HERALD_HOME`, else `~/.herald`;
 * - the install folder: `HERALD_INSTALL_DIR`, else `<home>/herald-agent`
 *   (adapters/install/bootstrap.ts installDirOf);
 * - launchers: the launcher folder (`HERALD_BIN_DIR`, else `~/.local/bin`)
 *   and every PATH folder, read with adapters/install/launcher.ts (only files
 *   carrying its marker, or links into the install folder's `bin/herald`);
 * - gateway services: `herald gateway install`'s unit or plist per profile
 *   (adapters/channels/gateway_service.ts), only when it serves this home;
 * - running gateways: each profile's pid file (adapters/channels/gateway_files.ts),
 *   stopped through the same path as `herald gateway stop`.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { resolveRoot } from "../home/layout.ts";
import { listProfiles } from "../home/home.ts";
import { profilePaths } from "../home/layout.ts";
import { missing, pathExists } from "../fs/read.ts";
import { gatewayFiles } from "../channels/gateway_files.ts";
import {
  launchdLabel,
  servesHome,
  serviceManagerFor,
  serviceName,
  servicePath,
} from "../channels/gateway_service.ts";
import { importLazily } from "../lazy.ts";
import { installDirOf, PACKAGE_PATHS } from "./bootstrap.ts";
import { readMarker } from "./marker.ts";
import {
  LAUNCHER_NAME,
  launcherDir,
  parseLauncherCheckout,
  pathDirs,
  profileLaunchers,
  readLauncher,
  removeLauncher,
} from "./launcher.ts";
import {
  currentRuntimeFacts,
  heraldCheckout,
  heraldLaunchMode,
} from "../process/herald_command.ts";
import type {
  FolderFacts,
  InstallFacts,
  LauncherFacts,
  MarkerFacts,
  ProfileFacts,
  ServiceFacts,
  UninstallPorts,
} from "../../core/usecases/uninstall.ts";
import { within } from "../../core/usecases/uninstall.ts";
import { GATEWAY_STOP_GRACE_MS } from "../../core/usecases/gateway.ts";

/** How long a `systemctl` or `launchctl` call may take (ms). */
const SERVICE_CALL_TIMEOUT_MS = 20_000;

/** Entries only Herald's installer puts in an install folder. */
export const INSTALL_SIGNS = [
  ".herald-bootstrap-complete",
  ".install-state",
  ".install_method",
  ".herald-bootstrap-failed",
  "install-stamp.json",
] as const;

/**
 * Entries only Herald puts in its home. Common names (`config.yaml`,
 * `.env`, `skills`, `sessions`, `memories`, `profiles`) do not count: a
 * project folder may hold them too.
 */
export const HOME_SIGNS = [
  "state.db",
  "active_profile",
  "kanban.db",
  ".no-bundled-skills",
  "herald-agent",
  "gateway-locks",
  "skill-bundles",
  "request-dumps",
] as const;

/** Entries Herald never makes in its home: a folder holding one is someone's project. */
export const FOREIGN_SIGNS = [
  ".git",
  "package.json",
  "deno.json",
  "src",
  "Cargo.toml",
  "go.mod",
  "pyproject.toml",
] as const;

/** The environment {@link inspectInstall} reads. */
export type UninstallEnv = Record<string, string | undefined>;

/** Looks at `path`: whether it exists, is empty, and which of `signs` it holds. */
export async function folderFacts(path: string, signs: readonly string[]): Promise<FolderFacts> {
  const facts: FolderFacts = { path, exists: false, empty: false, signs: [] };
  try {
    const info = await Deno.stat(path);
    // A file where a folder belongs: it exists, is not empty and is not Herald's.
    if (!info.isDirectory) return { ...facts, exists: true };
  } catch (error) {
    if (missing(error)) return facts;
    throw error;
  }
  facts.exists = true;
  facts.empty = true;
  for await (const _ of Deno.readDir(path)) {
    facts.empty = false;
    break;
  }
  for (const sign of signs) {
    try {
      await Deno.lstat(join(path, sign));
      facts.signs.push(sign);
    } catch (error) {
      if (!missing(error)) throw error;
    }
  }
  return facts;
}

async function readSmallText(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > 64 * 1024) return undefined;
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

async function markerFacts(installDir: string): Promise<MarkerFacts> {
  const read = await readMarker(installDir);
  if (read.state === "missing") return { state: "missing" };
  if (read.state === "invalid") return { state: "invalid", reason: read.reason };
  const { pinnedCommit, pinnedBranch, completedAt, desktopVersion } = read.marker;
  return {
    state: "ok",
    pinnedCommit,
    pinnedBranch,
    completedAt,
    ...(desktopVersion === undefined ? {} : { desktopVersion }),
  };
}

async function stampFacts(installDir: string): Promise<InstallFacts["stamp"]> {
  const text = await readSmallText(join(installDir, "install-stamp.json"));
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== "object") return undefined;
    const pick = (key: string) => typeof parsed[key] === "string" ? parsed[key] : undefined;
    return { commit: pick("commit"), branch: pick("branch"), builtAt: pick("builtAt") };
  } catch {
    return undefined;
  }
}

/** Where the link at `path` leads: its real path, else (a dangling link) its text resolved. */
async function linkTarget(path: string): Promise<string> {
  return await Deno.realPath(path).catch(async () =>
    resolve(dirname(path), await Deno.readLink(path))
  );
}

/** The herald launcher or link in `dir`, when it is Herald's. */
async function mainLauncher(
  dir: string,
  inBinDir: boolean,
  installDir: string,
): Promise<LauncherFacts | undefined> {
  const path = join(dir, LAUNCHER_NAME);
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch {
    return undefined;
  }
  if (info.isSymlink) {
    const target = await linkTarget(path);
    if (!within(target, installDir)) return undefined;
    return { path, kind: "link", dir, inBinDir, target };
  }
  const file = await readLauncher(path).catch(() => undefined);
  if (file?.state !== "ours" || file.kind !== "herald") return undefined;
  const target = parseLauncherCheckout(await Deno.readTextFile(path));
  return { path, kind: "herald", dir, inBinDir, ...(target === undefined ? {} : { target }) };
}

/** Herald's launchers in the launcher folder and every PATH folder. */
async function launcherFacts(
  env: UninstallEnv,
  binDir: string,
  installDir: string,
): Promise<LauncherFacts[]> {
  const found: LauncherFacts[] = [];
  const dirs = new Set([binDir, ...pathDirs(env).map((dir) => resolve(dir))]);
  for (const dir of dirs) {
    const inBinDir = dir === binDir;
    const main = await mainLauncher(dir, inBinDir, installDir);
    if (main) found.push(main);
    if (!main && !inBinDir) continue;
    const profiles = await profileLaunchers(dir).catch(() => []);
    for (const launcher of profiles) {
      found.push({
        path: launcher.path,
        kind: "profile",
        dir,
        inBinDir,
        profile: launcher.profile,
      });
    }
  }
  return found;
}

/** Runs a short command (a service manager, git); its exit code and output, or undefined when it cannot run. */
async function serviceCall(
  program: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string } | undefined> {
  try {
    const output = await new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(SERVICE_CALL_TIMEOUT_MS),
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
    return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
  } catch {
    return undefined;
  }
}

/**
 * True when the service manager has the service loaded from `path` (and
 * not from some other file of the same name).
 */
async function serviceLoaded(service: Omit<ServiceFacts, "loaded">): Promise<boolean> {
  if (service.manager === "systemd") {
    const out = await serviceCall("systemctl", [
      "--user",
      "show",
      "-p",
      "FragmentPath",
      "--value",
      service.name,
    ]);
    return out?.code === 0 && out.stdout === service.path;
  }
  const out = await serviceCall("launchctl", ["print", `gui/${Deno.uid()}/${service.name}`]);
  return out?.code === 0 && out.stdout.includes(`path = ${service.path}`);
}

/** The gateway services `herald gateway install` wrote for the profiles of `root`. */
async function serviceFacts(
  env: UninstallEnv,
  root: string,
  profiles: readonly string[],
): Promise<ServiceFacts[]> {
  const manager = serviceManagerFor(Deno.build.os);
  if (!manager) return [];
  const found: ServiceFacts[] = [];
  for (const profile of profiles) {
    let path: string;
    try {
      path = servicePath(manager, profile, env);
    } catch {
      return found;
    }
    const text = await readSmallText(path);
    // Only a file Herald wrote, for this home: another home's service is not this install's.
    if (text === undefined || !text.includes("herald gateway install")) continue;
    if (!servesHome(text, root)) continue;
    const name = manager === "systemd" ? `${serviceName(profile)}.service` : launchdLabel(profile);
    const service = { profile, manager, name, path };
    found.push({ ...service, loaded: await serviceLoaded(service) });
  }
  return found;
}

/** What {@link localWork} found: the work, or why git could not tell. */
type LocalWork = { work: string[] } | { unknown: string };

/**
 * What a git install folder holds that is nowhere else: changed or new
 * files (not ignored), commits on no remote branch, commits of a detached
 * HEAD that no branch, remote or tag holds, and stashes; undefined when it
 * is no git checkout, and why when git cannot read it (no git, a folder of
 * another user): then nobody knows, and the folder is kept.
 */
async function localWork(dir: string): Promise<LocalWork | undefined> {
  if (!(await pathExists(join(dir, ".git")))) return undefined;
  const git = (...args: string[]) => serviceCall("git", ["-C", dir, ...args]);
  // A checkout whose first fetch never happened has no HEAD commit: nothing to lose there.
  const born = (await git("rev-parse", "-q", "--verify", "HEAD"))?.code === 0;
  const runs = [
    // Herald's own files (the installer's state, the lock this uninstall holds) are no one's work.
    await git(
      "status",
      "--porcelain",
      "--",
      ".",
      ...[...INSTALL_SIGNS, ".herald-bootstrap.lock"].map((name) => `:(exclude)${name}`),
    ),
    await git("log", "--branches", "--not", "--remotes", "--format=commit %h %s", "-n", "5"),
    born && await git(
      "log",
      "HEAD",
      "--not",
      "--branches",
      "--remotes",
      "--tags",
      "--format=commit %h %s (detached HEAD)",
      "-n",
      "5",
    ),
    await git("stash", "list", "--format=stash %gd %s"),
  ].filter((ran) => ran !== false);
  const at = runs.findIndex((ran) => ran?.code !== 0);
  if (at !== -1) {
    const failed = runs[at];
    if (!failed) return { unknown: "git cannot be run" };
    return { unknown: failed.stderr.split("\n")[0] || `git exited ${failed.code}` };
  }
  const lines = runs.flatMap((ran) => ran!.stdout.split("\n"));
  return { work: [...new Set(lines.map((line) => line.trim()).filter((line) => line !== ""))] };
}

async function profileFacts(root: string, exists: boolean): Promise<ProfileFacts[]> {
  if (!exists) return [];
  const facts: ProfileFacts[] = [];
  for (const name of await listProfiles(root)) {
    const home = profilePaths(root, name).home;
    const files = gatewayFiles(home);
    const pid = await files.readPid().catch(() => undefined);
    const running = pid !== undefined && await files.isRunning(pid).catch(() => false);
    facts.push({ name, home, ...(running ? { gatewayPid: pid } : {}) });
  }
  return facts;
}

/** The Herald running this process: its binary when compiled, else its checkout. */
function runningHerald(): InstallFacts["running"] {
  const mode = heraldLaunchMode(currentRuntimeFacts());
  if (mode === "compiled") return { mode, path: Deno.execPath() };
  return { mode, path: heraldCheckout() ?? Deno.execPath() };
}

/** Options of {@link inspectInstall}. */
export interface InspectOptions {
  /** Replaces {@link PACKAGE_PATHS} for this platform (the chat GUI a package installed). */
  packagePaths?: readonly string[];
}

/**
 * Looks at what the install named by `env` is made of: the Herald home and
 * its profiles (with running gateways), the install folder (marker, method,
 * stamp), the launchers, the gateway services and a packaged chat GUI.
 * Changes nothing.
 *
 * @throws HeraldError when neither HOME nor HERALD_HOME is set (no home to look at).
 */
export async function inspectInstall(
  env: UninstallEnv,
  options: InspectOptions = {},
): Promise<InstallFacts> {
  const root = resolve(resolveRoot(env));
  const installDir = installDirOf(env);
  const binDir = launcherDir(env);
  const userHome = env.HOME || env.USERPROFILE;
  const home = await folderFacts(root, HOME_SIGNS);
  home.foreign = (await folderFacts(root, FOREIGN_SIGNS)).signs;
  const profiles = await profileFacts(root, home.exists && home.signs.length > 0);
  const install = await folderFacts(installDir, INSTALL_SIGNS);
  const work = install.exists ? await localWork(installDir) : undefined;
  if (work && "work" in work) install.localWork = work.work;
  if (work && "unknown" in work) install.localWorkUnknown = work.unknown;
  const methodText = (await readSmallText(join(installDir, ".install_method")))?.trim();
  const method = methodText === "git" || methodText === "binary" ? methodText : undefined;
  const stamp = install.exists ? await stampFacts(installDir) : undefined;
  const gui: InstallFacts["gui"] = [];
  for (const path of options.packagePaths ?? PACKAGE_PATHS[Deno.build.os] ?? []) {
    if (await Deno.stat(path).then(() => true, () => false)) gui.push({ path, owner: "package" });
  }
  return {
    ...(userHome ? { userHome: resolve(userHome) } : {}),
    home,
    profiles,
    install,
    marker: install.exists ? await markerFacts(installDir) : { state: "missing" },
    ...(method ? { method } : {}),
    ...(stamp ? { stamp } : {}),
    binDir,
    launchers: await launcherFacts(env, binDir, installDir),
    services: await serviceFacts(env, root, profiles.map((p) => p.name)),
    gui,
    running: runningHerald(),
  };
}

/** Stops, disables and removes a service; the note says which of that happened. */
async function disableService(service: ServiceFacts): Promise<string> {
  let note = "not loaded by the service manager; its file was removed";
  if (service.loaded) {
    const out = service.manager === "systemd"
      ? await serviceCall("systemctl", ["--user", "disable", "--now", service.name])
      : await serviceCall("launchctl", ["bootout", `gui/${Deno.uid()}/${service.name}`]);
    if (out === undefined || out.code !== 0) {
      const why = out === undefined ? "the service manager could not be run" : out.stderr;
      throw new Error(`${service.name} could not be disabled: ${why || "no reason given"}`);
    }
    note = "stopped and disabled; its file was removed";
  }
  await Deno.remove(service.path).catch((error) => {
    if (!missing(error)) throw error;
  });
  if (service.loaded && service.manager === "systemd") {
    await serviceCall("systemctl", ["--user", "daemon-reload"]);
  }
  return note;
}

/**
 * The real effects of an uninstall. Loads the gateway's process module
 * first, so stopping gateways works even after the code it comes from is
 * gone.
 */
export async function createUninstallPorts(): Promise<UninstallPorts> {
  // Through importLazily: the gateway's process module is in LAZY_MODULES.
  const { stopGateway } = await importLazily<
    typeof import("../runtime/gateway_process.ts")
  >("adapters/runtime/gateway_process.ts");
  return {
    disableService,
    async stopGateway(_profile, home) {
      const outcome = await stopGateway(home, { graceMs: GATEWAY_STOP_GRACE_MS });
      switch (outcome.kind) {
        case "not_running":
        case "stale":
          return "it had already stopped";
        case "stopped":
          return outcome.forced
            ? `killed after ${GATEWAY_STOP_GRACE_MS / 1000} s (pid ${outcome.pid})`
            : `stopped (pid ${outcome.pid})`;
        case "still_running":
          throw new Error(`pid ${outcome.pid} still runs after SIGKILL`);
      }
    },
    async removeLauncher(launcher) {
      if (launcher.kind === "link") {
        const info = await Deno.lstat(launcher.path).catch(() => undefined);
        if (info === undefined) return;
        const target = info.isSymlink ? await linkTarget(launcher.path) : undefined;
        if (!info.isSymlink || target !== launcher.target) {
          throw new Error(`${launcher.path} changed since it was looked at; left it`);
        }
        await Deno.remove(launcher.path);
        return;
      }
      const now = await readLauncher(launcher.path);
      if (now.state === "missing") return;
      if (!(await removeLauncher(launcher.path))) {
        throw new Error(`${launcher.path} is no longer a launcher Herald wrote; left it`);
      }
    },
    async removeTree(path) {
      await Deno.remove(path, { recursive: true }).catch((error) => {
        if (!missing(error)) throw error;
      });
    },
  };
}
