/**
 * `herald uninstall`: what an install is made of, what goes and what stays.
 *
 * The adapter (adapters/install/uninstall.ts) looks at the disk and the
 * processes and hands over {@link InstallFacts}; {@link planUninstall} turns
 * them into an {@link UninstallPlan} (steps in the order they run, what is
 * kept and why, and refusals); {@link runUninstall} carries a plan out
 * through {@link UninstallPorts}; {@link installSummary} is the JSON
 * snapshot of `--gui-summary`.
 *
 * The order is fixed: gateway services are disabled and running gateways
 * stopped first; when one cannot be stopped nothing is removed. Then the
 * launchers, the install folder and (with `--full`) the Herald home go.
 * Nothing outside the known locations is ever in a plan, and a plan that
 * would remove `/`, the user's home folder (or a folder holding it), or a
 * folder that does not look like Herald's carries a refusal instead.
 *
 * Pure: paths arrive absolute and normalised from the adapter.
 *
 * @module
 */

import { DEFAULT_PROFILE } from "../profiles/names.ts";

/** What is removed: code and launchers (default), also the data (`full`), or only the chat GUI. */
export type UninstallMode = "default" | "full" | "gui";

/** How the install folder was installed (`.install_method`), when it says. */
export type InstallMethod = "git" | "binary";

/** A folder and what in it shows it is Herald's. */
export interface FolderFacts {
  path: string;
  exists: boolean;
  /** True when it exists and holds nothing. */
  empty: boolean;
  /** The entries found that only Herald makes (a marker, `.install-state`, `state.db`, ...). */
  signs: string[];
  /**
   * Entries Herald never makes in a home (`.git`, `package.json`, `src`, ...):
   * a folder holding one is a project, not Herald's home, and is never removed.
   */
  foreign?: string[];
  /**
   * A git checkout's work that exists nowhere else: changed or new files
   * (`git status --porcelain` lines) and commits on no remote branch
   * (`commit <hash> <subject>`). Removing the folder would lose them.
   */
  localWork?: string[];
  /** Why git could not tell what a checkout holds (no git, a folder git refuses): it is kept. */
  localWorkUnknown?: string;
}

/** The bootstrap-complete marker of the install folder. */
export interface MarkerFacts {
  state: "ok" | "missing" | "invalid";
  pinnedCommit?: string;
  pinnedBranch?: string;
  completedAt?: string;
  desktopVersion?: string;
  /** Why an invalid marker is invalid. */
  reason?: string;
}

/** One `herald` launcher, binary link or profile launcher found on the PATH or in the launcher folder. */
export interface LauncherFacts {
  path: string;
  /** `herald`: a launcher script; `link`: a link to a release binary; `profile`: `<name>` → `herald -p <name>`. */
  kind: "herald" | "link" | "profile";
  /** The folder it is in. */
  dir: string;
  /** True when `dir` is the launcher folder (`HERALD_BIN_DIR`, else `~/.local/bin`). */
  inBinDir: boolean;
  /** The checkout a launcher script runs, or the file a link points to. */
  target?: string;
  /** The profile of a profile launcher. */
  profile?: string;
}

/** A gateway user service (`herald gateway install`). */
export interface ServiceFacts {
  profile: string;
  manager: "systemd" | "launchd";
  /** The unit (`herald-gateway.service`) or launchd label. */
  name: string;
  path: string;
  /** True when the service manager has it loaded from `path`. */
  loaded: boolean;
}

/** A profile of the Herald home, and its gateway when one runs. */
export interface ProfileFacts {
  name: string;
  home: string;
  /** The pid of its running gateway. */
  gatewayPid?: number;
}

/** Everything {@link planUninstall} decides from; gathered by adapters/install/uninstall.ts. */
export interface InstallFacts {
  /** The user's home folder, when known. */
  userHome?: string;
  /** The Herald home (`HERALD_HOME`, default `~/.herald`): the user data. */
  home: FolderFacts;
  profiles: ProfileFacts[];
  /** The install folder (`HERALD_INSTALL_DIR`, default `<home>/herald-agent`). */
  install: FolderFacts;
  marker: MarkerFacts;
  /** From `.install_method`. */
  method?: InstallMethod;
  /** A release binary's `install-stamp.json`, when there is one. */
  stamp?: { commit?: string; branch?: string; builtAt?: string };
  /** The launcher folder. */
  binDir: string;
  launchers: LauncherFacts[];
  services: ServiceFacts[];
  /** A chat GUI found on this machine (a packaged desktop app): never Herald's to remove. */
  gui: { path: string; owner: "package" }[];
  /** The Herald running this command: its binary (compiled) or checkout (source). */
  running: { mode: "source" | "compiled"; path: string };
}

/** One thing the uninstall does, in the order it runs. */
export type UninstallStep =
  | { kind: "disable_service"; service: ServiceFacts }
  | { kind: "stop_gateway"; profile: string; home: string; pid: number }
  | { kind: "remove_launcher"; launcher: LauncherFacts }
  | { kind: "remove_install"; path: string }
  | { kind: "remove_home"; path: string };

/** Something left in place, and why. */
export interface KeptItem {
  path: string;
  why: string;
}

/** The outcome of {@link planUninstall}. */
export interface UninstallPlan {
  mode: UninstallMode;
  steps: UninstallStep[];
  kept: KeptItem[];
  /** Reasons the plan must not run; non-empty means nothing may be removed. */
  refusals: string[];
  /** What the user should know (the running Herald removing itself, no chat GUI, ...). */
  notes: string[];
  /** The Herald home, when it exists and this uninstall keeps it. */
  dataKept?: string;
}

/** `path` without trailing `/` or `\\` (a lone `/` stays). */
function trimmed(path: string): string {
  const cut = path.replace(/[\\/]+$/, "");
  return cut === "" ? path.slice(0, 1) : cut;
}

/** True when `inner` is `outer` or inside it. */
export function within(inner: string, outer: string): boolean {
  const a = trimmed(inner), b = trimmed(outer);
  if (a === b) return true;
  const prefix = /[\\/]$/.test(b) ? b : `${b}/`;
  return a.startsWith(prefix) || a.startsWith(prefix.replace(/\/$/, "\\"));
}

/** True for a file system root: `/`, `C:\`, `C:`. */
function isFsRoot(path: string): boolean {
  return /^[\\/]+$/.test(path) || /^[A-Za-z]:[\\/]*$/.test(path);
}

/**
 * Why removing the folder `folder` (described as `what`) is refused, or
 * undefined when it may go: the file system's root, the user's home folder
 * or a folder holding it, a folder holding `keep` (what this uninstall
 * keeps), or a folder that is not empty and has none of Herald's files.
 *
 * @example
 * ```ts
 * refusalFor("install folder", { path: "/", exists: true, empty: false, signs: [] }, "/home/ann");
 * // 'The install folder "/" is the root of the file system; ...'
 * ```
 */
export function refusalFor(
  what: string,
  folder: FolderFacts,
  userHome: string | undefined,
  hint: string,
  keep?: { path: string; what: string },
): string | undefined {
  const path = folder.path;
  const quoted = JSON.stringify(path);
  if (isFsRoot(path)) return `The ${what} ${quoted} is the root of the file system; ${hint}`;
  if (userHome !== undefined && trimmed(path) === trimmed(userHome)) {
    return `The ${what} ${quoted} is your home folder itself; ${hint}`;
  }
  if (userHome !== undefined && within(userHome, path)) {
    return `The ${what} ${quoted} holds your home folder ${JSON.stringify(userHome)}; ${hint}`;
  }
  if (keep !== undefined && within(keep.path, folder.path)) {
    return `The ${what} ${quoted} holds the ${keep.what} ${JSON.stringify(keep.path)}, which ` +
      `this uninstall keeps; ${hint}, or use --full`;
  }
  if (folder.foreign?.length) {
    return `The ${what} ${quoted} holds ${folder.foreign.join(", ")}, which Herald never makes ` +
      `there, so it looks like one of your own folders and nothing in it is removed; ${hint}`;
  }
  if (folder.exists && !folder.empty && folder.signs.length === 0) {
    return `The ${what} ${quoted} does not look like Herald's (none of the files Herald ` +
      `keeps there, and it is not empty), so nothing in it is removed; ${hint}`;
  }
  return undefined;
}

const INSTALL_HINT = "point HERALD_INSTALL_DIR at the folder the installer used";
const HOME_HINT = "point HERALD_HOME at Herald's own home folder";

/** The launchers that go: those in the launcher folder or running the install folder, and their profile launchers. */
function launchersToRemove(facts: InstallFacts, kept: KeptItem[]): LauncherFacts[] {
  const install = facts.install.path;
  const mains = facts.launchers.filter((l) => l.kind !== "profile");
  const going = mains.filter((l) =>
    l.inBinDir || (l.target !== undefined && facts.install.exists && within(l.target, install))
  );
  for (const launcher of mains) {
    if (going.includes(launcher)) continue;
    kept.push({
      path: launcher.path,
      why: `a herald ${launcher.kind === "link" ? "link" : "launcher"} outside ` +
        `${facts.binDir} that runs ${launcher.target ?? "another Herald"}, not this install`,
    });
  }
  const dirs = new Set(going.map((l) => l.dir));
  const profiles = facts.launchers.filter((l) =>
    l.kind === "profile" && (l.inBinDir || dirs.has(l.dir))
  );
  return [...profiles, ...going];
}

/** The checkouts launchers that go ran which are not the install folder: kept, with a note. */
function otherCheckouts(facts: InstallFacts, launchers: LauncherFacts[]): KeptItem[] {
  const seen = new Set<string>();
  for (const launcher of launchers) {
    if (launcher.kind !== "herald" || launcher.target === undefined) continue;
    if (facts.install.exists && within(launcher.target, facts.install.path)) continue;
    seen.add(launcher.target);
  }
  return [...seen].map((path) => ({
    path,
    why: "the source checkout the launcher ran: a folder you made, not an install folder, " +
      "so it stays (remove it yourself when you no longer want it)",
  }));
}

/** What stays of the Herald home in a default uninstall. */
function keptHome(facts: InstallFacts): KeptItem {
  const names = facts.profiles.map((p) => p.name).join(", ");
  return {
    path: facts.home.path,
    why: `your data (profiles: ${names || "none"}; config.yaml, .env, sessions, skills, ` +
      "memories, state.db); `herald uninstall --full` removes it",
  };
}

/**
 * The plan of an uninstall in `mode`.
 *
 * @example
 * ```ts
 * const plan = planUninstall(facts, "default");
 * if (plan.refusals.length > 0) throw ...; // exit 2, nothing removed
 * ```
 */
export function planUninstall(facts: InstallFacts, mode: UninstallMode): UninstallPlan {
  const plan: UninstallPlan = { mode, steps: [], kept: [], refusals: [], notes: [] };
  if (mode === "gui") return planGui(facts, plan);
  for (const service of facts.services) plan.steps.push({ kind: "disable_service", service });
  for (const profile of facts.profiles) {
    if (profile.gatewayPid === undefined) continue;
    plan.steps.push({
      kind: "stop_gateway",
      profile: profile.name,
      home: profile.home,
      pid: profile.gatewayPid,
    });
  }
  const launchers = launchersToRemove(facts, plan.kept);
  for (const launcher of launchers) plan.steps.push({ kind: "remove_launcher", launcher });
  plan.kept.push(...otherCheckouts(facts, launchers));

  const install = facts.install, home = facts.home;
  const removeHome = mode === "full" && home.exists;
  const installInsideHome = within(install.path, home.path);
  if (install.exists && install.localWork?.length) {
    const shown = install.localWork.slice(0, 5).join("; ");
    plan.refusals.push(
      `The install folder ${JSON.stringify(install.path)} holds work that exists nowhere else ` +
        `(${shown}${install.localWork.length > 5 ? "; ..." : ""}); push or copy it first, or ` +
        "remove the folder yourself",
    );
  }
  if (install.exists && install.localWorkUnknown !== undefined) {
    plan.refusals.push(
      `The install folder ${JSON.stringify(install.path)} is a git checkout, but git cannot tell ` +
        `whether it holds work found nowhere else (${install.localWorkUnknown}); check it with ` +
        "`git status`, or remove the folder yourself",
    );
  }
  if (install.exists && !(removeHome && installInsideHome)) {
    const keep = removeHome ? undefined : { path: home.path, what: "Herald home" };
    const refusal = refusalFor("install folder", install, facts.userHome, INSTALL_HINT, keep);
    if (refusal) plan.refusals.push(refusal);
    plan.steps.push({ kind: "remove_install", path: install.path });
  }
  if (removeHome) {
    const refusal = refusalFor("Herald home", home, facts.userHome, HOME_HINT);
    if (refusal) plan.refusals.push(refusal);
    plan.steps.push({ kind: "remove_home", path: home.path });
  } else if (home.exists) {
    plan.kept.push(keptHome(facts));
    plan.dataKept = home.path;
  }
  for (const gui of facts.gui) plan.kept.push(packagedGui(gui.path));
  const running = facts.running.path;
  const removed = plan.steps.flatMap((s) =>
    s.kind === "remove_install" || s.kind === "remove_home" ? [s.path] : []
  );
  if (removed.some((path) => within(running, path))) {
    plan.notes.push(
      `The Herald running this command (${running}) is removed too; it finishes from memory`,
    );
  }
  return plan;
}

function packagedGui(path: string): KeptItem {
  return {
    path,
    why: "a packaged Herald desktop app: remove it with the system's package manager",
  };
}

/** `--gui`: Herald installs no chat GUI of its own yet, so this only says what is there. */
function planGui(facts: InstallFacts, plan: UninstallPlan): UninstallPlan {
  plan.notes.push(
    "Herald has no chat GUI of its own installed: there is no desktop app yet (the installer's " +
      "desktop stage builds nothing), and the web chat (`herald dashboard`) is part of Herald's " +
      "code, which `herald uninstall` removes. Nothing was removed.",
  );
  for (const gui of facts.gui) plan.kept.push(packagedGui(gui.path));
  return plan;
}

/** One line of text for a step, for plans and reports. */
export function describeStep(step: UninstallStep): string {
  switch (step.kind) {
    case "disable_service":
      return `gateway service ${step.service.name}${
        step.service.profile === DEFAULT_PROFILE ? "" : ` (profile "${step.service.profile}")`
      }: ${step.service.path}`;
    case "stop_gateway":
      return `running gateway of profile "${step.profile}" (pid ${step.pid})`;
    case "remove_launcher": {
      const l = step.launcher;
      if (l.kind === "profile") return `profile launcher ${l.path} (runs herald -p ${l.profile})`;
      if (l.kind === "link") return `herald link ${l.path} (to ${l.target ?? "?"})`;
      return `herald launcher ${l.path}${l.target ? ` (runs ${l.target})` : ""}`;
    }
    case "remove_install":
      return `install folder ${step.path}`;
    case "remove_home":
      return `Herald home ${step.path} (every profile, config, .env, sessions, skills, state.db)`;
  }
}

/** The effects {@link runUninstall} needs; adapters/install/uninstall.ts has the real ones. */
export interface UninstallPorts {
  /** Stops and disables a service, then removes its file; returns a note for the report. */
  disableService(service: ServiceFacts): Promise<string>;
  /** Stops a running gateway through the gateway stop path; throws when it still runs. */
  stopGateway(profile: string, home: string): Promise<string>;
  /** Removes a launcher after checking it is still the one planned. */
  removeLauncher(launcher: LauncherFacts): Promise<void>;
  /** Removes a folder and everything in it. */
  removeTree(path: string): Promise<void>;
}

/** What happened to one step. */
export type StepResult =
  | { step: UninstallStep; ok: true; note?: string }
  | { step: UninstallStep; ok: false; error: string }
  /** Not tried because a service or gateway could not be stopped. */
  | { step: UninstallStep; ok: false; skipped: true; error: string };

/**
 * Runs `plan`'s steps in order, telling `onResult` after each. A service or
 * gateway that cannot be stopped stops the run: nothing is removed under a
 * running Herald. A removal that fails is reported and the others still run.
 *
 * @throws Error when the plan carries refusals (the caller must not run it).
 */
export async function runUninstall(
  plan: UninstallPlan,
  ports: UninstallPorts,
  onResult: (result: StepResult) => void = () => {},
): Promise<StepResult[]> {
  if (plan.refusals.length > 0) throw new Error("an uninstall plan with refusals was run");
  const results: StepResult[] = [];
  let blocked: string | undefined;
  for (const step of plan.steps) {
    let result: StepResult;
    if (blocked !== undefined) {
      result = { step, ok: false, skipped: true, error: blocked };
    } else {
      try {
        result = { step, ok: true, note: await runStep(step, ports) };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        result = { step, ok: false, error: message };
        if (step.kind === "disable_service" || step.kind === "stop_gateway") {
          blocked = `not removed: ${describeStep(step)} could not be stopped (${message})`;
        }
      }
    }
    results.push(result);
    onResult(result);
  }
  return results;
}

async function runStep(step: UninstallStep, ports: UninstallPorts): Promise<string | undefined> {
  switch (step.kind) {
    case "disable_service":
      return await ports.disableService(step.service);
    case "stop_gateway":
      return await ports.stopGateway(step.profile, step.home);
    case "remove_launcher":
      await ports.removeLauncher(step.launcher);
      return undefined;
    case "remove_install":
    case "remove_home":
      await ports.removeTree(step.path);
      return undefined;
  }
}

/** The `--gui-summary` snapshot: where everything is, which version, how it was installed. */
export interface InstallSummary {
  schemaVersion: 1;
  herald: { version: string; running: string; mode: "source" | "compiled" };
  home: { path: string; exists: boolean; profiles: string[] };
  install: {
    path: string;
    exists: boolean;
    method: InstallMethod | null;
    marker: MarkerFacts;
    stamp: InstallFacts["stamp"] | null;
  };
  binDir: string;
  launchers: LauncherFacts[];
  services: ServiceFacts[];
  gateways: { profile: string; pid: number }[];
  gui: { installed: boolean; packages: string[] };
}

/** The `--gui-summary` JSON of `facts`; `version` is the running Herald's version line. */
export function installSummary(facts: InstallFacts, version: string): InstallSummary {
  return {
    schemaVersion: 1,
    herald: { version, running: facts.running.path, mode: facts.running.mode },
    home: {
      path: facts.home.path,
      exists: facts.home.exists,
      profiles: facts.profiles.map((p) => p.name),
    },
    install: {
      path: facts.install.path,
      exists: facts.install.exists,
      method: facts.method ?? null,
      marker: facts.marker,
      stamp: facts.stamp ?? null,
    },
    binDir: facts.binDir,
    launchers: facts.launchers,
    services: facts.services,
    gateways: facts.profiles.flatMap((p) =>
      p.gatewayPid === undefined ? [] : [{ profile: p.name, pid: p.gatewayPid }]
    ),
    gui: { installed: facts.gui.length > 0, packages: facts.gui.map((g) => g.path) },
  };
}
