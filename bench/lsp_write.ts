/**
 * The added latency of language-server diagnostics on `write_file`: the
 * same edit of a TypeScript file in a project, written with the
 * diagnostics seam (a warm typescript-language-server; every edit changes
 * the file, alternating between a clean text and one with a type error)
 * and without it. Reports the median of N runs of each, their difference
 * and their ratio.
 *
 * Run: `deno run -A bench/lsp_write.ts [runs]` (default 20 runs).
 *
 * @module
 */

import { join } from "node:path";
import { openLspDiagnostics } from "../adapters/lsp/mod.ts";
import { createFileTools } from "../adapters/tools/files/mod.ts";
import type { ToolContext } from "../core/tools/types.ts";

/** Figures of one measurement, in milliseconds. */
export interface LspWriteBenchResult {
  runs: number;
  /** Median write_file without diagnostics. */
  plainMedianMs: number;
  /** Median write_file with diagnostics from a warm server. */
  lspMedianMs: number;
  /** lspMedianMs - plainMedianMs. */
  addedMs: number;
  /** lspMedianMs / plainMedianMs. */
  ratio: number;
  /** The first write with diagnostics, server start included. */
  coldMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function context(cwd: string): ToolContext {
  return {
    sessionId: "ses_bench",
    cwd,
    home: join(cwd, ".herald-home"),
    signal: new AbortController().signal,
    approve: () => Promise.resolve(false),
  };
}

/** A file text for run `i`: clean on even runs, with a type error on odd ones. */
function text(i: number): string {
  const body = Array.from(
    { length: 40 },
    (_, k) => `export function f${k}(x: number): number { return x + ${k}; }`,
  );
  const last = i % 2 === 0
    ? `export const n${i}: number = ${i};`
    : `export const n${i}: number = "${i}";`;
  return [...body, last, ""].join("\n");
}

/**
 * Measures `runs` writes with and without diagnostics in a fresh project.
 *
 * @example
 * ```ts
 * const result = await benchLspWrite(20); // { lspMedianMs: 380, plainMedianMs: 3, ... }
 * ```
 */
export async function benchLspWrite(runs = 20): Promise<LspWriteBenchResult> {
  const dir = await Deno.makeTempDir({ prefix: "herald-bench-lsp-" });
  const lsp = openLspDiagnostics(undefined, { cwd: dir });
  try {
    await Deno.writeTextFile(join(dir, "package.json"), '{"private":true}\n');
    await Deno.writeTextFile(join(dir, "tsconfig.json"), '{"compilerOptions":{"strict":true}}\n');
    const ctx = context(dir);
    const plain = createFileTools();
    const checked = createFileTools({ diagnostics: lsp.diagnose });
    const started = performance.now();
    const first = await checked.writeFile.run({ path: "warm.ts", content: text(1) }, ctx);
    const coldMs = performance.now() - started;
    if (!first.lsp_diagnostics) throw new Error("typescript-language-server gave no diagnostics");
    const plainTimes: number[] = [];
    const lspTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      let start = performance.now();
      await plain.writeFile.run({ path: "plain.ts", content: text(i) }, ctx);
      plainTimes.push(performance.now() - start);
      start = performance.now();
      await checked.writeFile.run({ path: "warm.ts", content: text(i) }, ctx);
      lspTimes.push(performance.now() - start);
    }
    const plainMedianMs = median(plainTimes);
    const lspMedianMs = median(lspTimes);
    return {
      runs,
      plainMedianMs,
      lspMedianMs,
      addedMs: lspMedianMs - plainMedianMs,
      ratio: lspMedianMs / plainMedianMs,
      coldMs,
    };
  } finally {
    await lsp.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const runs = Number(Deno.args[0] ?? 20);
  const result = await benchLspWrite(runs);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`write_file on a warm typescript-language-server, median of ${result.runs}:`);
  console.log(`  without diagnostics  ${ms(result.plainMedianMs)}`);
  console.log(`  with diagnostics     ${ms(result.lspMedianMs)}`);
  console.log(`  added                ${ms(result.addedMs)} (x${result.ratio.toFixed(1)})`);
  console.log(`  first write (cold)   ${ms(result.coldMs)}`);
}
