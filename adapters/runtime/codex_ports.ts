/**
 * The ports of the runtime use cases (core/usecases/codex_runtime.ts) for
 * one profile: its config files, `codex` on the PATH, Codex's config.toml
 * in the profile's Codex home, and Herald's tool server started as
 * `herald -p <profile> mcp serve` for this very profile.
 *
 * @module
 */

import { parseConfig, type ProcessEnv } from "../../core/config/mod.ts";
import type { CodexRuntimePorts } from "../../core/usecases/codex_runtime.ts";
import type { ToolServerCommand } from "../../core/codex/mcp_servers.ts";
import { type ProfilePaths, rootOf } from "../home/mod.ts";
import { heraldCommand } from "../process/herald_command.ts";
import { openProfileContext } from "./profile_context.ts";
import { codexConfigFile, codexHomeFor } from "../codex/config_file.ts";
import { codexProgram } from "../codex/program.ts";

/**
 * How Codex starts Herald's tool server for the profile at `paths`: Herald
 * run the way this process runs, with `HERALD_HOME` set to the profile's
 * root home and the profile named with `-p` (so neither the sticky
 * `active_profile` nor Codex's environment can select another one).
 */
export function toolServerCommand(paths: ProfilePaths): ToolServerCommand {
  const [command, ...prefix] = heraldCommand();
  return {
    command,
    args: [...prefix, "-p", paths.name, "mcp", "serve"],
    env: { HERALD_HOME: rootOf(paths) },
  };
}

/**
 * The runtime ports of the profile at `paths`; `env` is the process
 * environment (PATH for `codex`, CODEX_HOME, HOME).
 *
 * @throws ConfigParseError when config.yaml is not YAML (the Codex home depends on it).
 *
 * @example
 * ```ts
 * const ports = await codexRuntimePorts(paths, Deno.env.toObject());
 * console.log(await describeCodexRuntime(ports));
 * ```
 */
export async function codexRuntimePorts(
  paths: ProfilePaths,
  env: ProcessEnv,
): Promise<CodexRuntimePorts> {
  const files = openProfileContext(paths, env).files;
  const config = parseConfig(await files.readConfigText(), files.configPath).config;
  return {
    files,
    program: codexProgram("codex", env),
    codexConfig: codexConfigFile(codexHomeFor(config, env)),
    toolServer: toolServerCommand(paths),
  };
}
