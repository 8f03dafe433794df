/**
 * What a channel under test is started with: a host that records what the
 * channel hands the gateway, and a context on a fake clock
 * (@sinonjs/fake-timers) so timers run under fake time while the HTTP to the
 * fake platform is real.
 *
 * @module
 */

import { listenHttp } from "../../../cli/listen.ts";
import type FakeTimers from "@sinonjs/fake-timers";
import type {
  ChannelContext,
  ChannelHost,
  ChannelState,
  InboundMessage,
} from "../../../core/channels/contract.ts";

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

  /** Aborts {@link signal}, as the gateway does when it stops. */
  abort(): void {
    this.#controller.abort();
  }

  /** The last state the channel reported. */
  get state(): ChannelState | undefined {
    return this.states.at(-1)?.state;
  }

  /** Resolves once `count` messages arrived in all. */
  async messageCount(count: number): Promise<InboundMessage[]> {
    await until(() => this.messages.length >= count, `${count} inbound message(s)`);
    return this.messages;
  }

  /** Resolves once the channel reported `count` states in all. */
  async stateCount(count: number): Promise<void> {
    await until(
      () => this.states.length >= count,
      `${count} state changes (have ${JSON.stringify(this.states)})`,
    );
  }
}

/**
 * A context for `env` on `clock`, logging into `logs`; it opens no
 * conversations (the channels under test hand messages to the host).
 */
export function channelContext(
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
    conversations: {
      open: () => Promise.reject(new Error("The channel under test opens no conversations")),
    },
    listen: listenHttp,
  };
}
