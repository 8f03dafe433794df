/**
 * `/api/ws`: the JSON-RPC 2.0 gateway over a WebSocket (text frames, one
 * JSON request or batch per frame; see server/ws/gateway.ts for the
 * methods and notifications). The token (`?token=`) and the origin guard
 * are checked by the app's middleware before the upgrade. `?profile=` sets
 * the connection's default profile for calls that name none.
 *
 * Limits and close codes: server/ws/limits.ts (messages over 1 MiB: 1009,
 * binary messages: 1003, a client that stops reading: 1008). A text frame
 * that is not UTF-8 is dropped by Deno itself without a close frame. A
 * dashboard that stops closes the socket with 1001 and aborts its turns
 * (`deps.sockets`, server/ws/live.ts).
 *
 * Every connection's conversations publish to the server's one event bus
 * (`deps.events`; createApp makes one when the server's deps bring none), which
 * `events.subscribe` watches (server/ws/methods/events.ts).
 *
 * @module
 */

import type { Hono } from "hono";
import { upgradeWebSocket } from "hono/deno";
import type { RouteDeps } from "../deps.ts";
import { scopedProfile } from "../profile_scope.ts";
import { GatewayConnection } from "../ws/gateway.ts";
import { upgradeRequired } from "../ws/upgrade.ts";

/** Registers the ws routes. */
export function registerWsRoutes(app: Hono, deps: RouteDeps): void {
  app.get(
    "/api/ws",
    upgradeWebSocket((c) => {
      let connection: GatewayConnection | undefined;
      let forget = () => {};
      return {
        onOpen(_event, ws) {
          const opened = new GatewayConnection({
            socket: ws.raw as WebSocket,
            env: deps.env,
            cwd: deps.cwd ?? Deno.cwd(),
            events: deps.events,
            pinnedProfile: deps.pinnedProfile,
            // A profile named in the call wins over the connection's ?profile=.
            resolveProfile: (profile) =>
              scopedProfile(c, deps, profile === undefined ? undefined : { profile }),
          });
          connection = opened;
          forget = deps.sockets?.add({ goAway: () => opened.goAway() }) ?? forget;
        },
        onMessage(event) {
          connection?.receive(event.data).catch(() => {});
        },
        onClose() {
          forget();
          connection?.close().catch(() => {});
        },
      };
    }),
  );
  app.get("/api/ws", upgradeRequired);
}
