/**
 * The messaging gateway's figures (issue 14):
 *
 * 1. Overhead per message: a message through the gateway runner, composed
 *    as `herald gateway run` composes it (adapters/runtime/gateway.ts: the
 *    SQLite delivery ledger, the chat → session file, a conversation of the
 *    profile's agent per chat) with an in-memory channel
 *    (bench/_gateway_channel.ts), from `host.receive` to `outbound.send`,
 *    against a direct turn of a conversation opened on the same profile, the
 *    two alternating in one run, the scripted model answering at once.
 * 2. Chats at once: a real `herald gateway run` against the fake Telegram
 *    Bot API; every chat writes at the same moment and must get exactly the
 *    answer the model gave to its own message (bench/_gateway_load.ts).
 * 3. Memory: the same kind of process answering many messages, its RSS
 *    after the first 1,000 and after all of them.
 *
 * Alone: `deno run -A bench/gateway.ts [--quick]` (`--quick`: 50 messages,
 * 20 chats, 2,000 messages for the RSS run). Sizes come from
 * `BENCH_GATEWAY_MESSAGES` (default 200), `BENCH_GATEWAY_CHATS` (100),
 * `BENCH_GATEWAY_RSS_MESSAGES` (10,000) and `BENCH_GATEWAY_RSS_CHATS` (50);
 * `BENCH_GATEWAY_RSS_NEW_EVERY=n` makes every n-th message of a chat in the
 * memory runs `/new`, so no history grows past n turns;
 * `BENCH_GATEWAY_PROBE=1` runs the memory measurement a second time with a
 * probe in the process that tells live memory from memory the allocators
 * keep (bench/_gateway_probe.ts).
 *
 * @module
 */

import { Conversation } from "../core/agent/conversation.ts";
import { ensureProfileHome, profilePaths } from "../adapters/home/mod.ts";
import { openAgentRuntime } from "../adapters/runtime/agent_runtime.ts";
import { composeGateway } from "../adapters/runtime/gateway.ts";
import type { GatewayRunner } from "../core/gateway/mod.ts";
import { startModelServer } from "../tests/fakes/model_server.ts";
import { createMemoryChannel, MEMORY_PLATFORM, type MemorySend } from "./_gateway_channel.ts";
import { benchConfig } from "./_gateway_rig.ts";
import {
  benchGatewayChats,
  benchGatewayRss,
  type ChatsResult,
  type RssResult,
  type RssSample,
} from "./_gateway_load.ts";

/** Figures of the overhead run. */
export interface OverheadResult {
  /** Measured messages (after the warm-up), each through both paths. */
  messages: number;
  warmup: number;
  directMedianMs: number;
  directP95Ms: number;
  gatewayMedianMs: number;
  gatewayP95Ms: number;
  /** Median of (gateway time − direct time) over the pairs. */
  overheadMedianMs: number;
  /** 95th percentile of (gateway time − direct time) over the pairs. */
  overheadP95Ms: number;
}

/** The value at quantile `q` (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Resolves once the runner has nothing running, waiting or undelivered. */
async function settled(runner: GatewayRunner): Promise<void> {
  for (;;) {
    const status = runner.status();
    if (status.running === 0 && status.queued === 0 && status.undelivered === 0) return;
    await tick();
  }
}

/**
 * Runs `warmup + messages` messages through the gateway and as many direct
 * turns, alternating (which goes first swaps every message), one at a time.
 */
export async function benchGatewayOverhead(messages = 200, warmup = 20): Promise<OverheadResult> {
  const root = await Deno.makeTempDir({ prefix: "herald-bench-" });
  await using model = await startModelServer();
  const paths = profilePaths(root, "default");
  await ensureProfileHome(paths);
  await Deno.writeTextFile(
    paths.config,
    benchConfig(
      model.openaiBaseUrl,
      `  ${MEMORY_PLATFORM}:\n    enabled: true\n    allowed_users: ["7"]\n`,
    ),
  );
  const env = { ...Deno.env.toObject(), HERALD_HOME: root };
  const logs: string[] = [];
  const log = (line: string) => {
    logs.push(line);
    if (logs.length > 50) logs.shift();
  };
  const runtime = await openAgentRuntime(paths, {
    safeMode: false,
    source: "bench",
    cwd: root,
    env,
    unattended: true,
    approvals: {},
    onWarning: (file, message) => log(`warning: ${file}: ${message}`),
  });
  const direct = await Conversation.open({ runtime });
  const memory = createMemoryChannel();
  const gateway = await composeGateway({
    paths,
    root,
    env,
    cwd: root,
    pid: Deno.pid,
    log,
    plugins: [memory.plugin],
  });
  let waiting: ((send: MemorySend) => void) | undefined;
  memory.onSend((send) => waiting?.(send));
  const problem = (what: string) =>
    new Error(`${what}; the gateway's last log lines:\n${logs.join("\n")}`);

  const directTurn = async (i: number) => {
    const expected = `Direct answer ${i}.`;
    model.enqueue({ text: expected });
    const start = performance.now();
    const result = await direct.input(`direct message ${i}`);
    const ms = performance.now() - start;
    const text = result.kind === "turn" ? result.result.response : result.text;
    if (text !== expected) throw problem(`the direct turn answered "${text}", not "${expected}"`);
    return ms;
  };
  const gatewayMessage = async (i: number) => {
    const expected = `Gateway answer ${i}.`;
    model.enqueue({ text: expected });
    const sent = new Promise<MemorySend>((resolve) => waiting = resolve);
    const start = await memory.say("7", "7", `gateway message ${i}`);
    const send = await sent;
    waiting = undefined;
    if (send.texts.join("\n") !== expected || send.to.chatId !== "7") {
      throw problem(`the gateway sent ${JSON.stringify(send)}, not "${expected}" to chat 7`);
    }
    // The delivery is marked in the ledger after the send: let it finish before the next.
    await settled(gateway.runner);
    return send.at - start;
  };

  try {
    await gateway.runner.start();
    const directMs: number[] = [];
    const gatewayMs: number[] = [];
    for (let i = 0; i < warmup + messages; i++) {
      let d: number, g: number;
      if (i % 2 === 0) {
        d = await directTurn(i);
        g = await gatewayMessage(i);
      } else {
        g = await gatewayMessage(i);
        d = await directTurn(i);
      }
      // The server keeps every request; the figures need none of them.
      model.requests.length = 0;
      if (i < warmup) continue;
      directMs.push(d);
      gatewayMs.push(g);
    }
    const differences = gatewayMs.map((g, i) => g - directMs[i]);
    return {
      messages,
      warmup,
      directMedianMs: quantile(directMs, 0.5),
      directP95Ms: quantile(directMs, 0.95),
      gatewayMedianMs: quantile(gatewayMs, 0.5),
      gatewayP95Ms: quantile(gatewayMs, 0.95),
      overheadMedianMs: quantile(differences, 0.5),
      overheadP95Ms: quantile(differences, 0.95),
    };
  } finally {
    await gateway.runner.stop();
    gateway.close();
    await direct.close();
    await Deno.remove(root, { recursive: true });
  }
}

/** Sizes of a gateway bench run. */
export interface GatewayBenchSizes {
  /** Messages of the overhead run (after 20 warm-up ones). */
  messages: number;
  /** Chats writing at once. */
  chats: number;
  /** Messages of the RSS run (the first reading is after 1,000, or a tenth when fewer). */
  rssMessages: number;
  /** Chats of the RSS run. */
  rssChats: number;
  /** Every n-th message of a chat in the RSS runs is `/new` (0: never), bounding its history. */
  rssNewEvery: number;
  /** Run the RSS measurement again with the memory probe (`BENCH_GATEWAY_PROBE=1`). */
  probe: boolean;
}

/** The sizes from the environment (see the module documentation); `quick` for small ones. */
export function gatewayBenchSizes(quick = false): GatewayBenchSizes {
  const size = (name: string, full: number, small: number) =>
    Number(Deno.env.get(name) ?? String(quick ? small : full));
  return {
    messages: size("BENCH_GATEWAY_MESSAGES", 200, 50),
    chats: size("BENCH_GATEWAY_CHATS", 100, 20),
    rssMessages: size("BENCH_GATEWAY_RSS_MESSAGES", 10_000, 2_000),
    rssChats: size("BENCH_GATEWAY_RSS_CHATS", 50, 20),
    rssNewEvery: size("BENCH_GATEWAY_RSS_NEW_EVERY", 0, 0),
    probe: Deno.env.get("BENCH_GATEWAY_PROBE") === "1",
  };
}

const ms = (value: number) => value.toFixed(2);

/** The Markdown report of the three measurements, under `heading` (date and machine). */
export function formatGatewayReport(
  overhead: OverheadResult,
  chats: ChatsResult,
  rss: RssResult,
  heading: string,
  probe?: RssResult,
): string {
  return [
    `## Messaging gateway (${heading})`,
    "",
    `Overhead per message: ${overhead.messages} messages after ${overhead.warmup} warm-up ones, ` +
    "one at a time, the scripted model answering at once. The gateway path is the runner as " +
    "`herald gateway run` composes it (SQLite delivery ledger, chat sessions file, one " +
    "conversation per chat) with an in-memory channel, from `host.receive` to `outbound.send`; " +
    "the baseline is a direct turn of a conversation on the same profile, alternating with it.",
    "",
    "| path | median ms | p95 ms |",
    "| --- | --- | --- |",
    `| direct conversation turn | ${ms(overhead.directMedianMs)} | ${ms(overhead.directP95Ms)} |`,
    `| gateway, receive to send | ${ms(overhead.gatewayMedianMs)} | ${ms(overhead.gatewayP95Ms)} |`,
    `| difference per message (gateway − direct) | **${ms(overhead.overheadMedianMs)}** | ${
      ms(overhead.overheadP95Ms)
    } |`,
    "",
    `Gateway overhead per message, median: **${ms(overhead.overheadMedianMs)} ms** ` +
    "(target: at most 5 ms).",
    "",
    `Chats at once: a real \`herald gateway run\` against the fake Telegram Bot API on 127.0.0.1; ` +
    `${chats.chats} users each write in their own chat at the same moment, in ` +
    `${chats.roundsMs.length} rounds (the first opens each chat's conversation), after one ` +
    "warm-up chat was answered. Every chat must get exactly the answer the model gave to its " +
    "own message.",
    "",
    "| round | chats | wall time until every chat was answered ms |",
    "| --- | --- | --- |",
    ...chats.roundsMs.map((wall, i) => `| ${i + 1} | ${chats.chats} | ${ms(wall)} |`),
    "",
    `Answers right: **${chats.answered} of ${chats.chats * chats.roundsMs.length}**; lost: ` +
    `**${chats.lost}**, misrouted or doubled: **${chats.misrouted}**.`,
    "",
    `Memory: another \`herald gateway run\` answering ${rss.messages} messages in ${rss.chats} ` +
    "chats (each chat writes its next message once answered" +
    (rss.newSessionEvery > 0
      ? `; every ${rss.newSessionEvery}th message of a chat is \`/new\`, so no history grows ` +
        `past ${rss.newSessionEvery} turns`
      : "; each chat's history grows to its share of the messages") +
    `), VmRSS from /proc ${rss.settleMs / 1000} s after each count was answered.`,
    "",
    "| messages answered | VmRSS MB |",
    "| --- | --- |",
    ...rss.samples.map((sample) => `| ${sample.messages} | ${sample.rssMb.toFixed(1)} |`),
    "",
    `VmRSS after ${rss.messages} against after ${rss.firstMessages}: **${percent(rss)}** ` +
    `(target: within 10%); ${rss.messages} messages answered in ` +
    `${(rss.wallMs / 1000).toFixed(1)} s.`,
    "",
    ...(probe ? formatProbe(probe) : []),
  ].join("\n");
}

/** `+12.3%`: the last reading against the first after a step. */
function percent(rss: RssResult, read = (sample: RssSample) => sample.rssMb): string {
  const first = rss.samples.find((sample) => sample.messages === rss.firstMessages)!;
  const growth = (read(rss.samples[rss.samples.length - 1]) / read(first) - 1) * 100;
  return `${growth >= 0 ? "+" : ""}${growth.toFixed(1)}%`;
}

/** The lines of the probed memory run. */
function formatProbe(rss: RssResult): string[] {
  const mb = (value: number | undefined) => value === undefined ? "-" : value.toFixed(1);
  return [
    `The same run with the memory probe preloaded (\`BENCH_GATEWAY_PROBE=1\`, ` +
    "bench/_gateway_probe.ts): after each VmRSS reading the process collects its garbage, " +
    "reads its JavaScript heap and glibc's malloc figures, and returns malloc's free pages " +
    "to the system (`malloc_trim(0)`).",
    "",
    "| messages answered | VmRSS MB | after GC MB | after GC and trim MB | JS heap live MB | " +
    "JS heap committed MB | malloc in use MB | malloc free (kept) MB |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rss.samples.map(({ messages, rssMb, probe }) =>
      `| ${messages} | ${mb(rssMb)} | ${mb(probe?.rssMb)} | ${mb(probe?.trimmedRssMb)} | ${
        mb(probe?.heapUsedMb)
      } | ${mb(probe?.heapTotalMb)} | ${mb(probe?.mallocInUseMb)} | ${mb(probe?.mallocFreeMb)} |`
    ),
    "",
    `After ${rss.messages} against after ${rss.firstMessages}: VmRSS after GC and trim ` +
    `**${percent(rss, (sample) => sample.probe?.trimmedRssMb ?? NaN)}**, JS heap live ` +
    `${percent(rss, (sample) => sample.probe?.heapUsedMb ?? NaN)}, malloc in use ` +
    `${percent(rss, (sample) => sample.probe?.mallocInUseMb ?? NaN)}.`,
    "",
  ];
}

/** Runs the three measurements and returns the report. */
export async function gatewayReport(sizes: GatewayBenchSizes, heading: string): Promise<string> {
  const overhead = await benchGatewayOverhead(sizes.messages);
  const chats = await benchGatewayChats(sizes.chats);
  const newSessionEvery = sizes.rssNewEvery;
  const rss = await benchGatewayRss(sizes.rssMessages, sizes.rssChats, { newSessionEvery });
  const probe = sizes.probe
    ? await benchGatewayRss(sizes.rssMessages, sizes.rssChats, { probe: true, newSessionEvery })
    : undefined;
  return formatGatewayReport(overhead, chats, rss, heading, probe);
}

if (import.meta.main) {
  const sizes = gatewayBenchSizes(Deno.args.includes("--quick"));
  const heading = `${
    new Date().toISOString().slice(0, 10)
  }, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`;
  console.log(await gatewayReport(sizes, heading));
}

export type { ChatsResult, RssResult } from "./_gateway_load.ts";
