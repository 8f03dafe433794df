/**
 * CLI cold start: `herald --version` against `deno run` of an empty file,
 * both run the same way (same Deno, same flags, same project config), taken
 * in alternation in one run so machine load affects both alike.
 *
 * @module
 */

import { join } from "node:path";

/** One measured command. */
export interface StartupSample {
  label: string;
  command: string;
  runs: number;
  medianMs: number;
  p90Ms: number;
  minMs: number;
}

/** The result of one start-up comparison. */
export interface StartupResult {
  herald: StartupSample;
  baseline: StartupSample;
  /** Median of herald divided by median of the baseline. */
  ratio: number;
}

function quantile(sorted: number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}

async function timeOnce(args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const elapsed = performance.now() - started;
  if (!output.success) {
    throw new Error(`${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return elapsed;
}

/** Median, p90 and minimum of `times`, labelled with what ran (the start-up benches share it). */
export function summariseTimes(label: string, command: string, times: number[]): StartupSample {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    label,
    command,
    runs: times.length,
    medianMs: quantile(sorted, 0.5),
    p90Ms: quantile(sorted, 0.9),
    minMs: sorted[0],
  };
}

/** Runs both commands `runs` times each, alternating, after a warm-up of each. */
export async function benchStartup(repoRoot: string, runs = 40): Promise<StartupResult> {
  const flags = ["run", "--allow-read", "--allow-env"];
  const heraldArgs = [...flags, join("cli", "main.ts"), "--version"];
  const baselineArgs = [...flags, join("bench", "fixtures", "empty.ts")];
  for (let i = 0; i < 3; i++) {
    await timeOnce(heraldArgs, repoRoot);
    await timeOnce(baselineArgs, repoRoot);
  }
  const heraldTimes: number[] = [];
  const baselineTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    heraldTimes.push(await timeOnce(heraldArgs, repoRoot));
    baselineTimes.push(await timeOnce(baselineArgs, repoRoot));
  }
  const herald = summariseTimes("herald --version", `deno ${heraldArgs.join(" ")}`, heraldTimes);
  const baseline = summariseTimes("empty file", `deno ${baselineArgs.join(" ")}`, baselineTimes);
  return { herald, baseline, ratio: herald.medianMs / baseline.medianMs };
}
