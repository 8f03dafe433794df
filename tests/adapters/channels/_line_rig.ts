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
  ChatAddress,
  InboundMessage,
} from "../../../core/channels/contract.ts";
import { plugin } from "../../../adapters/channels/line/mod.ts";
import type { LineChannel } from "../../../adapters/channels/line/channel.ts";
import { type FakeLine, startFakeLine } from "../../fakes/line_api.ts";
import { tempDir } from "../../_helpers.ts";
import { channelContext, RecordingHost } from "./_host.ts";

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
  const context = channelContext(lineEnv(fake, extra), clock, contextLogs, dir.path);
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
