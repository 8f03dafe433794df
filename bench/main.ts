/**
 * `deno task bench`: runs every benchmark and prints a Markdown report with
 * the commands behind each figure (copy it into docs/BENCHMARKS.md).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { benchStartup } from "./cli_startup.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
const runs = Number(Deno.env.get("BENCH_RUNS") ?? "40");

const fmt = (ms: number) => ms.toFixed(1);
const startup = await benchStartup(root, runs);
const lines = [
  `## CLI cold start (${
    new Date().toISOString().slice(0, 10)
  }, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores)`,
  "",
  "| command | runs | median ms | p90 ms | min ms |",
  "| --- | --- | --- | --- | --- |",
  ...[startup.herald, startup.baseline].map((s) =>
    `| \`${s.command}\` | ${s.runs} | ${fmt(s.medianMs)} | ${fmt(s.p90Ms)} | ${fmt(s.minMs)} |`
  ),
  "",
  `Ratio of medians (herald / empty file): **${
    startup.ratio.toFixed(2)
  }x** (target: at most 1.5x).`,
];
console.log(lines.join("\n"));
