/**
 * MCP tool-call overhead: the same `echo` call to the real
 * server-everything over stdio, made (a) directly with the SDK's own
 * `Client` and `StdioClientTransport` (the baseline) and (b) as the model's
 * call goes, through the tool registry and Herald's MCP toolset
 * (adapters/mcp/toolset.ts, its process-group transport). Each side has
 * its own server process; calls alternate between the sides so both see
 * the same machine load. Reported: medians and p90s, the difference
 * (target: at most 2 ms) and the ratio.
 *
 * `deno run -A bench/mcp_call.ts [--quick]`
 *
 * @module
 */

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { openMcpToolset } from "../adapters/mcp/toolset.ts";
import { ToolRegistry } from "../core/tools/registry.ts";
import type { ToolContext } from "../core/tools/types.ts";

const EVERYTHING = join(
  new URL("../", import.meta.url).pathname,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

/** How many calls each side makes. */
export interface McpCallSizes {
  calls: number;
  warmup: number;
}

/** The bench's figures (ms). */
export interface McpCallResult extends McpCallSizes {
  directMedianMs: number;
  directP90Ms: number;
  heraldMedianMs: number;
  heraldP90Ms: number;
}

/** Sizes: 400 calls each (60 with `quick`). */
export function mcpCallSizes(quick = false): McpCallSizes {
  return quick ? { calls: 60, warmup: 10 } : { calls: 400, warmup: 40 };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Runs both sides against their own server-everything and measures each call. */
export async function benchMcpCall(sizes: McpCallSizes): Promise<McpCallResult> {
  const direct = new Client({ name: "bench", version: "0" });
  await direct.connect(
    new StdioClientTransport({ command: "node", args: [EVERYTHING, "stdio"], stderr: "ignore" }),
  );
  const toolset = await openMcpToolset({
    everything: { command: "node", args: [EVERYTHING, "stdio"], timeout: 300, enabled: true },
  }, { baseEnv: Deno.env.toObject(), onWarning: (message) => console.error(message) });
  const registry = new ToolRegistry(toolset.tools);
  const context: ToolContext = {
    sessionId: "bench",
    cwd: Deno.cwd(),
    home: Deno.cwd(),
    signal: new AbortController().signal,
    approve: () => Promise.resolve(false),
  };
  const args = { message: "hello" };
  const callDirect = async () => {
    await direct.callTool({ name: "echo", arguments: args });
  };
  const callHerald = async (id: number) => {
    const outcome = await registry.execute(
      { id: `c${id}`, name: "mcp_everything_echo", arguments: JSON.stringify(args) },
      context,
    );
    if (!outcome.ok) throw new Error(outcome.message);
  };
  const directMs: number[] = [];
  const heraldMs: number[] = [];
  try {
    for (let i = 0; i < sizes.warmup + sizes.calls; i++) {
      let start = performance.now();
      await callDirect();
      const a = performance.now() - start;
      start = performance.now();
      await callHerald(i);
      const b = performance.now() - start;
      if (i >= sizes.warmup) {
        directMs.push(a);
        heraldMs.push(b);
      }
    }
  } finally {
    await direct.close();
    await toolset.close();
  }
  return {
    ...sizes,
    directMedianMs: quantile(directMs, 0.5),
    directP90Ms: quantile(directMs, 0.9),
    heraldMedianMs: quantile(heraldMs, 0.5),
    heraldP90Ms: quantile(heraldMs, 0.9),
  };
}

/** The Markdown report for docs/BENCHMARKS.md. */
export function formatMcpCallReport(result: McpCallResult, heading: string): string {
  const ms = (value: number) => value.toFixed(3);
  const overhead = result.heraldMedianMs - result.directMedianMs;
  return [
    `## MCP tool-call overhead (${heading})`,
    "",
    `\`echo\` on server-everything over stdio, ${result.calls} calls each after ${result.warmup} ` +
    "warm-up calls, alternating. Command: `deno run -A bench/mcp_call.ts`.",
    "",
    "| call | median ms | p90 ms |",
    "| --- | --- | --- |",
    `| through Herald (registry, toolset, process-group transport) | **${
      ms(result.heraldMedianMs)
    }** | ${ms(result.heraldP90Ms)} |`,
    `| the SDK's own client (baseline) | ${ms(result.directMedianMs)} | ${
      ms(result.directP90Ms)
    } |`,
    "",
    `Overhead of the medians: **${ms(overhead)} ms** (target: at most 2 ms); ratio ` +
    `**${(result.heraldMedianMs / result.directMedianMs).toFixed(2)}x**.`,
    "",
  ].join("\n");
}

/** Runs the bench and returns the report. */
export async function mcpCallReport(sizes: McpCallSizes, heading: string): Promise<string> {
  return formatMcpCallReport(await benchMcpCall(sizes), heading);
}

if (import.meta.main) {
  const heading = `${
    new Date().toISOString().slice(0, 10)
  }, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;
  console.log(await mcpCallReport(mcpCallSizes(Deno.args.includes("--quick")), heading));
}
