/**
 * The agent's own overhead per tool round trip: one user turn in which an
 * instantly answering model calls a tool N times, through the real turn loop
 * (SQLite store, transcript files, tool registry), against the same model
 * requests replayed straight to the same client. The difference divided by
 * N is what Herald adds per round trip beyond the model's time.
 *
 * @module
 */

import { join } from "node:path";
import { AgentSession } from "../core/agent/session.ts";
import { buildSystemPrompt } from "../core/agent/prompt.ts";
import type { ModelClient, ModelRequest } from "../core/models/types.ts";
import { ToolRegistry } from "../core/tools/registry.ts";
import { ensureProfileHome, profilePaths, profileSessionFiles } from "../adapters/home/mod.ts";
import { createModelClient } from "../adapters/models/mod.ts";
import { openStateStore } from "../adapters/sqlite/mod.ts";
import { builtinTools } from "../adapters/tools/mod.ts";
import { startModelServer } from "../tests/fakes/model_server.ts";

/** Figures of one round-trip measurement. */
export interface RoundTripResult {
  roundTrips: number;
  agentMs: number;
  modelOnlyMs: number;
  overheadPerRoundTripMs: number;
}

function recording(client: ModelClient, requests: ModelRequest[]): ModelClient {
  return {
    provider: client.provider,
    model: client.model,
    complete(request, handlers) {
      requests.push({ ...request, messages: [...request.messages] });
      return client.complete(request, handlers);
    },
  };
}

/** Runs one turn of `roundTrips` tool calls and the replayed model-only baseline. */
export async function benchRoundTrips(roundTrips = 200): Promise<RoundTripResult> {
  const dir = await Deno.makeTempDir({ prefix: "herald-bench-" });
  await using server = await startModelServer();
  const paths = profilePaths(dir, "default");
  await ensureProfileHome(paths);
  const store = openStateStore(paths.stateDb);
  try {
    const script = () => [
      ...Array.from({ length: roundTrips }, (_, i) => ({
        toolCalls: [{ name: "read_file", arguments: { path: "notes.txt", limit: 5 } }],
        text: i === 0 ? "Reading." : "",
      })),
      { text: "Done." },
    ];
    await Deno.writeTextFile(join(dir, "notes.txt"), "one\ntwo\nthree\n");
    const client = createModelClient({
      provider: "custom",
      model: "bench",
      baseUrl: server.openaiBaseUrl,
      maxRetries: 0,
    });
    const requests: ModelRequest[] = [];
    const tools = new ToolRegistry(builtinTools());
    const session = AgentSession.start({
      client: recording(client, requests),
      store,
      tools,
      files: profileSessionFiles(paths),
      approve: () => Promise.resolve("deny"),
      cwd: dir,
      home: dir,
      source: "bench",
      systemPrompt: buildSystemPrompt({
        cwd: dir,
        date: "2026-01-01",
        toolNames: tools.specs().map((s) => s.name),
      }),
      maxTurns: roundTrips + 5,
      verifyFileMutations: true,
      dumpRequests: false,
    });

    server.enqueue(...script());
    const agentStart = performance.now();
    const result = await session.send("read it many times");
    const agentMs = performance.now() - agentStart;
    if (result.modelCalls !== roundTrips + 1) {
      throw new Error(`expected ${roundTrips + 1} model calls, got ${result.modelCalls}`);
    }

    server.enqueue(...script());
    const modelStart = performance.now();
    for (const request of requests) await client.complete(request);
    const modelOnlyMs = performance.now() - modelStart;
    return {
      roundTrips,
      agentMs,
      modelOnlyMs,
      overheadPerRoundTripMs: (agentMs - modelOnlyMs) / roundTrips,
    };
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}
