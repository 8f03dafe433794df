/**
 * `deno task bench`: runs every benchmark and prints a Markdown report with
 * the command behind each figure (copy it into docs/BENCHMARKS.md).
 *
 * Environment: `BENCH_RUNS` (start-up runs per command, default 40),
 * `BENCH_TUI_RUNS` (pty start-up runs per command, default 15),
 * `BENCH_MESSAGES` and `BENCH_SESSIONS` (bulk import size, default
 * 1,000,000 in 10,000), `BENCH_ROUND_TRIPS` (tool round trips in the agent
 * overhead run, default 200), `BENCH_COMPRESSION_MESSAGES` (history length in
 * the compression run, default 200), `BENCH_UI_RUNS` (visits of each page in the
 * web app run, default 15), `BENCH_UI_PAIRS` (user/assistant pairs of its long
 * session, default 1,000). The web app run alone: `deno run -A bench/ui.ts`.
 * The messaging gateway (bench/gateway.ts): `BENCH_GATEWAY_MESSAGES`
 * (overhead run, default 200), `BENCH_GATEWAY_CHATS` (chats at once, 100),
 * `BENCH_GATEWAY_RSS_MESSAGES` and `BENCH_GATEWAY_RSS_CHATS` (memory run,
 * 10,000 in 50), `BENCH_GATEWAY_PROBE=1` (the memory run again with a probe);
 * alone: `deno run -A bench/gateway.ts [--quick]`. The scheduler tick
 * (bench/cron_tick.ts): `BENCH_CRON_JOBS` (default 10,000), `BENCH_CRON_DUE`
 * (5), `BENCH_CRON_RUNS` (100); alone: `deno run -A bench/cron_tick.ts`. The
 * kanban decomposition commit (bench/kanban_decompose.ts): `BENCH_KANBAN_NODES`
 * (50), `BENCH_KANBAN_RUNS` (100); alone: `deno run -A bench/kanban_decompose.ts`;
 * kanban dispatcher tick (bench/kanban_dispatch.ts): `BENCH_KANBAN_TASKS` (10000),
 * `BENCH_KANBAN_TICKS` (100); alone: `deno run -A bench/kanban_dispatch.ts`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { benchStartup } from "./cli_startup.ts";
import { benchTuiStartup } from "./tui_startup.ts";
import { benchTuiRender } from "./tui_render.ts";
import { benchBulkImport } from "./bulk_import.ts";
import { benchRoundTrips } from "./agent_roundtrip.ts";
import { benchCompression } from "./compression.ts";
import { benchSessionSearch, type SearchBenchResult } from "./session_search.ts";
import { benchDashboard } from "./dashboard.ts";
import { uiReport } from "./ui.ts";
import { gatewayBenchSizes, gatewayReport } from "./gateway.ts";
import { cronTickReport, cronTickSizes } from "./cron_tick.ts";
import { kanbanDecomposeReport, kanbanDecomposeSizes } from "./kanban_decompose.ts";
import { kanbanDispatchReport, kanbanDispatchSizes } from "./kanban_dispatch.ts";
import { mcpCallReport, mcpCallSizes } from "./mcp_call.ts";
import { codexTurnReport, codexTurnSizes } from "./codex_turn.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
const runs = Number(Deno.env.get("BENCH_RUNS") ?? "40");
const tuiRuns = Number(Deno.env.get("BENCH_TUI_RUNS") ?? "15");
const messages = Number(Deno.env.get("BENCH_MESSAGES") ?? "1000000");
const sessions = Number(Deno.env.get("BENCH_SESSIONS") ?? "10000");
const roundTrips = Number(Deno.env.get("BENCH_ROUND_TRIPS") ?? "200");
const compressionMessages = Number(Deno.env.get("BENCH_COMPRESSION_MESSAGES") ?? "200");
const uiRuns = Number(Deno.env.get("BENCH_UI_RUNS") ?? "15");
const uiPairs = Number(Deno.env.get("BENCH_UI_PAIRS") ?? "1000");

const ms = (value: number) => value.toFixed(1);
const today = new Date().toISOString().slice(0, 10);
const machine = `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;

const startup = await benchStartup(root, runs);
console.log([
  `## CLI cold start (${today}, ${machine})`,
  "",
  "| command | runs | median ms | p90 ms | min ms |",
  "| --- | --- | --- | --- | --- |",
  ...[startup.herald, startup.baseline].map((s) =>
    `| \`${s.command}\` | ${s.runs} | ${ms(s.medianMs)} | ${ms(s.p90Ms)} | ${ms(s.minMs)} |`
  ),
  "",
  `Ratio of medians (herald / empty file): **${
    startup.ratio.toFixed(2)
  }x** (target: at most 1.5x).`,
  "",
].join("\n"));

const tui = await benchTuiStartup(tuiRuns);
console.log([
  `## Interactive start-up through a pty (${today}, ${machine})`,
  "",
  "Each run spawns the command in a new pseudo-terminal (100x30) and stops the clock when the " +
  "headless emulator shows the text; the chat's model points at the scripted server on 127.0.0.1 " +
  "(no request is made). The two commands alternate, after two warm-up runs of each.",
  "",
  "| measurement | runs | median ms | p90 ms | min ms |",
  "| --- | --- | --- | --- | --- |",
  ...[
    [tui.chat, "the prompt line `›` is drawn"] as const,
    [tui.ready, "the status line names the model (conversation open)"] as const,
    [tui.version, "the version line is drawn"] as const,
  ].map(([s, until]) =>
    `| \`${s.command}\` until ${until} | ${s.runs} | ${ms(s.medianMs)} | ${ms(s.p90Ms)} | ${
      ms(s.minMs)
    } |`
  ),
  "",
  `Chat prompt median: **${ms(tui.chat.medianMs)} ms** (target: at most 250 ms); ` +
  `${ms(tui.differenceMs)} ms more than \`--version\` through the same path.`,
  "",
].join("\n"));

const render = await benchTuiRender();
console.log([
  `## Rendering a streamed answer in the TUI (${today}, ${machine})`,
  "",
  `A generated Markdown answer of ${render.tokens} tokens (paragraphs, lists, code blocks) fed ` +
  "to the TUI's streaming renderer in 4-character deltas, with the live preview rendered after " +
  "every delta (the TUI does it at most once per 16 ms frame).",
  "",
  "| measurement | value |",
  "| --- | --- |",
  `| CPU per 1,000 tokens | ${render.cpuMsPer1000Tokens.toFixed(1)} ms |`,
  `| wall time for the whole answer | ${ms(render.wallMs)} ms |`,
  `| a model at 500 tokens/s takes | ${ms(render.tokens / 500 * 1000)} ms |`,
  "",
  `Keeps up with 500 tokens/s when the CPU per 1,000 tokens is under 2,000 ms: ` +
  `**${render.cpuMsPer1000Tokens < 2000 ? "yes" : "no"}** ` +
  `(${(2000 / render.cpuMsPer1000Tokens).toFixed(0)}x headroom).`,
  "",
].join("\n"));

const dashboard = await benchDashboard();
console.log([
  `## Dashboard server (${today}, ${machine})`,
  "",
  `Load: ${dashboard.tool}, ${dashboard.connections} connections, ${dashboard.seconds} s per run after a 1 s ` +
  "warm-up, each endpoint in its own server process on 127.0.0.1; three alternating rounds, best of each.",
  "",
  "| endpoint | best requests/s | every round |",
  "| --- | --- | --- |",
  ...[
    [dashboard.bare, "`bench/fixtures/dashboard_server.ts bare`"] as const,
    [dashboard.status, "`createApp`, token header"] as const,
  ].map(([t, how]) =>
    `| ${t.label} (${how}) | ${t.requestsPerSecond.toFixed(0)} | ${
      t.runs.map((r) => r.toFixed(0)).join(", ")
    } |`
  ),
  "",
  `Ratio: **${dashboard.ratio.toFixed(2)}x** (target: at least 0.7x).`,
  "",
  `Idle RSS of \`herald dashboard --no-open --port 0\` 3 s after start: **${
    dashboard.idleRssMb.toFixed(1)
  } MB** ` +
  "(target: at most 80 MB).",
  "",
  `RSS 3 s after \`/chat\` and its initial files were served once (the embedded web app loaded): **${
    dashboard.afterPageRssMb.toFixed(1)
  } MB** (reported: the target is the idle figure; serving the app costs what is above it).`,
  "",
].join("\n"));

console.log(await uiReport(uiRuns, uiPairs, `${today}, ${machine}`));

// Warm-up run so module loading and JIT do not count, then the measured run.
await benchRoundTrips(20);
const trips = await benchRoundTrips(roundTrips);
console.log([
  `## Agent overhead per tool round trip (${today}, ${machine})`,
  "",
  "| round trips | agent turn ms | same model requests replayed ms | overhead per round trip ms |",
  "| --- | --- | --- | --- |",
  `| ${trips.roundTrips} | ${ms(trips.agentMs)} | ${ms(trips.modelOnlyMs)} | **${
    trips.overheadPerRoundTripMs.toFixed(2)
  }** (target: at most 5) |`,
  "",
].join("\n"));

console.log(await gatewayReport(gatewayBenchSizes(), `${today}, ${machine}`));

console.log(await cronTickReport(cronTickSizes(), `${today}, ${machine}`));

console.log(await kanbanDecomposeReport(kanbanDecomposeSizes(), `${today}, ${machine}`));

console.log(await kanbanDispatchReport(kanbanDispatchSizes(), `${today}, ${machine}`));

console.log(await mcpCallReport(mcpCallSizes(), `${today}, ${machine}`));

console.log(await codexTurnReport(codexTurnSizes(), `${today}, ${machine}`));

const compression = await benchCompression(compressionMessages);
console.log([
  `## Context compression without the model call (${today}, ${machine})`,
  "",
  `A ${compression.messages}-message history (a user message, then four tool calls with 2 KB ` +
  `results, over and over), ${compression.summarised} messages summarised, ${compression.runs} ` +
  "runs, the summariser answering at once.",
  "",
  "| measurement | median ms | p90 ms |",
  "| --- | --- | --- |",
  `| \`/compact\`: estimate, plan, prompt, checkpoint stored in state.db | **${
    ms(compression.compactMedianMs)
  }** | ${ms(compression.compactP90Ms)} |`,
  `| plan and summariser prompt only | ${compression.pureMedianMs.toFixed(2)} | |`,
  `| building one compressed request | ${compression.requestMedianMs.toFixed(3)} | |`,
  "",
].join("\n"));

// Three-term queries over the most frequent words of the generated corpus.
const queries = ["w0x w1x w2x", "w0x w1x w3x", "w0x w2x w4x", "w1x w2x w3x"];
const searches: SearchBenchResult[] = [];
const bulk = await benchBulkImport(messages, sessions, (store, path) => {
  searches.push(benchSessionSearch(store, path, queries));
});
console.log([
  `## State store bulk import (${today}, ${machine})`,
  "",
  "| messages | sessions | import s | integrity check s | integrity | database MB |",
  "| --- | --- | --- | --- | --- | --- |",
  `| ${bulk.messages} | ${bulk.sessions} | ${bulk.importSeconds.toFixed(2)} | ` +
  `${bulk.integritySeconds.toFixed(2)} | ${bulk.integrity.join("; ")} | ${
    bulk.databaseMegabytes.toFixed(0)
  } |`,
].join("\n"));

for (const search of searches) {
  const counted = search.queries.map((q, i) =>
    `\`${q}\` (${search.hitsPerQuery[i]} matching messages)`
  );
  console.log([
    "",
    `## Session search on that database (${today}, ${machine})`,
    "",
    `Queries, ${search.runs} runs each, the two kinds alternating: ${counted.join(", ")}.`,
    "",
    "| measurement | median ms |",
    "| --- | --- |",
    `| bare FTS5 \`MATCH\` ordered by bm25, top 150 rowids | ${ms(search.bareMedianMs)} |`,
    `| discovery: hits, 5-message windows and bookends for 3 sessions | ${
      ms(search.discoveryMedianMs)
    } |`,
    `| browse: recent sessions | ${search.browseMedianMs.toFixed(2)} |`,
    "",
    `Ratio discovery / bare: **${search.ratio.toFixed(2)}x** (target: at most 1.5x). ` +
    "Browse target: at most 10 ms.",
  ].join("\n"));
}
