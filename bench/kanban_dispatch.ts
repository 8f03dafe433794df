/**
 * One dispatcher tick (issue 16) over a real `kanban.db` of 10,000 tasks:
 * 8,000 done, 500 blocked with 1,000 todo children waiting for them, 400
 * ready, 50 in triage, 48 archived and 2 running with live workers. The
 * tick looks after the running tasks, promotes what is ready (nothing, by
 * construction: every todo task waits for a blocked parent), and claims
 * and starts 2 workers (`kanban.max_in_progress` 4); starting a worker is
 * a stand-in that answers a pid at once, so the figure is the board's
 * work, not a process start. Between measured ticks (untimed) the two new
 * attempts are ended so the next tick finds the same board.
 *
 * Baseline, measured in the same run and alternating with the tick:
 * creating one task (a single write transaction).
 *
 * Alone: `deno run -A bench/kanban_dispatch.ts [--quick]` (`--quick`: a
 * 1,000-task board, 20 ticks). Sizes: `BENCH_KANBAN_TASKS` (10000),
 * `BENCH_KANBAN_TICKS` (100).
 *
 * @module
 */

import { join } from "node:path";
import { openSqliteBoard } from "../adapters/kanban/mod.ts";
import type { BoardStore, TaskRecord } from "../core/kanban/mod.ts";
import {
  type DispatchPorts,
  type DispatchSettings,
  dispatchTick,
} from "../core/kanban/dispatch.ts";
import { quantile } from "./gateway.ts";

const WARMUP = 5;
const PROFILES = ["coder", "writer", "researcher"];

/** Sizes of a run. */
export interface KanbanDispatchSizes {
  tasks: number;
  ticks: number;
}

/** The figures of a run (milliseconds). */
export interface KanbanDispatchResult extends KanbanDispatchSizes {
  counts: Record<string, number>;
  tickMedianMs: number;
  tickP90Ms: number;
  baselineMedianMs: number;
  baselineP90Ms: number;
  setupMs: number;
}

/** The sizes from the environment; `quick` for small ones. */
export function kanbanDispatchSizes(quick = false): KanbanDispatchSizes {
  const size = (name: string, full: number, small: number) =>
    Number(Deno.env.get(name) ?? String(quick ? small : full));
  return {
    tasks: size("BENCH_KANBAN_TASKS", 10_000, 1_000),
    ticks: size("BENCH_KANBAN_TICKS", 100, 20),
  };
}

const SETTINGS: DispatchSettings = {
  failureLimit: 2,
  claimTtlMs: 900_000,
  heartbeatStaleMs: 3_600_000,
  autoDecompose: false,
  autoDecomposePerTick: 3,
  maxInProgress: 4,
  maxRuntimeMs: 3_600_000,
};

/** Fills `board` with the mix of the module documentation, scaled to `tasks`. */
async function fill(board: BoardStore, tasks: number): Promise<Record<string, number>> {
  const share = (fraction: number) => Math.round(tasks * fraction);
  const counts: Record<string, number> = {
    done: share(0.8),
    blocked: share(0.05),
    todo: share(0.1),
    ready: share(0.04),
    triage: share(0.005),
    running: 2,
  };
  counts.archived = tasks - Object.values(counts).reduce((sum, n) => sum + n, 0);
  let n = 0;
  const make = async (extra: { parents?: string[]; triage?: boolean } = {}) =>
    (await board.createTask({
      title: `Task ${n} of the bench board`,
      body: "What to do and how to tell it is done.",
      assignee: PROFILES[n++ % PROFILES.length],
      ...extra,
    })).task;
  for (let i = 0; i < counts.done; i++) await board.complete((await make()).id, "done");
  const blocked: TaskRecord[] = [];
  for (let i = 0; i < counts.blocked; i++) {
    const task = await make();
    blocked.push(await board.block(task.id, "waiting for a person"));
  }
  for (let i = 0; i < counts.todo; i++) await make({ parents: [blocked[i % blocked.length].id] });
  for (let i = 0; i < counts.ready; i++) await make();
  for (let i = 0; i < counts.triage; i++) await make({ triage: true });
  for (let i = 0; i < counts.archived; i++) await board.archive((await make()).id);
  for (let i = 0; i < counts.running; i++) {
    const task = await make();
    await board.claim(task.id, { lock: `live:${i}`, expiresAt: Date.now() + 86_400_000 });
    await board.recordWorker(task.id, `live:${i}`, 100 + i);
  }
  return counts;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Measures the tick and the baseline (see the module documentation). */
export async function benchKanbanDispatch(
  sizes: KanbanDispatchSizes,
): Promise<KanbanDispatchResult> {
  const dir = await Deno.makeTempDir({ prefix: "herald-bench-dispatch-" });
  const board = openSqliteBoard(join(dir, "kanban.db"));
  try {
    const setupStarted = performance.now();
    const counts = await fill(board, sizes.tasks);
    const setupMs = performance.now() - setupStarted;
    let locks = 0;
    let pids = 1000;
    const started: { id: string; lock: string }[] = [];
    const ports: DispatchPorts = {
      board,
      now: Date.now,
      newLock: () => `bench:${locks++}`,
      workerAlive: (lock) => Promise.resolve(lock.startsWith("live:") ? true : undefined),
      stopWorker: () => Promise.resolve(),
      spawn: (task, lock) => {
        started.push({ id: task.id, lock });
        return Promise.resolve(pids++);
      },
      watched: () => [],
      decompose: null,
      profiles: () => Promise.resolve(PROFILES),
    };
    const tickMs: number[] = [], baselineMs: number[] = [];
    for (let k = 0; k < WARMUP + sizes.ticks; k++) {
      const order = k % 2 === 0 ? ["tick", "one"] : ["one", "tick"];
      for (const which of order) {
        let ms: number;
        if (which === "one") {
          ms = await timed(() => board.createTask({ title: `Single ${k}`, assignee: "coder" }));
        } else {
          ms = await timed(async () => {
            const report = await dispatchTick(ports, SETTINGS, {});
            if (report.spawned.length !== 2) throw new Error(JSON.stringify(report));
          });
          // Untimed: the new attempts end, so the next tick finds the same board.
          for (const { id, lock } of started.splice(0)) {
            await board.endAttempt(id, {
              lock,
              outcome: "reclaimed",
              error: "bench reset",
              failed: false,
              failureLimit: 2,
            });
          }
        }
        if (k >= WARMUP) (which === "one" ? baselineMs : tickMs).push(ms);
      }
    }
    return {
      ...sizes,
      counts,
      setupMs,
      tickMedianMs: quantile(tickMs, 0.5),
      tickP90Ms: quantile(tickMs, 0.9),
      baselineMedianMs: quantile(baselineMs, 0.5),
      baselineP90Ms: quantile(baselineMs, 0.9),
    };
  } finally {
    board.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The Markdown report of a run, under `heading` (date and machine). */
export function formatKanbanDispatchReport(result: KanbanDispatchResult, heading: string): string {
  const ms = (value: number) => value.toFixed(2);
  const mix = Object.entries(result.counts).map(([status, n]) => `${n} ${status}`).join(", ");
  return [
    `## Kanban dispatcher tick (${heading})`,
    "",
    `One \`dispatchTick\` over a real \`kanban.db\` of ${result.tasks} tasks (${mix}; every todo ` +
    "task waits for a blocked parent): the running tasks looked after, promotions checked, 2 ready " +
    "tasks claimed and their workers started (a stand-in answering a pid at once). " +
    `${result.ticks} ticks after ${WARMUP} warm-up ones, alternating with the baseline (creating ` +
    "one task); the two new attempts are ended between ticks, untimed.",
    "",
    "| work | median ms | p90 ms |",
    "| --- | --- | --- |",
    `| dispatcher tick, ${result.tasks} tasks | **${ms(result.tickMedianMs)}** | ${
      ms(result.tickP90Ms)
    } |`,
    `| one task created (baseline) | ${ms(result.baselineMedianMs)} | ${
      ms(result.baselineP90Ms)
    } |`,
    "",
    `Ratio of medians (tick / one task): ` +
    `**${(result.tickMedianMs / result.baselineMedianMs).toFixed(2)}x**. Median tick: ` +
    `**${ms(result.tickMedianMs)} ms** (target: at most 20 ms). Filling the board took ` +
    `${(result.setupMs / 1000).toFixed(1)} s.`,
    "",
  ].join("\n");
}

/** Runs the bench and returns the report. */
export async function kanbanDispatchReport(
  sizes: KanbanDispatchSizes,
  heading: string,
): Promise<string> {
  return formatKanbanDispatchReport(await benchKanbanDispatch(sizes), heading);
}

if (import.meta.main) {
  const sizes = kanbanDispatchSizes(Deno.args.includes("--quick"));
  const heading = `${
    new Date().toISOString().slice(0, 10)
  }, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;
  console.log(await kanbanDispatchReport(sizes, heading));
}
