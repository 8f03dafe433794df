/**
 * The agent-runtime options a chat's command-line flags make, shared by the
 * plain chat (`herald chat -q`, piped) and the terminal UI.
 *
 * @module
 */

import type { ProcessEnv } from "../../core/config/mod.ts";
import type { AgentRuntimeOptions } from "../../adapters/runtime/lazy_agent_runtime.ts";

/** The chat flags that choose how the runtime runs. */
export interface ChatRuntimeFlags {
  model?: string;
  provider?: string;
  baseUrl?: string;
  source?: string;
  safeMode?: boolean;
  yolo?: boolean;
}

/**
 * The runtime options of a chat in the current folder, minus how approvals
 * are asked and warnings shown (each surface has its own). `unattended`:
 * nobody watches (a one-shot question), so a tool loop ends the turn.
 */
export function chatRuntimeOptions(
  flags: ChatRuntimeFlags,
  env: ProcessEnv,
  unattended: boolean,
): Omit<AgentRuntimeOptions, "approvals" | "onWarning"> {
  return {
    safeMode: flags.safeMode ?? false,
    model: flags.model,
    provider: flags.provider,
    baseUrl: flags.baseUrl,
    source: flags.source ?? "cli",
    cwd: Deno.cwd(),
    env,
    yolo: flags.yolo ?? false,
    unattended,
  };
}
