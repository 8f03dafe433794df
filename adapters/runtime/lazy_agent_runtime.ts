/**
 * Opening a profile's agent runtime without importing it up front: the
 * runtime (model SDKs, tools, skills) is loaded on the first conversation,
 * so an idle dashboard and the commands that do not chat never hold it.
 * Surfaces (the terminal chat, the dashboard's gateway) open runtimes here.
 *
 * @module
 */

import type { ProfilePaths } from "../home/mod.ts";
import { importLazily } from "../lazy.ts";
import type { AgentRuntime, AgentRuntimeOptions } from "./agent_runtime.ts";

export type { AgentRuntime, AgentRuntimeOptions, WarningSink } from "./agent_runtime.ts";

/**
 * Loads adapters/runtime/agent_runtime.ts on first use and opens the agent
 * runtime of the profile at `paths` (see its `openAgentRuntime`).
 *
 * @example
 * ```ts
 * const runtime = await openAgentRuntimeLazily(paths, options);
 * const conversation = await Conversation.open({ runtime });
 * ```
 */
export async function openAgentRuntimeLazily(
  paths: ProfilePaths,
  options: AgentRuntimeOptions,
): Promise<AgentRuntime> {
  // Through a variable: Deno pre-loads the graph behind a literal dynamic import.
  const module = await importLazily<typeof import("./agent_runtime.ts")>(
    "adapters/runtime/agent_runtime.ts",
  );
  return await module.openAgentRuntime(paths, options);
}
