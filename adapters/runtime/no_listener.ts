/**
 * The channel context's `listen` where no listener may be opened: only the
 * program running the gateway opens listeners (cli/listen.ts); a one-off
 * channel (`herald send`, the dashboard's test call) gets this refusal.
 *
 * @module
 */

/**
 * Refuses to open a listener.
 *
 * @throws Error always, saying which process opens listeners.
 */
export function noListener(): never {
  throw new Error("this process opens no listeners; the gateway (herald gateway run) does");
}
