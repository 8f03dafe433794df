/**
 * One channel as the gateway runner runs it: its state for `gateway
 * status`, and starting it again with backoff when it fails to start.
 *
 * @module
 */

import type { Channel, ChannelClock, ChannelHost, ChannelState } from "../channels/contract.ts";
import { errorText } from "../../core/errors.ts";

/** One platform as `herald gateway status` shows it. */
export interface PlatformStatus {
  platform: string;
  label: string;
  state: ChannelState;
  /** Why it last failed (fit for the user, never a secret). */
  lastError?: string;
  /** When it entered `state` (ms since the epoch). */
  since: number;
  /**
   * Why sending replies fails, while it does (a timeout, a 5xx, a dropped
   * connection: the replies wait and are retried); cleared by a send that works.
   */
  sendError?: string;
  /** Since when sends have been failing (ms since the epoch). */
  sendFailingSince?: number;
}

/** The first wait before a channel that failed to start is started again (ms); it doubles up to 5 min. */
export const RESTART_BASE_MS = 5000;
const RESTART_MAX_MS = 5 * 60 * 1000;

/** A channel, its state, and its restarts. */
export class PlatformLink {
  readonly channel: Channel;
  #status: PlatformStatus;
  readonly #clock: ChannelClock;
  readonly #log: (line: string) => void;
  #restarts = 0;
  #timer: unknown;
  #stopped = false;

  /** Creates the link of `channel`, `stopped` until {@link start}. */
  constructor(channel: Channel, clock: ChannelClock, log: (line: string) => void) {
    this.channel = channel;
    this.#clock = clock;
    this.#log = log;
    this.#status = {
      platform: channel.id,
      label: channel.label,
      state: "stopped",
      since: clock.now(),
    };
  }

  /** The platform's state now (a copy). */
  get status(): PlatformStatus {
    return { ...this.#status };
  }

  /**
   * Starts the channel with `host` (whose `setState` should call
   * {@link setState}); when it fails, the state says why and it is started
   * again after a backoff, until {@link stop}. Never rejects.
   */
  async start(host: ChannelHost): Promise<void> {
    const { channel } = this;
    if (!channel.start) {
      this.setState("connected");
      return;
    }
    this.setState("starting");
    try {
      await channel.start(host);
      if (this.#stopped) return;
      if (this.#status.state === "starting") this.setState("connected");
      this.#restarts = 0;
    } catch (error) {
      if (this.#stopped) return;
      const reason = errorText(error);
      this.#restarts++;
      const delay = Math.min(RESTART_BASE_MS * 2 ** (this.#restarts - 1), RESTART_MAX_MS);
      this.setState("retrying", reason);
      this.#log(`${channel.id}: could not start (${reason}); trying again in ${delay} ms`);
      this.#timer = this.#clock.setTimeout(() => {
        this.#timer = undefined;
        if (!this.#stopped) void this.start(host);
      }, delay);
    }
  }

  /**
   * Records how a send to the platform went: `error` (a passing failure)
   * marks sends as failing, shown by `gateway status` until a send works.
   * A change is logged.
   */
  noteSend(error?: string): void {
    const previous = this.#status;
    if (error === undefined) {
      if (previous.sendError === undefined) return;
      const { sendError: _error, sendFailingSince: _since, ...rest } = previous;
      this.#status = rest;
      this.#log(`${previous.platform}: sending works again`);
      return;
    }
    if (previous.sendError === undefined) {
      this.#log(`${previous.platform}: sending fails (${error}); replies wait and are retried`);
    }
    this.#status = {
      ...previous,
      sendError: error,
      sendFailingSince: previous.sendFailingSince ?? this.#clock.now(),
    };
  }

  /** Records the channel's state (and why it failed); a change is logged. */
  setState(state: ChannelState, error?: string): void {
    const previous = this.#status;
    const lastError = error ?? (state === "connected" ? undefined : previous.lastError);
    this.#status = {
      platform: previous.platform,
      label: previous.label,
      state,
      ...(lastError === undefined ? {} : { lastError }),
      since: state === previous.state ? previous.since : this.#clock.now(),
      ...(previous.sendError === undefined
        ? {}
        : { sendError: previous.sendError, sendFailingSince: previous.sendFailingSince }),
    };
    if (state !== previous.state || error !== previous.lastError) {
      this.#log(`${previous.platform}: ${state}${error ? ` (${error})` : ""}`);
    }
  }

  /** Stops restarting and stops the channel; a failing stop is logged. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      await this.channel.stop?.();
    } catch (error) {
      this.#log(`${this.channel.id}: stopping failed: ${errorText(error)}`);
    }
    this.setState("stopped");
  }
}
