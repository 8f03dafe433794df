/**
 * What `/api/pty` runs: `herald chat` (the default) or, for a dashboard
 * started with `--shell`, the user's shell; always with
 * `HERALD_HOME` pointing at the selected profile's home.
 *
 * The shell starts from the child allowlist (adapters/process/child_env.ts)
 * plus the profile's `terminal.env_passthrough` names, never the server's
 * whole environment. `herald chat` is Herald itself: it keeps the server's
 * environment (it may hold the model's key) without the session token, and
 * applies the allowlist to every program it starts in turn.
 *
 * @module
 */

import type { ProfilePaths } from "../../adapters/home/mod.ts";
import { childEnvironment } from "../../adapters/process/mod.ts";
import type { PtySpawnOptions } from "../../adapters/pty/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";
import { loadExpandedConfig } from "../../core/usecases/config.ts";
import { openProfileContext } from "../../adapters/runtime/profile_context.ts";

/** Environment variables `herald chat` in the terminal never inherits. */
const WITHHELD_ENV = ["HERALD_DASHBOARD_SESSION_TOKEN"];

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Validates `?resume=`: a session id, never something that could be read
 * as an option.
 *
 * @throws ApiError 400 for anything else.
 */
export function parseResume(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (!SESSION_ID.test(value)) {
    throw new ApiError(
      400,
      "bad_request",
      `Invalid session id ${JSON.stringify(value)} in ?resume=`,
    );
  }
  return value;
}

function userShell(env: ServerDeps["env"]): string {
  if (Deno.build.os === "windows") return env.COMSPEC || "powershell.exe";
  return env.SHELL || "/bin/sh";
}

/**
 * The shell's environment: the allowlist, the profile's passthrough names
 * (from its `.env`, then the server's environment) and `extra`. A config
 * that cannot be read passes nothing on; the terminal still opens.
 */
async function shellEnvironment(
  deps: ServerDeps,
  paths: ProfilePaths,
  extra: Record<string, string>,
): Promise<Record<string, string>> {
  let passthrough: readonly string[] = [];
  let lookup = (name: string) => deps.env[name];
  try {
    const loaded = await loadExpandedConfig(openProfileContext(paths, deps.env));
    lookup = loaded.credentials.lookup;
    passthrough = loaded.config.terminal.env_passthrough;
  } catch {
    // An unreadable .env or config.yaml: the allowlist alone.
  }
  return childEnvironment(deps.env, { passthrough, lookup, extra });
}

/**
 * The program, arguments and environment of a terminal for profile `paths`:
 * what `deps.ptyMode` says (`chat` when unset), started in `deps.cwd` (the
 * server's working directory when unset).
 */
export async function ptyLaunch(
  deps: ServerDeps,
  paths: ProfilePaths,
  options: { resume?: string } = {},
): Promise<PtySpawnOptions> {
  const cwd = deps.cwd ?? Deno.cwd();
  const own = { HERALD_HOME: paths.home, TERM: "xterm-256color", COLORTERM: "truecolor" };
  if ((deps.ptyMode ?? "chat") === "shell") {
    const env = await shellEnvironment(deps, paths, own);
    return { file: userShell(deps.env), args: [], cwd, env };
  }
  const env: Record<string, string | undefined> = { ...deps.env, ...own };
  for (const name of WITHHELD_ENV) delete env[name];
  const [file, ...prefix] = deps.heraldCommand;
  return {
    file,
    // HERALD_HOME is the profile's own home, so that home is the child's
    // default profile; `--profile default` keeps a sticky `active_profile`
    // at the root from choosing another one.
    args: [
      ...prefix,
      "--profile",
      "default",
      "chat",
      ...(options.resume ? ["--resume", options.resume] : []),
    ],
    cwd,
    env,
  };
}
