/**
 * What `/api/pty` runs: `herald chat` (the default) or, for a dashboard
 * started with `--tui`'s terminal mode, the user's shell; always with
 * `HERALD_HOME` pointing at the selected profile's home.
 *
 * @module
 */

import type { ProfilePaths } from "../../adapters/home/mod.ts";
import type { PtySpawnOptions } from "../../adapters/pty/mod.ts";
import type { ServerDeps } from "../deps.ts";
import { ApiError } from "../errors.ts";

/** What the terminal runs: the chat REPL or the user's shell. */
export type PtyMode = "chat" | "shell";

/** Environment variables the terminal's programs never inherit. */
const WITHHELD_ENV = ["HERALD_DASHBOARD_SESSION_TOKEN"];

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The terminal mode of a server: `deps.ptyMode`, else `chat`. */
export function ptyMode(deps: ServerDeps): PtyMode {
  return deps.ptyMode ?? "chat";
}

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

/** The program, arguments and environment of a terminal for profile `paths`. */
export function ptyLaunch(
  deps: ServerDeps,
  paths: ProfilePaths,
  options: { mode: PtyMode; resume?: string; cwd: string },
): PtySpawnOptions {
  const env: Record<string, string | undefined> = {
    ...deps.env,
    HERALD_HOME: paths.home,
    TERM: "xterm-256color",
    COLORTERM: "truecolor",
  };
  for (const name of WITHHELD_ENV) delete env[name];
  if (options.mode === "shell") {
    return { file: userShell(deps.env), args: [], cwd: options.cwd, env };
  }
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
    cwd: options.cwd,
    env,
  };
}
