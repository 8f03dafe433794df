/**
 * Checking one of a profile's MCP servers as a session would start it (its
 * `${NAME}` references expanded from the profile's credentials): the real
 * `initialize` handshake within a timeout and the tools it lists, answered
 * as the JSON both
 * `herald mcp test --json` and `POST /api/mcp/servers/:name/test` print.
 * Whatever the answer echoes (a URL, the server's standard error) has the
 * profile's secret values put back as `${NAME}` references.
 *
 * @module
 */

import { type ProcessEnv, redactText } from "../../core/config/mod.ts";
import { mcpToolName } from "../../core/mcp/mod.ts";
import { findMcpServerToProbe } from "../../core/usecases/mcp.ts";
import type { ProfileContext } from "../../core/usecases/ports.ts";
import { probeMcpServer } from "./probe.ts";

/** The longest a check waits for `initialize` by default, whatever the server's own timeout. */
export const MAX_CHECK_SECONDS = 30;

/** A check's answer. */
export type McpCheckView =
  & { profile: string; name: string; transport: "stdio" | "http" }
  & (
    | {
      ok: true;
      protocol_version: string;
      serverInfo: { name: string; version?: string; title?: string };
      capabilities: Record<string, unknown>;
      elapsed_ms: number;
      /** The tools it lists, with the name the model calls each by (`mcp_<server>_<tool>`). */
      tools?: { name: string; model_name: string; description?: string }[];
      /** Why the tools could not be listed. */
      tools_error?: string;
    }
    | { ok: false; error: { code: string; message: string }; stderr_tail?: string }
  );

/**
 * Checks server `name` of `profile`, waiting at most `timeoutSeconds`
 * (default: its own timeout, capped at {@link MAX_CHECK_SECONDS}).
 *
 * @throws NotFoundError when the profile has no such server.
 */
export async function checkMcpServer(
  profile: ProfileContext,
  name: string,
  options: { env: ProcessEnv; timeoutSeconds?: number },
): Promise<McpCheckView> {
  const target = await findMcpServerToProbe(profile, name);
  const seconds = options.timeoutSeconds ?? Math.min(target.server.timeout, MAX_CHECK_SECONDS);
  const result = await probeMcpServer(target.server, {
    timeoutMs: seconds * 1000,
    baseEnv: options.env,
    envPassthrough: target.envPassthrough,
    envLookup: target.envLookup,
    cwd: target.cwd,
  });
  const common = { profile: profile.name, name: target.name, transport: result.transport };
  if (result.ok) {
    return {
      ...common,
      ok: true,
      protocol_version: result.protocolVersion,
      serverInfo: result.serverInfo,
      capabilities: result.capabilities,
      elapsed_ms: result.elapsedMs,
      ...(result.tools
        ? {
          // In the order the model sees them.
          tools: result.tools.map((tool) => ({
            name: tool.name,
            model_name: mcpToolName(target.name, tool.name),
            ...(tool.description === undefined ? {} : { description: tool.description }),
          })).sort((a, b) => (a.model_name < b.model_name ? -1 : 1)),
        }
        : {}),
      ...(result.toolsError === undefined
        ? {}
        : { tools_error: redactText(result.toolsError, { resolved: target.resolved }) }),
    };
  }
  const hide = (text: string) => redactText(text, { resolved: target.resolved });
  return {
    ...common,
    ok: false,
    error: { code: result.code, message: hide(result.message) },
    ...(result.stderrTail ? { stderr_tail: hide(result.stderrTail) } : {}),
  };
}
