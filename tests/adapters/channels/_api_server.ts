/**
 * A real API server channel for tests: a temporary profile whose model is
 * the scripted model server, its agent runtime opened the way the
 * dashboard's gateway opens one (unattended, no one to ask), wrapped in a
 * small conversation opener, and the official `openai` SDK as the client.
 *
 * @module
 */

import { listenHttp } from "../../../cli/listen.ts";
import { join } from "node:path";
import OpenAI from "openai";
import { Conversation } from "../../../core/agent/conversation.ts";
import type {
  ChannelContext,
  ChannelHost,
  ChannelState,
  ConversationOpener,
} from "../../../core/channels/contract.ts";
import { createProfile, type ProfilePaths } from "../../../adapters/home/mod.ts";
import { openAgentRuntimeLazily } from "../../../adapters/runtime/lazy_agent_runtime.ts";
import { type ApiServerChannel, plugin } from "../../../adapters/channels/api_server/mod.ts";
import {
  type ModelServer,
  type ScriptedReply,
  startModelServer,
} from "../../fakes/model_server.ts";
import { configureModel } from "../../e2e/_herald.ts";
import { tempDir } from "../../_helpers.ts";

/** The key the test servers require. */
export const TEST_KEY = "sk-herald-test-0123456789abcdef";

/** A running API server and what it talks to. */
export interface ApiServerRig extends AsyncDisposable {
  channel: ApiServerChannel;
  /** The official SDK, pointed at the server with the right key (no retries). */
  client: OpenAI;
  /** `http://127.0.0.1:<port>` of the API server. */
  url: string;
  model: ModelServer;
  paths: ProfilePaths;
  context: ChannelContext;
  /** The gateway log lines the channel wrote. */
  logs: string[];
  states: ChannelState[];
  /** Every conversation the server opened, in order. */
  opened: Conversation[];
}

/** Options of {@link startApiServer}. */
export interface ApiServerRigOptions {
  /** The profile's name (`api` unless given). */
  profile?: string;
  /** More environment of the profile (API_SERVER_KEY and API_SERVER_PORT=0 are set). */
  env?: Record<string, string>;
  settings?: Record<string, unknown>;
}

/**
 * A conversation opener over the profile at `paths`, as the gateway's is:
 * unattended. Every conversation it opens is pushed to `opened`.
 */
export function testOpener(
  paths: ProfilePaths,
  cwd: string,
  opened: Conversation[] = [],
): ConversationOpener {
  return {
    async open(options = {}) {
      const runtime = await openAgentRuntimeLazily(paths, {
        safeMode: false,
        source: "api_server",
        cwd,
        env: { PATH: Deno.env.get("PATH") },
        approvals: {},
        unattended: true,
        onWarning() {},
      });
      const conversation = await Conversation.open({ runtime, resume: options.resume });
      opened.push(conversation);
      return conversation;
    },
  };
}

/** Starts the API server of a new temporary profile whose model answers `replies`. */
export async function startApiServer(
  replies: ScriptedReply[],
  options: ApiServerRigOptions = {},
): Promise<ApiServerRig> {
  const root = await tempDir("herald-api-");
  const model = await startModelServer({ replies });
  const paths = await createProfile(root.path, options.profile ?? "api", { bundledSkills: false });
  await configureModel(paths.home, model.openaiBaseUrl);
  const env: Record<string, string> = {
    API_SERVER_KEY: TEST_KEY,
    API_SERVER_PORT: "0",
    ...options.env,
  };
  const logs: string[] = [];
  const states: ChannelState[] = [];
  const opened: Conversation[] = [];
  const context: ChannelContext = {
    profile: paths.name,
    env: (name) => Object.hasOwn(env, name) ? env[name] : undefined,
    settings: options.settings ?? {},
    fetch,
    clock: {
      now: () => Date.now(),
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (handle) => clearTimeout(handle as number),
    },
    dataDir: join(paths.home, "gateway", "api_server"),
    log: (line) => logs.push(line),
    conversations: testOpener(paths, root.path, opened),
    listen: listenHttp,
  };
  const channel = await plugin.create(context) as ApiServerChannel;
  const stopping = new AbortController();
  const host: ChannelHost = {
    receive: () => Promise.reject(new Error("the API server never hands messages to the runner")),
    setState: (state) => states.push(state),
    log: (line) => logs.push(line),
    signal: stopping.signal,
  };
  await channel.start!(host);
  const url = channel.url!;
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${url}/v1`, maxRetries: 0 });
  return {
    channel,
    client,
    url,
    model,
    paths,
    context,
    logs,
    states,
    opened,
    async [Symbol.asyncDispose]() {
      stopping.abort();
      await channel.stop!();
      await model.close();
      await root[Symbol.asyncDispose]();
    },
  };
}

/** The messages of the `index`th request the model server received. */
export function modelMessages(
  model: ModelServer,
  index: number,
): { role: string; content: string | null }[] {
  const body = model.requests[index]?.body as { messages?: { role: string; content: string }[] };
  if (!body?.messages) throw new Error(`The model received no request ${index}`);
  return body.messages;
}

/** Waits (polling, at most `limitMs`) until `condition` holds; fails naming `what` otherwise. */
export async function eventually(
  what: string,
  condition: () => boolean,
  limitMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Still waiting for ${what} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
