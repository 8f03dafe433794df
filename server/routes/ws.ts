/**
 * `/api/ws`: the JSON-RPC 2.0 gateway over a WebSocket (text frames, one
 * JSON request or batch per frame; see server/ws/gateway.ts for the
 * methods and notifications). The token (`?token=`) and the origin guard
 * are checked by the app's middleware before the upgrade. `?profile=` sets
 * the connection's default profile for calls that name none.
 *
 * @module
 */

import type { Hono } from "hono";
import { upgradeWebSocket } from "hono/deno";
import type { ServerDeps } from "../deps.ts";
import { scopedProfile } from "../profile_scope.ts";
import { binaryFrameError } from "../ws/jsonrpc.ts";
import { GatewayConnection } from "../ws/gateway.ts";
import { upgradeRequired } from "../ws/upgrade.ts";

/** Registers the ws routes. */
export function registerWsRoutes(app: Hono, deps: ServerDeps): void {
  app.get(
    "/api/ws",
    upgradeWebSocket((c) => {
      let connection: GatewayConnection | undefined;
      return {
        onOpen(_event, ws) {
          connection = new GatewayConnection({
            env: deps.env,
            cwd: deps.cwd ?? Deno.cwd(),
            // A profile named in the call wins over the connection's ?profile=.
            resolveProfile: (profile) =>
              scopedProfile(c, deps, profile === undefined ? undefined : { profile }),
            send: (text) => {
              if (ws.readyState === WebSocket.OPEN) ws.send(text);
            },
          });
        },
        onMessage(event, ws) {
          if (typeof event.data !== "string") {
            ws.send(binaryFrameError());
            return;
          }
          connection?.receive(event.data).catch(() => {});
        },
        onClose() {
          connection?.close().catch(() => {});
        },
      };
    }),
  );
  app.get("/api/ws", upgradeRequired);
}
