/**
 * `herald mcp serve`: Herald's own tools (files, terminal, session_search,
 * memory, skills) served over MCP on standard input and output, for another
 * agent to call. Standard output carries only the protocol; warnings and
 * approval denials go to standard error. It ends when standard input
 * closes (or on SIGTERM/SIGINT). No model needs to be configured.
 *
 * @module
 */

import type { Command } from "commander";
import { importLazily } from "../../adapters/lazy.ts";
import type { CliContext } from "../context.ts";

const STOP_SIGNALS: Deno.Signal[] = ["SIGTERM", "SIGINT"];

/** Adds `serve` to the `mcp` command. */
export function registerMcpServe(mcp: Command, ctx: () => CliContext): void {
  mcp.command("serve")
    .description(
      "serve this profile's tools (files, terminal, session_search, memory, skills) over MCP " +
        "on stdio; dangerous commands run only when approvals.allow allows them",
    )
    .action(async (_options: unknown, command: Command) => {
      const c = ctx();
      // Loaded here so that the other commands do not carry the MCP server.
      const { openServedToolset, serveTools, stdioServerTransport } = await importLazily<
        typeof import("../../adapters/mcp/serve.ts")
      >("adapters/mcp/serve.ts");
      const { safeMode } = command.optsWithGlobals() as { safeMode?: boolean };
      const paths = await c.home();
      const log = (line: string) => c.io.err(`herald: ${line}\n`);
      const toolset = await openServedToolset(await c.profileContext(), {
        env: c.env,
        safeMode: safeMode === true,
        stateDb: paths.stateDb,
        log,
      });
      try {
        const server = await serveTools(toolset.registry, stdioServerTransport(), {
          cwd: Deno.cwd(),
          home: paths.home,
          approve: toolset.approve,
          onError: (error) => log(`mcp serve: ${error.message}`),
        });
        const stop = () => void server.close();
        if (c.signals) { for (const signal of STOP_SIGNALS) Deno.addSignalListener(signal, stop); }
        try {
          await server.closed;
        } finally {
          if (c.signals) {
            for (const signal of STOP_SIGNALS) Deno.removeSignalListener(signal, stop);
          }
        }
      } finally {
        toolset.close();
      }
    });
}
