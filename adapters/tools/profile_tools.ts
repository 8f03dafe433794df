/**
 * Herald's built-in tools as a profile configures them, for every place
 * that offers them (the agent runtime, `herald mcp serve`): commands get
 * the child allowlist plus the profile's `terminal.env_passthrough` names
 * (looked up in its credentials) and its `approvals.deny` patterns; the
 * file tools write nowhere outside `HERALD_WRITE_SAFE_ROOT`, else
 * `tools.write_safe_root`.
 *
 * @module
 */

import type { EnvLookup, HeraldConfig, ProcessEnv } from "../../core/config/mod.ts";
import type { Tool } from "../../core/tools/types.ts";
import { builtinTools, type BuiltinToolsOptions } from "./mod.ts";

/** What {@link profileBuiltinTools} takes besides the config. */
export interface ProfileToolsOptions {
  /** The process environment: what commands inherit. */
  env: ProcessEnv;
  /** The profile's credentials (its `.env`, then the environment). */
  credentials: EnvLookup;
  /** Language-server diagnostics for written files. */
  diagnostics?: BuiltinToolsOptions["diagnostics"];
}

/**
 * The built-in tools (see `builtinTools`) with the profile's settings.
 *
 * @example
 * ```ts
 * const tools = profileBuiltinTools(config, { env: Deno.env.toObject(), credentials });
 * ```
 */
export function profileBuiltinTools(config: HeraldConfig, options: ProfileToolsOptions): Tool[] {
  return builtinTools({
    ...(options.diagnostics ? { diagnostics: options.diagnostics } : {}),
    writeSafeRoot: options.env.HERALD_WRITE_SAFE_ROOT?.trim() || config.tools.write_safe_root,
    terminal: {
      baseEnv: options.env,
      envPassthrough: config.terminal.env_passthrough,
      envLookup: options.credentials,
      denyPatterns: config.approvals.deny,
    },
  });
}
