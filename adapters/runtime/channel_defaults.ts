/**
 * What the composition hands a channel when nothing else is given: real
 * time ({@link SYSTEM_CLOCK}) and, where no listener may be opened,
 * {@link noListener}. Only the program running the gateway opens listeners
 * (cli/listen.ts); a one-off channel (`herald send`, the dashboard's test
 * call) gets the refusal.
 *
 * @module
 */

import type { ChannelClock } from "../../core/channels/contract.ts";

/** The clock of real time. */
export const SYSTEM_CLOCK: ChannelClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

/**
 * Refuses to open a listener.
 *
 * @throws Error always, saying which process opens listeners.
 */
export function noListener(): never {
  throw new Error("this process opens no listeners; the gateway (herald gateway run) does");
}
