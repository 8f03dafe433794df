/**
 * The Codex runtime of a profile: which runtime a new session gets
 * (`model.openai_runtime`, read from config.yaml when the session starts,
 * so a switch made anywhere applies to the next session), and the options
 * of a Codex session: the app-server started from `codex` on the PATH
 * with the profile's Codex home, an environment from the child allowlist
 * plus the model key and the variables the migrated MCP servers need, the
 * profile's approval policy and its thread map.
 *
 * @module
 */

import type { SessionRecordOptions } from "../../core/agent/session_record.ts";
import type { RuntimeSwitch } from "../../core/agent/turn_runtime.ts";
import type { CodexSessionOptions } from "../../core/agent/codex_session.ts";
import { definesMcpServer, userSettings } from "../../core/codex/config_toml.ts";
import { HERALD_TOOL_SERVER, migrateMcpServers } from "../../core/codex/mcp_servers.ts";
import { threadApprovalPolicy } from "../../core/codex/permissions.ts";
import { type HeraldConfig, parseConfig, type ProcessEnv } from "../../core/config/mod.ts";
import { describeCodexRuntime, switchCodexRuntime } from "../../core/usecases/codex_runtime.ts";
import type { ProfilePaths } from "../home/mod.ts";
import { codexRuntimePorts } from "./codex_ports.ts";
import type { ApprovalHandler } from "../../core/tools/types.ts";
import type { ConfigFiles } from "../../core/usecases/ports.ts";
import { VERSION } from "../../core/version.ts";
import { appServerLauncher } from "../codex/app_server.ts";
import { codexConfigFile, codexHomeFor } from "../codex/config_file.ts";
import { codexThreads } from "../codex/threads.ts";

/** What runs a new session's turns: Herald's own loop or the Codex app-server. */
export type RuntimeChoice = HeraldConfig["model"]["openai_runtime"];

/**
 * The runtime config.yaml asks for now; `fallback` (the value the runtime
 * opened with) when the file cannot be read or parsed.
 */
export async function currentRuntimeChoice(
  files: ConfigFiles,
  fallback: RuntimeChoice,
): Promise<RuntimeChoice> {
  try {
    return parseConfig(await files.readConfigText(), files.configPath).config.model.openai_runtime;
  } catch {
    return fallback;
  }
}

/** What the Codex session options are made from. */
export interface CodexRuntimeInput extends SessionRecordOptions {
  home: string;
  config: HeraldConfig;
  /** The process environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** The profile's credentials lookup (`.env`, then the environment). */
  credentials: (name: string) => string | undefined;
  approve: ApprovalHandler;
  /** The codex program (default `codex` on the PATH). */
  program?: string;
}

/** The options of the profile's Codex sessions. */
export function codexSessionOptions(input: CodexRuntimeInput): CodexSessionOptions {
  const { config } = input;
  const codexHome = codexHomeFor(config, input.env);
  const launch = appServerLauncher({
    command: input.program ?? "codex",
    // The child allowlist, the model key, the profile's passthrough names and what the
    // migrated MCP servers get from Codex by name (never written into config.toml).
    baseEnv: input.env,
    envPassthrough: [
      ...config.terminal.env_passthrough,
      "OPENAI_API_KEY",
      ...migrateMcpServers(config.mcp_servers, { command: "", args: [], env: {} }, userSettings(""))
        .forwardedEnv,
    ],
    envLookup: input.credentials,
    env: { CODEX_HOME: codexHome, RUST_LOG: input.env.RUST_LOG ?? "warn" },
    cwd: input.cwd,
  });
  const model = config.model.provider === "openai" ? config.model.default : undefined;
  return {
    store: input.store,
    files: input.files,
    source: input.source,
    cwd: input.cwd,
    ...(input.now ? { now: input.now } : {}),
    launch,
    approve: input.approve,
    threads: codexThreads(input.home),
    ...(model ? { model } : {}),
    approvalPolicy: threadApprovalPolicy(config.codex.permissions),
    toolServer: HERALD_TOOL_SERVER,
    toolServerConfigured: async () =>
      definesMcpServer(
        await codexConfigFile(codexHome).read().catch(() => null) ?? "",
        HERALD_TOOL_SERVER,
      ),
    turnTimeoutMs: config.codex.turn_timeout * 1000,
    clientVersion: VERSION,
  };
}

/**
 * `/codex-runtime` for the profile at `paths`: the state, and the switch
 * with its warnings (a migration that could not be written) as lines of
 * the text.
 */
export function codexRuntimeSwitch(paths: ProfilePaths, env: ProcessEnv): RuntimeSwitch {
  return {
    async describe() {
      return await describeCodexRuntime(await codexRuntimePorts(paths, env));
    },
    async apply(mode) {
      const result = await switchCodexRuntime(await codexRuntimePorts(paths, env), mode);
      const warnings = result.warnings.map((warning) => `Warning: ${warning}`);
      return { ok: result.ok, text: [result.text, ...warnings].join("\n") };
    },
  };
}
