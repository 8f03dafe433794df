/**
 * `herald doctor`: checks the home, config, secrets file, state database and
 * Deno version, then contacts the model endpoint (the key works and the
 * model is listed; `--offline` skips it), and says what to do about each
 * problem. It reads only; the one write it may cause is applying pending
 * database migrations.
 *
 * @module
 */

import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import { SUPPORTED_DENO } from "../../core/version.ts";
import type { ProcessEnv } from "../../core/config/mod.ts";
import { checkConfig } from "../../core/usecases/config.ts";
import { checkModelEndpoint } from "../../core/usecases/setup.ts";
import type { ProfileContext } from "../../core/usecases/ports.ts";
import type { ProfilePaths } from "../../adapters/home/mod.ts";
import { createModelProbe } from "../../adapters/models/probe.ts";
import { openProfileContext } from "../../adapters/runtime/profile_context.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

/** The outcome of one check. */
interface DoctorCheck {
  name: "deno" | "home" | "config" | "env" | "state_db" | "model" | "endpoint";
  status: "ok" | "warn" | "fail";
  detail: string;
}

async function statOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function loose(info: Deno.FileInfo, allowed: number): boolean {
  return info.mode !== null && (info.mode & 0o777 & ~allowed) !== 0;
}

function modeText(info: Deno.FileInfo): string {
  return ((info.mode ?? 0) & 0o777).toString(8).padStart(4, "0");
}

async function checkHome(paths: ProfilePaths): Promise<DoctorCheck> {
  const info = await statOrNull(paths.home);
  if (!info) {
    return {
      name: "home",
      status: "warn",
      detail: `${paths.home} does not exist yet; it is created on first use`,
    };
  }
  if (!info.isDirectory) {
    return {
      name: "home",
      status: "fail",
      detail: `${paths.home} is not a directory; move it away`,
    };
  }
  if (loose(info, 0o700)) {
    return {
      name: "home",
      status: "warn",
      detail: `${paths.home} has mode ${modeText(info)}; run \`chmod 700 ${paths.home}\``,
    };
  }
  return { name: "home", status: "ok", detail: paths.home };
}

async function checkEnv(paths: ProfilePaths, profile: ProfileContext): Promise<DoctorCheck> {
  const info = await statOrNull(paths.env);
  if (!info) return { name: "env", status: "ok", detail: `${paths.env} not created yet` };
  try {
    const parsed = await profile.files.readEnv();
    if (loose(info, 0o600)) {
      return {
        name: "env",
        status: "warn",
        detail: `${paths.env} has mode ${modeText(info)}; run \`chmod 600 ${paths.env}\``,
      };
    }
    if (parsed.warnings.length > 0) {
      const lines = parsed.warnings.map((w) => w.line).join(", ");
      return {
        name: "env",
        status: "warn",
        detail: `${paths.env}: lines ${lines} are not NAME=value`,
      };
    }
    return { name: "env", status: "ok", detail: `${paths.env} (${parsed.values.size} entries)` };
  } catch (error) {
    return { name: "env", status: "fail", detail: describe(error) };
  }
}

async function checkStateDb(paths: ProfilePaths): Promise<DoctorCheck> {
  if (!(await statOrNull(paths.stateDb))) {
    return { name: "state_db", status: "ok", detail: `${paths.stateDb} not created yet` };
  }
  try {
    const store = openStateStore(paths.stateDb);
    try {
      const problems = store.checkIntegrity();
      const ok = problems.length === 1 && problems[0] === "ok";
      return ok
        ? {
          name: "state_db",
          status: "ok",
          detail: `${paths.stateDb} (schema ${store.schemaVersion()})`,
        }
        : { name: "state_db", status: "fail", detail: `${paths.stateDb}: ${problems.join("; ")}` };
    } finally {
      store.close();
    }
  } catch (error) {
    return { name: "state_db", status: "fail", detail: describe(error) };
  }
}

function checkDeno(): DoctorCheck {
  const running = Deno.version.deno;
  return running === SUPPORTED_DENO ? { name: "deno", status: "ok", detail: running } : {
    name: "deno",
    status: "warn",
    detail:
      `running Deno ${running}; Herald is tested with ${SUPPORTED_DENO} (npx -y deno@${SUPPORTED_DENO})`,
  };
}

/** The online check of the model endpoint; none when no model is configured to call. */
async function checkEndpoint(profile: ProfileContext): Promise<DoctorCheck[]> {
  try {
    const check = await checkModelEndpoint(profile, createModelProbe());
    return check ? [check] : [];
  } catch (error) {
    // A config.yaml that cannot be read is already the config check's failure.
    if (error instanceof HeraldError) return [];
    throw error;
  }
}

/**
 * Runs every check for one profile, the endpoint last unless `offline`.
 * The config and endpoint checks are core's (`checkConfig`,
 * `checkModelEndpoint`); nothing here creates the home.
 */
async function runDoctor(
  paths: ProfilePaths,
  env: ProcessEnv,
  offline: boolean,
): Promise<DoctorCheck[]> {
  const profile = openProfileContext(paths, env);
  return [
    checkDeno(),
    await checkHome(paths),
    ...(await checkConfig(profile)),
    await checkEnv(paths, profile),
    await checkStateDb(paths),
    ...(offline ? [] : await checkEndpoint(profile)),
  ];
}

const MARK = { ok: "ok  ", warn: "warn", fail: "FAIL" } as const;

/** Adds `doctor` to `program`. */
export function registerDoctor(program: Command, ctx: () => CliContext): void {
  program.command("doctor")
    .description(
      "check the home, config, secrets, state database, Deno version and the model endpoint",
    )
    .option("--offline", "do not contact the model endpoint")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean; offline?: boolean }) => {
      const c = ctx();
      const paths = await c.paths();
      const checks = await runDoctor(paths, c.env, options.offline === true);
      const ok = checks.every((check) => check.status !== "fail");
      if (options.json) printJson(c.io, { profile: paths.name, ok, checks });
      else {
        for (const check of checks) {
          c.io.out(`[${MARK[check.status]}] ${check.name.padEnd(9)} ${check.detail}\n`);
        }
      }
      if (!ok) throw new DoctorFailed(checks.filter((check) => check.status === "fail").length);
    });
}

/** Raised after the report when at least one check failed, so the exit code is 1. */
class DoctorFailed extends HeraldError {
  /** Creates the error for `count` failed checks. */
  constructor(readonly count: number) {
    super("doctor_failed", "state", `${count} check${count === 1 ? "" : "s"} failed (see above)`, {
      details: { count },
    });
  }
}
