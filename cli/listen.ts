/**
 * The HTTP listeners the programs open: the CLI is the one place that
 * starts listeners (DESIGN.md), so a channel that needs one (LINE's
 * webhook, the API server) asks through its context and gets it from here.
 *
 * @module
 */

import type { HttpHandler, HttpListener, ListenOptions } from "../core/channels/contract.ts";

/**
 * Opens a listener on `options.hostname:options.port` answering with
 * `handler`.
 *
 * @throws Deno.errors.AddrInUse (and the like) when the address cannot be bound.
 *
 * @example
 * ```ts
 * const listener = listenHttp({ hostname: "127.0.0.1", port: 0 }, () => new Response("ok"));
 * console.log(listener.port);
 * await listener.shutdown();
 * ```
 */
export function listenHttp(options: ListenOptions, handler: HttpHandler): HttpListener {
  const server = Deno.serve(
    { hostname: options.hostname, port: options.port, onListen: () => {} },
    handler,
  );
  return { port: server.addr.port, shutdown: () => server.shutdown() };
}
