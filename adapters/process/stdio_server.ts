/**
 * Starting a server Herald speaks to over its stdio (an MCP server, the
 * Codex app-server): at the head of its own process group (so stopping it
 * stops `npx` and what it started too), from the child allowlist plus the
 * profile's passthrough names and the server's own `env`, never the whole
 * environment. Used by the MCP session transport and connection check
 * (adapters/mcp/) and by adapters/codex/app_server.ts; it loads nothing of
 * the MCP SDK, so the CLI and the dashboard stay light.
 *
 * @module
 */

import { childEnvironment } from "./child_env.ts";
import { type ProcessGroup, spawnProcessGroup } from "./spawn_group.ts";

/** What to start and with which environment. */
export interface StdioServerSpec {
  command: string;
  args?: readonly string[];
  /** The entry's own variables (references already expanded). */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** The environment the child's allowlist is taken from. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** Names passed on besides the allowlist (`terminal.env_passthrough`). */
  envPassthrough?: readonly string[];
  /** Where passthrough names are looked up (the profile's `.env`, then the environment). */
  envLookup?: (name: string) => string | undefined;
}

/**
 * Starts the stdio server `spec` at the head of its own process group, its
 * three streams piped, from the child allowlist plus the passthrough names
 * and its own `env`.
 *
 * @throws Error naming the command when it cannot start (not on PATH, not executable).
 */
export function spawnStdioServer(spec: StdioServerSpec): ProcessGroup {
  const env = childEnvironment(spec.baseEnv, {
    passthrough: spec.envPassthrough,
    lookup: spec.envLookup,
    extra: spec.env,
  });
  try {
    return spawnProcessGroup(spec.command, {
      args: [...(spec.args ?? [])],
      env,
      clearEnv: true,
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound
      ? "no such program on PATH"
      : (error as Error).message;
    throw new Error(`Cannot start "${spec.command}": ${reason}`);
  }
}
