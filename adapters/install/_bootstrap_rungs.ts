/**
 * The probes of the desktop bootstrap resolver's rungs 1 to 5 (root
 * override, development checkout, active install, `herald` on the PATH,
 * installed package): each looks at files and, where it says so, asks a
 * command for `--version`, and answers with a backend or passes with the
 * reason. Rung 6 (the staged installer) is in _bootstrap_installer.ts; the
 * order, the latch and the decisions are core/desktop/bootstrap.ts's.
 *
 * Private to adapters/install/bootstrap.ts, whose DesktopResolver calls these.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { pathExists } from "../fs/read.ts";
import { findOnPath } from "./launcher.ts";
import { readMarker } from "./marker.ts";
import { HeraldError } from "../../core/errors.ts";
import {
  type DesktopBackend,
  devCheckout,
  type RungAnswer,
  truthy,
} from "../../core/desktop/bootstrap.ts";
import {
  installRuntimeOf,
  PACKAGE_PATHS,
  PROBE_TIMEOUT_MS,
  probeVersion,
  type ProgramFile,
  programFile,
  type ResolverEnv,
  runtimeOf,
  samePath,
} from "./_bootstrap_runtime.ts";

/** What the rungs read: the resolver's options and facts, the lazy ones as functions. */
export interface RungContext {
  /** The environment: read for the rungs' variables and given to every probe. */
  env: ResolverEnv;
  /** The install folder (rung 3's). */
  installDir: string;
  /** The Deno binary that runs a checkout. */
  deno(): string;
  /** The running checkout, undefined for none. */
  checkout(): string | undefined;
  /** How long a `--version` probe may take (ms); default PROBE_TIMEOUT_MS. */
  probeTimeoutMs?: number;
  /** The desktop shell's bundled `herald` binary (rung 5). */
  bundledBinary?: string;
  /** Replaces PACKAGE_PATHS for this platform (rung 5). */
  packagePaths?: readonly string[];
}

/**
 * Rung 1: `HERALD_DESKTOP_ROOT`.
 *
 * @throws HeraldError (usage, `desktop_root_invalid`) when it names a folder holding no Herald.
 */
export async function rootOverrideRung(ctx: RungContext): Promise<RungAnswer> {
  const root = ctx.env.HERALD_DESKTOP_ROOT?.trim();
  if (!root) return { answered: false, reason: "HERALD_DESKTOP_ROOT is not set" };
  const folder = resolve(root);
  const command = await runtimeOf(folder, ctx.deno());
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
export async function devCheckoutRung(ctx: RungContext): Promise<RungAnswer> {
  const checkout = ctx.checkout();
  const decision = devCheckout(ctx.env, {
    checkout,
    isGitCheckout: checkout !== undefined && await pathExists(join(checkout, ".git")),
    sameFolder: checkout !== undefined && await samePath(checkout, ctx.installDir),
  });
  if (!decision.dev) return { answered: false, reason: decision.reason };
  const command = await runtimeOf(decision.checkout, ctx.deno());
  if (!command) return { answered: false, reason: `${decision.checkout} has no cli/main.ts` };
  return {
    answered: true,
    backend: { rung: "dev-checkout", command, root: decision.checkout },
  };
}

/** Rung 3: the install folder with a valid marker and a runtime answering `--version`. */
export async function activeInstallRung(ctx: RungContext): Promise<RungAnswer> {
  const marker = await readMarker(ctx.installDir);
  if (marker.state === "missing") {
    return { answered: false, reason: `${marker.path} is missing (bootstrap needed)` };
  }
  if (marker.state === "invalid") {
    return {
      answered: false,
      reason: `${marker.path} is malformed: ${marker.reason} (bootstrap needed)`,
    };
  }
  const command = await installRuntimeOf(ctx.installDir, ctx.deno());
  if (!command) {
    return {
      answered: false,
      reason: `${ctx.installDir} holds no herald binary or cli/main.ts`,
    };
  }
  return await probed(ctx, "active-install", command, ctx.installDir);
}

/** Rung 4: a `herald` on the PATH answering `--version`. */
export async function onPathRung(ctx: RungContext): Promise<RungAnswer> {
  if (truthy(ctx.env.HERALD_DESKTOP_IGNORE_EXISTING)) {
    return { answered: false, reason: "HERALD_DESKTOP_IGNORE_EXISTING is set" };
  }
  const found = await findOnPath("herald", ctx.env);
  if (!found) return { answered: false, reason: "no herald on the PATH" };
  return await probed(ctx, "path", [found]);
}

/** Rung 5: an installed package's binary answering `--version`. */
export async function installedPackageRung(ctx: RungContext): Promise<RungAnswer> {
  const candidates = [
    ctx.env.HERALD_DESKTOP_HERALD?.trim(),
    ctx.bundledBinary,
    ...(ctx.packagePaths ?? PACKAGE_PATHS[Deno.build.os] ?? []),
  ].filter((path): path is string => !!path);
  const reasons: string[] = [];
  for (const path of candidates) {
    const file = await programFile(path);
    if (file !== "executable") {
      reasons.push(`${path} ${NOT_A_PROGRAM[file]}`);
      continue;
    }
    const answer = await probed(ctx, "package", [path]);
    if (answer.answered) return answer;
    reasons.push(answer.reason);
  }
  return {
    answered: false,
    reason: reasons.length > 0 ? reasons.join("; ") : "no package path for this platform",
  };
}

/** Why a rung-5 candidate that is not an executable file is passed over. */
const NOT_A_PROGRAM: Record<Exclude<ProgramFile, "executable">, string> = {
  "missing": "is not there",
  "not-executable": "is there but not executable (chmod +x it)",
  "not-a-file": "is not a file",
  "unreadable": "cannot be looked at (permission denied)",
};

/** Answers with `command` as `rung`'s backend when it answers `--version`, else passes. */
async function probed(
  ctx: RungContext,
  rung: DesktopBackend["rung"],
  command: string[],
  root?: string,
): Promise<RungAnswer> {
  const probe = await probeVersion(command, ctx.env, ctx.probeTimeoutMs ?? PROBE_TIMEOUT_MS);
  if (!probe.ok) return { answered: false, reason: probe.reason };
  const backend: DesktopBackend = { rung, command, version: probe.version };
  if (root !== undefined) backend.root = root;
  return { answered: true, backend };
}
