/**
 * The decomposer's commit (issue 16): `commitDecomposition` of a 50-node
 * graph into a real `kanban.db` (WAL, one `BEGIN IMMEDIATE` transaction:
 * 50 tasks, their links, the root under every leaf, the audit comment, 52
 * events). Measured in the same run and alternating with it: creating one
 * task (the baseline: what a single write costs by itself), and the whole
 * `decomposeTask` (reading the task, the prompt, parsing the model's JSON,
 * resolving assignees and the same commit) with a model that answers at once.
 *
 * Each measured commit decomposes a fresh triage root on a board that grows
 * as the runs go (51 tasks a run).
 *
 * Alone: `deno run -A bench/kanban_decompose.ts [--quick]` (`--quick`: 20
 * runs). Sizes: `BENCH_KANBAN_NODES` (50), `BENCH_KANBAN_RUNS` (100).
 *
 * @module
 */

import { join } from "node:path";
import { openSqliteBoard } from "../adapters/kanban/mod.ts";
import type { BoardStore, NewChildTask } from "../core/kanban/mod.ts";
import { decomposeTask, type ProfileCard } from "../core/kanban/decompose.ts";
import { quantile } from "./gateway.ts";

const WARMUP = 5;

/** Sizes of a run. */
export interface KanbanDecomposeSizes {
  nodes: number;
  runs: number;
}

/** The figures of a run (milliseconds). */
export interface KanbanDecomposeResult extends KanbanDecomposeSizes {
  edges: number;
  leaves: number;
  commitMedianMs: number;
  commitP90Ms: number;
  wholeMedianMs: number;
  wholeP90Ms: number;
  baselineMedianMs: number;
  baselineP90Ms: number;
}

/** The sizes from the environment; `quick` for small ones. */
export function kanbanDecomposeSizes(quick = false): KanbanDecomposeSizes {
  const size = (name: string, full: number, small: number) =>
    Number(Deno.env.get(name) ?? String(quick ? small : full));
  return {
    nodes: size("BENCH_KANBAN_NODES", 50, 50),
    runs: size("BENCH_KANBAN_RUNS", 100, 20),
  };
}

const PROFILES: ProfileCard[] = ["researcher", "coder", "writer", "reviewer"].map((name) => ({
  name,
  description: `The ${name}.`,
}));

/** A layered graph: node i waits for nodes (i-1)/2 and i-3 when they exist (a DAG). */
function graph(nodes: number) {
  const parents = Array.from(
    { length: nodes },
    (_, i) => [...new Set([Math.floor((i - 1) / 2), i - 3])].filter((p) => p >= 0 && p < i),
  );
  const children: NewChildTask[] = parents.map((_, i) => ({
    title: `Part ${i} of the plan`,
    body: `Do part ${i}: the goal, the approach and how to tell it is done. `.repeat(4),
    assignee: PROFILES[i % PROFILES.length].name,
  }));
  const edges = parents.flatMap((list, child) => list.map((p): [number, number] => [p, child]));
  const reply = JSON.stringify({
    fanout: true,
    rationale: "Bench graph.",
    tasks: children.map((child, i) => ({ ...child, parents: parents[i] })),
  });
  return { children, edges, reply };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function triageRoot(board: BoardStore, n: number): Promise<string> {
  const { task } = await board.createTask({ title: `Root ${n}`, assignee: "lead", triage: true });
  return task.id;
}

/** Measures the three writes (see the module documentation). */
export async function benchKanbanDecompose(
  sizes: KanbanDecomposeSizes,
): Promise<KanbanDecomposeResult> {
  const dir = await Deno.makeTempDir({ prefix: "herald-bench-kanban-" });
  const board = openSqliteBoard(join(dir, "kanban.db"));
  try {
    const { children, edges, reply } = graph(sizes.nodes);
    const commitMs: number[] = [], wholeMs: number[] = [], baselineMs: number[] = [];
    for (let k = 0; k < WARMUP + sizes.runs; k++) {
      const order = k % 2 === 0 ? ["commit", "whole", "one"] : ["one", "whole", "commit"];
      for (const which of order) {
        let ms: number;
        if (which === "one") {
          ms = await timed(() => board.createTask({ title: `Single ${k}`, assignee: "coder" }));
        } else if (which === "commit") {
          const rootId = await triageRoot(board, k);
          ms = await timed(async () => {
            const done = await board.commitDecomposition({
              fanout: true,
              rootId,
              children,
              edges,
              rootAssignee: "lead",
              comment: {
                author: "decomposer",
                body: (records) => records.map((record) => record.id).join("\n"),
              },
            });
            if (!done.fanout || done.children.length !== sizes.nodes) {
              throw new Error("short commit");
            }
          });
        } else {
          const rootId = await triageRoot(board, k);
          ms = await timed(async () => {
            const outcome = await decomposeTask(board, rootId, {
              complete: () => Promise.resolve(reply),
              profiles: PROFILES,
              orchestrator: "lead",
              defaultProfile: "default",
            });
            if (!outcome.ok || !outcome.fanout) throw new Error(JSON.stringify(outcome));
          });
        }
        if (k < WARMUP) continue;
        ({ one: baselineMs, commit: commitMs, whole: wholeMs })[which]!.push(ms);
      }
    }
    const parentsOf = new Set(edges.map(([parent]) => parent));
    return {
      ...sizes,
      edges: edges.length,
      leaves: sizes.nodes - parentsOf.size,
      commitMedianMs: quantile(commitMs, 0.5),
      commitP90Ms: quantile(commitMs, 0.9),
      wholeMedianMs: quantile(wholeMs, 0.5),
      wholeP90Ms: quantile(wholeMs, 0.9),
      baselineMedianMs: quantile(baselineMs, 0.5),
      baselineP90Ms: quantile(baselineMs, 0.9),
    };
  } finally {
    board.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The Markdown report of a run, under `heading` (date and machine). */
export function formatKanbanDecomposeReport(
  result: KanbanDecomposeResult,
  heading: string,
): string {
  const ms = (value: number) => value.toFixed(2);
  return [
    `## Kanban decomposition commit (${heading})`,
    "",
    `\`commitDecomposition\` of a ${result.nodes}-node graph (${result.edges} edges, ` +
    `${result.leaves} leaves) into a real \`kanban.db\` in one \`BEGIN IMMEDIATE\` transaction: ` +
    `${result.nodes} tasks, their links, the root under every leaf, the audit comment and ` +
    `${result.nodes + 2} events. ${result.runs} runs after ${WARMUP} warm-up ones, each on a ` +
    "fresh triage root, alternating with the baseline (creating one task) and with the whole " +
    "`decomposeTask` (prompt, parsing the JSON, assignees, the same commit) whose model answers " +
    "at once.",
    "",
    "| write | median ms | p90 ms |",
    "| --- | --- | --- |",
    `| commit of ${result.nodes} nodes | **${ms(result.commitMedianMs)}** | ${
      ms(result.commitP90Ms)
    } |`,
    `| \`decomposeTask\`, model answering at once | ${ms(result.wholeMedianMs)} | ${
      ms(result.wholeP90Ms)
    } |`,
    `| one task created (baseline) | ${ms(result.baselineMedianMs)} | ${
      ms(result.baselineP90Ms)
    } |`,
    "",
    `Ratio of medians (${result.nodes}-node commit / one task): ` +
    `**${(result.commitMedianMs / result.baselineMedianMs).toFixed(2)}x**. Median commit: ` +
    `**${ms(result.commitMedianMs)} ms** (target: at most 20 ms).`,
    "",
  ].join("\n");
}

/** Runs the bench and returns the report. */
export async function kanbanDecomposeReport(
  sizes: KanbanDecomposeSizes,
  heading: string,
): Promise<string> {
  return formatKanbanDecomposeReport(await benchKanbanDecompose(sizes), heading);
}

if (import.meta.main) {
  const sizes = kanbanDecomposeSizes(Deno.args.includes("--quick"));
  const heading = `${
    new Date().toISOString().slice(0, 10)
  }, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;
  console.log(await kanbanDecomposeReport(sizes, heading));
}
