/**
 * Running the `herald` CLI (or another configured command) as a child of the
 * dashboard, against the dashboard's root home.
 *
 * @module
 */

import type { ServerDeps } from "./deps.ts";
import { ApiError } from "./errors.ts";

/** The environment of a child: the server's, with `HERALD_HOME` pointing at its root. */
export function childEnv(deps: ServerDeps): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(deps.env)) if (value !== undefined) env[name] = value;
  env.HERALD_HOME = deps.root;
  env.NO_COLOR = "1";
  return env;
}

/**
 * An argv from an environment override (a JSON array of strings), or
 * `fallback` when the variable is not set.
 */
export function commandFromEnv(
  deps: ServerDeps,
  variable: string,
  fallback: readonly string[],
): string[] {
  const raw = deps.env[variable];
  if (raw === undefined || raw.trim() === "") return [...fallback];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) || parsed.length === 0 ||
    parsed.some((part) => typeof part !== "string")
  ) {
    throw new ApiError(
      500,
      "command_override_invalid",
      `${variable} must be a JSON array of strings, for example ["herald", "update"]`,
    );
  }
  return parsed as string[];
}

/** What a finished CLI run printed. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `deps.heraldCommand + args` to completion, killing it after
 * `timeoutMs`.
 */
export async function runHeraldCli(
  deps: ServerDeps,
  args: readonly string[],
  timeoutMs: number,
): Promise<CliRun> {
  const [program, ...prefix] = deps.heraldCommand;
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(program, {
      args: [...prefix, ...args],
      env: childEnv(deps),
      cwd: deps.root,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(timeoutMs),
    }).output();
  } catch (error) {
    const name = (error as Error).name;
    if (name === "AbortError" || name === "TimeoutError") throw timedOut(args, timeoutMs);
    throw new ApiError(
      500,
      "cli_failed",
      `Cannot run the herald CLI (${program}): ${(error as Error).message}`,
    );
  }
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  if (output.signal !== null) throw timedOut(args, timeoutMs);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

function timedOut(args: readonly string[], timeoutMs: number): ApiError {
  return new ApiError(
    504,
    "cli_timeout",
    `herald ${args.slice(0, 4).join(" ")} did not finish within ${timeoutMs / 1000} s`,
  );
}
