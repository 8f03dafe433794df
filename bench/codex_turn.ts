/**
 * Herald's overhead per Codex turn: the same short text turn run (a)
 * through Herald's Codex session (the JSON-RPC peer, notification routing,
 * events, projecting and storing the items in SQLite) and (b) by a bare
 * client that writes `turn/start` and reads lines until `turn/completed`
 * (the baseline: the codex process's own time with the fake model). Each
 * side has its own warm app-server (the spawn and the first turn are not
 * measured) against one scripted Responses model on 127.0.0.1; turns
 * alternate between the sides so both see the same machine load.
 *
 * `deno run -A bench/codex_turn.ts [--quick]`
 *
 * @module
 */

import { join } from "node:path";
import { CodexSession } from "../core/agent/codex_session.ts";
import { appServerLauncher } from "../adapters/codex/app_server.ts";
import { openStateStore } from "../adapters/sqlite/mod.ts";
import { codexBinary, codexHome, startBareAppServer } from "../tests/codex_cli.ts";
import { startResponsesModel } from "../tests/fakes/responses_model.ts";

/** How many turns each side runs. */
export interface CodexTurnSizes {
  turns: number;
  warmup: number;
}

/** The bench's figures (ms). */
export interface CodexTurnResult extends CodexTurnSizes {
  bareMedianMs: number;
  bareP90Ms: number;
  heraldMedianMs: number;
  heraldP90Ms: number;
}

/** Sizes: 60 turns each (15 with `quick`). */
export function codexTurnSizes(quick = false): CodexTurnSizes {
  return quick ? { turns: 15, warmup: 3 } : { turns: 60, warmup: 5 };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** A bare client's turns on its own app-server: the codex process's own time. */
async function bareClient(program: string, env: Record<string, string>, cwd: string) {
  const codex = await startBareAppServer(program, env, cwd);
  const started = await codex.request("thread/start", { cwd }) as { thread: { id: string } };
  const threadId = started.thread.id;
  return {
    async turn(text: string) {
      const turn = await codex.request("turn/start", {
        threadId,
        input: [{ type: "text", text, text_elements: [] }],
      }) as { turn: { id: string } };
      await codex.waitFor((message) =>
        message.method === "turn/completed" &&
        (message.params?.turn as { id: string }).id === turn.turn.id
      );
    },
    close: () => codex.close(),
  };
}

/** Runs both sides and measures each turn. */
export async function benchCodexTurn(sizes: CodexTurnSizes): Promise<CodexTurnResult> {
  const program = await codexBinary();
  await using model = await startResponsesModel();
  await using home = await codexHome({ baseUrl: model.baseUrl });
  const dir = await Deno.makeTempDir({ prefix: "herald-bench-codex-" });
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: dir, ...home.env };
  const store = openStateStore(join(dir, "state.db"));
  const threads = new Map<string, string>();
  const session = CodexSession.start({
    store,
    source: "bench",
    cwd: dir,
    launch: appServerLauncher({ command: program, baseEnv: env, env: home.env, cwd: dir }),
    approve: () => Promise.resolve("deny"),
    threads: {
      get: (id) => Promise.resolve(threads.get(id)),
      set: (id, thread) => Promise.resolve(void threads.set(id, thread)),
    },
    toolServer: "herald",
    turnTimeoutMs: 60_000,
    clientVersion: "bench",
  });
  const bare = await bareClient(program, env, dir);
  const bareMs: number[] = [];
  const heraldMs: number[] = [];
  try {
    await session.send("warm up");
    await bare.turn("warm up");
    for (let i = 0; i < sizes.warmup + sizes.turns; i++) {
      let start = performance.now();
      await bare.turn(`turn ${i}`);
      const a = performance.now() - start;
      start = performance.now();
      const result = await session.send(`turn ${i}`);
      const b = performance.now() - start;
      if (result.response !== `Echo: turn ${i}`) throw new Error(`Unexpected: ${result.response}`);
      if (i >= sizes.warmup) {
        bareMs.push(a);
        heraldMs.push(b);
      }
    }
  } finally {
    await session.close();
    await bare.close();
    store.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return {
    ...sizes,
    bareMedianMs: quantile(bareMs, 0.5),
    bareP90Ms: quantile(bareMs, 0.9),
    heraldMedianMs: quantile(heraldMs, 0.5),
    heraldP90Ms: quantile(heraldMs, 0.9),
  };
}

/** The Markdown report for docs/BENCHMARKS.md. */
export function formatCodexTurnReport(result: CodexTurnResult, heading: string): string {
  const ms = (value: number) => value.toFixed(1);
  const overhead = result.heraldMedianMs - result.bareMedianMs;
  return [
    `## Codex turn overhead (${heading})`,
    "",
    `A short text turn on a warm \`codex app-server\` 0.169.0 against the scripted Responses model, ` +
    `${result.turns} turns each after ${result.warmup} warm-up turns, alternating. ` +
    "Command: `deno run -A bench/codex_turn.ts`.",
    "",
    "| turn | median ms | p90 ms |",
    "| --- | --- | --- |",
    `| through Herald's Codex session (peer, events, items stored) | **${
      ms(result.heraldMedianMs)
    }** | ${ms(result.heraldP90Ms)} |`,
    `| bare client: the codex process's own time (baseline) | ${ms(result.bareMedianMs)} | ${
      ms(result.bareP90Ms)
    } |`,
    "",
    `Herald's overhead per turn (difference of the medians): **${ms(overhead)} ms**; ratio ` +
    `**${(result.heraldMedianMs / result.bareMedianMs).toFixed(2)}x**.`,
    "",
  ].join("\n");
}

/** Runs the bench and returns the report. */
export async function codexTurnReport(sizes: CodexTurnSizes, heading: string): Promise<string> {
  return formatCodexTurnReport(await benchCodexTurn(sizes), heading);
}

if (import.meta.main) {
  const heading = `${
    new Date().toISOString().slice(0, 10)
  }, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;
  console.log(await codexTurnReport(codexTurnSizes(Deno.args.includes("--quick")), heading));
}
