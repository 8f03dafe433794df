/**
 * The LINE channel under test: created through the plugin from a profile
 * environment pointing at the fake LINE platform (tests/fakes/line_api.ts),
 * started with a host that records what it receives, on a fake clock
 * (@sinonjs/fake-timers) so the slow-response machine runs under fake time
 * while the HTTP is real.
 *
 * @module
 */

import FakeTimers from "@sinonjs/fake-timers";
import type {
  ChannelContext,
  ChannelHost,
  ChannelState,
  ChatAddress,
  InboundMessage,
} from "../../../core/channels/contract.ts";
import { plugin } from "../../../adapters/channels/line/mod.ts";
import type { LineChannel } from "../../../adapters/channels/line/channel.ts";
import { type FakeLine, startFakeLine } from "../../fakes/line_api.ts";
import { tempDir } from "../../_helpers.ts";

/** Waits (real time) until `done` holds; fails saying what it waited for. */
export async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A gateway stand-in that records what the channel hands it. */
export class RecordingHost implements ChannelHost {
  readonly messages: InboundMessage[] = [];
  readonly states: { state: ChannelState; error?: string }[] = [];
  readonly logs: string[] = [];
  readonly #controller = new AbortController();
  readonly signal: AbortSignal = this.#controller.signal;

  receive(message: InboundMessage): Promise<void> {
    this.messages.push(message);
    return Promise.resolve();
  }

  setState(state: ChannelState, error?: string): void {
    this.states.push({ state, ...(error === undefined ? {} : { error }) });
  }

  log(message: string): void {
    this.logs.push(message);
  }

  /** Resolves once `count` messages arrived in all. */
  async messageCount(count: number): Promise<InboundMessage[]> {
    await until(() => this.messages.length >= count, `${count} inbound message(s)`);
    return this.messages;
  }
}

/** A running channel, its fake platform, host and clock. */
export interface LineRig extends AsyncDisposable {
  fake: FakeLine;
  channel: LineChannel;
  host: RecordingHost;
  clock: FakeTimers.Clock;
  context: ChannelContext;
  /** Lines logged through the context (before start). */
  contextLogs: string[];
  /** `http://127.0.0.1:<port>` of the webhook server. */
  base: string;
  /** Every log line: the host's and the context's. */
  logs(): string[];
}

/** A context for `env` on `clock` (no conversations: LINE hands messages to the host). */
export function lineContext(
  env: Record<string, string | undefined>,
  clock: FakeTimers.Clock,
  logs: string[],
  dataDir: string,
): ChannelContext {
  return {
    profile: "default",
    env: (name) => env[name],
    settings: {},
    fetch: globalThis.fetch,
    clock: {
      now: () => clock.now,
      setTimeout: (callback, ms) => clock.setTimeout(callback, ms),
      clearTimeout: (handle) => clock.clearTimeout(handle as FakeTimers.TimerId),
    },
    dataDir,
    log: (line) => logs.push(line),
    conversations: { open: () => Promise.reject(new Error("LINE does not open conversations")) },
  };
}

/** The environment that points the channel at `fake`, with `extra` on top. */
export function lineEnv(
  fake: FakeLine,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    LINE_CHANNEL_ACCESS_TOKEN: fake.token,
    LINE_CHANNEL_SECRET: fake.secret,
    LINE_PORT: "0",
    LINE_API_BASE: fake.apiBase,
    LINE_DATA_API_BASE: fake.dataBase,
    ...extra,
  };
}

/** Starts a fake LINE platform and the channel against it. */
export async function startLineRig(
  extra: Record<string, string | undefined> = {},
): Promise<LineRig> {
  const fake = await startFakeLine();
  const dir = await tempDir("herald-line-");
  const clock = FakeTimers.createClock(Date.now());
  const contextLogs: string[] = [];
  const context = lineContext(lineEnv(fake, extra), clock, contextLogs, dir.path);
  const channel = await plugin.create(context) as LineChannel;
  const host = new RecordingHost();
  await channel.start(host);
  const base = `http://127.0.0.1:${channel.port}`;
  fake.webhookUrl = `${base}/line/webhook`;
  return {
    fake,
    channel,
    host,
    clock,
    context,
    contextLogs,
    base,
    logs: () => [...contextLogs, ...host.logs],
    async [Symbol.asyncDispose]() {
      await channel.stop();
      await fake.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

/** The address of a one-to-one chat with `user`. */
export function userChat(user: string): ChatAddress {
  return { platform: "line", chatId: user };
}

/**
 * Plays the gateway's side of a running turn for `seconds` of fake time:
 * the typing indicator renewed every 4 s (each call awaited, so its HTTP
 * call is done before the clock moves on).
 */
export async function runTurn(
  rig: LineRig,
  message: InboundMessage,
  seconds: number,
): Promise<void> {
  let elapsed = 0;
  while (elapsed < seconds) {
    await rig.channel.outbound.typing(message.chat, message.replyContext);
    const step = Math.min(4, seconds - elapsed);
    rig.clock.tick(step * 1000);
    elapsed += step;
  }
}
