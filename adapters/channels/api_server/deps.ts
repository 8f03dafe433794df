/**
 * What the API server's handlers work with: the settings, the profile's
 * conversations, the response store, a clock and the gateway's log.
 *
 * @module
 */

import type { ChannelClock, ConversationOpener } from "../../../core/channels/contract.ts";
import type { ResponseStore } from "./response_store.ts";
import type { KeyedSerial } from "./serial.ts";
import type { ApiServerSettings } from "./settings.ts";

/** What {@link createApiServerApp} (app.ts) and its handlers are given. */
export interface ApiServerDeps {
  settings: ApiServerSettings;
  /** Opens the conversations the turns run in. */
  conversations: ConversationOpener;
  store: ResponseStore;
  /** Turns that continue the same session run one at a time. */
  serial: KeyedSerial;
  clock: ChannelClock;
  /** The gateway's log (never a secret). */
  log(message: string): void;
  /** Aborts when the server stops: running turns are interrupted. */
  stop: AbortSignal;
  /** When the server started (ms since the epoch): the listed model's `created`. */
  startedAt: number;
}
