/**
 * Context compression's own cost, without the model call: a session with a
 * long history (a user message, then four tool calls with 2 KB results,
 * over and over) runs `/compact` with a summariser that answers at once. Timed:
 * estimating the request, planning the cut, writing the summariser's
 * prompt, storing the checkpoint in state.db and estimating again. Also
 * timed: the pure part alone (plan and prompt), and building the compressed
 * request a model call then sends (head, note, tail, pairs checked).
 *
 * @module
 */

import { join } from "node:path";
import {
  compactedMessages,
  contextWindowResolver,
  planCompaction,
  summaryPrompt,
} from "../core/agent/compression.ts";
import { AgentSession, type AgentSessionOptions } from "../core/agent/session.ts";
import type { ChatMessage, ModelClient } from "../core/models/types.ts";
import type { NewMessage } from "../core/sessions/store.ts";
import { ToolRegistry } from "../core/tools/registry.ts";
import { openStateStore } from "../adapters/sqlite/mod.ts";
import { builtinTools } from "../adapters/tools/mod.ts";

/** Figures of one compression measurement, in milliseconds. */
export interface CompressionBenchResult {
  /** Messages in the history compressed. */
  messages: number;
  /** Messages the summary replaced (the rest are head and tail). */
  summarised: number;
  runs: number;
  /** `/compact` end to end with an instant summariser, state.db write included. */
  compactMedianMs: number;
  compactP90Ms: number;
  /** Planning the cut and writing the summariser's prompt, no I/O. */
  pureMedianMs: number;
  /** Building the request messages of one model call once compressed. */
  requestMedianMs: number;
}

function median(values: number[]): number {
  return quantile(values, 0.5);
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** A history of `count` messages shaped like a working session. */
function history(count: number): NewMessage[] {
  const messages: NewMessage[] = [];
  const result = "line of a file that the agent read while working on the task\n".repeat(32);
  for (let i = 0; messages.length < count; i++) {
    if (i % 5 === 0) {
      messages.push({
        role: "user",
        content: `Step ${i}: carry on with the refactor of module ${i}.`,
      });
      continue;
    }
    const id = `call_${i}`;
    messages.push({
      role: "assistant",
      content: `Reading src/module_${i}.ts to see what it exports.`,
      toolCalls: [{ id, name: "read_file", arguments: `{"path":"src/module_${i}.ts"}` }],
    });
    if (messages.length < count) {
      messages.push({ role: "tool", content: result, toolCallId: id, toolName: "read_file" });
    }
  }
  return messages;
}

/** A client that must never be called: compression's cost excludes the model. */
const NO_MODEL: ModelClient = {
  provider: "custom",
  model: "bench",
  complete: () => Promise.reject(new Error("the bench never calls the model")),
};

const SUMMARY = "## Goal\nRefactor the modules.\n## Progress\n### Done\nRead them all.\n" +
  "## Next Steps\nWrite the new exports.";

/**
 * Runs `/compact` on `runs` fresh sessions of `count` messages each and
 * times the pure parts separately.
 */
export async function benchCompression(
  count = 200,
  runs = 30,
): Promise<CompressionBenchResult> {
  const dir = await Deno.makeTempDir({ prefix: "herald-bench-compression-" });
  const store = openStateStore(join(dir, "state.db"));
  try {
    const messages = history(count);
    const options: AgentSessionOptions = {
      client: NO_MODEL,
      store,
      compactions: store,
      tools: new ToolRegistry(builtinTools()),
      approve: () => Promise.resolve("deny"),
      cwd: dir,
      home: dir,
      source: "bench",
      systemPrompt: "You are a bench.\n",
      maxTurns: 1,
      verifyFileMutations: false,
      dumpRequests: false,
      compression: {
        enabled: true,
        threshold: 0.5,
        protectFirst: 3,
        protectLast: 20,
        contextWindow: contextWindowResolver(128_000),
        summarize: () => Promise.resolve(SUMMARY),
      },
    };
    const compactTimes: number[] = [];
    let summarised = 0;
    for (let run = 0; run < runs + 3; run++) {
      const id = store.createSession({ source: "bench", systemPrompt: "You are a bench.\n" }).id;
      store.appendMessages(id, messages);
      const session = AgentSession.resume(options, id);
      const started = performance.now();
      const done = await session.compact();
      const elapsed = performance.now() - started;
      if (!done.ok) throw new Error(`compact did nothing: ${done.message}`);
      summarised = done.summarised;
      if (run >= 3) compactTimes.push(elapsed); // the first runs warm up
    }

    const chat: ChatMessage[] = AgentSession.resume(
      options,
      store.listSessions({ limit: 1 })[0].id,
    ).history as ChatMessage[];
    const pureTimes: number[] = [];
    const requestTimes: number[] = [];
    for (let run = 0; run < runs + 3; run++) {
      let started = performance.now();
      const plan = planCompaction(chat, undefined, { protectFirst: 3, protectLast: 20 })!;
      summaryPrompt(chat, plan, { maxChars: 300_000, maxTokens: 8_192 });
      const pure = performance.now() - started;
      started = performance.now();
      compactedMessages(chat, {
        ...plan,
        summary: SUMMARY,
        summarisedCount: plan.tailStart - plan.middleStart,
      });
      const request = performance.now() - started;
      if (run >= 3) {
        pureTimes.push(pure);
        requestTimes.push(request);
      }
    }
    return {
      messages: count,
      summarised,
      runs,
      compactMedianMs: median(compactTimes),
      compactP90Ms: quantile(compactTimes, 0.9),
      pureMedianMs: median(pureTimes),
      requestMedianMs: median(requestTimes),
    };
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}
