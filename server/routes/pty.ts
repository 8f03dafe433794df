/**
 * `/api/pty`: a WebSocket joined to a pseudo-terminal running `herald chat`
 * (or the user's shell in terminal mode) for the selected profile.
 * `?profile=` points the program's HERALD_HOME at that profile (unknown: 404
 * before the upgrade), `?resume=<id>` continues a stored session. Framing:
 * server/ws/pty_bridge.ts, limits: server/ws/limits.ts. The token and
 * origin guard run in the app's middleware before the upgrade. A dashboard
 * that stops closes the socket with 1001 and ends the terminal session with
 * a short grace (`deps.sockets`, server/ws/live.ts).
 *
 * @module
 */

import type { Hono } from "hono";
import { upgradeWebSocket } from "hono/deno";
import type { ServerDeps } from "../deps.ts";
import { scopedProfile } from "../profile_scope.ts";
import {
  closeWithCode,
  MAX_PTY_STARTUP_INPUT_BYTES,
  messageBytesUpTo,
  WsCloseCode,
} from "../ws/limits.ts";
import { GOING_AWAY_REASON, SHUTDOWN_PTY_GRACE_MS } from "../ws/live.ts";
import { PtyBridge, ptyMessageRefusal } from "../ws/pty_bridge.ts";
import { parseResume, ptyLaunch } from "../ws/pty_launch.ts";
import { upgradeRequired } from "../ws/upgrade.ts";

/** Registers the pty routes. */
export function registerPtyRoutes(app: Hono, deps: ServerDeps): void {
  app.get(
    "/api/pty",
    upgradeWebSocket(async (c) => {
      const paths = await scopedProfile(c, deps);
      const resume = parseResume(c.req.query("resume"));
      const launch = await ptyLaunch(deps, paths, { resume });
      // Frames that arrive while the program starts wait for it, in order,
      // up to MAX_PTY_STARTUP_INPUT_BYTES; `queued` is undefined once it runs.
      let bridge: Promise<PtyBridge | undefined> = Promise.resolve(undefined);
      let queued: number | undefined = 0;
      let refused = false;
      // Set when the dashboard stops: the terminal then ends with the short grace.
      let graceMs: number | undefined;
      let forget = () => {};
      return {
        onOpen(_event, ws) {
          const socket = ws.raw as WebSocket;
          socket.binaryType = "arraybuffer";
          bridge = PtyBridge.start(socket, launch);
          bridge.finally(() => queued = undefined);
          forget = deps.sockets?.add({
            async goAway() {
              graceMs = SHUTDOWN_PTY_GRACE_MS;
              closeWithCode(socket, WsCloseCode.goingAway, GOING_AWAY_REASON);
              await (await bridge)?.close(graceMs);
            },
          }) ?? forget;
        },
        onMessage(event, ws) {
          if (refused) return;
          const data = event.data;
          if (queued !== undefined) {
            queued += messageBytesUpTo(data, MAX_PTY_STARTUP_INPUT_BYTES + 1);
            const refusal = ptyMessageRefusal(data, queued);
            if (refusal) {
              // Refused before it was queued: the program is ended as soon as it runs.
              refused = true;
              closeWithCode(ws.raw as WebSocket, refusal.code, refusal.reason);
              bridge.then((joined) => joined?.close()).catch(() => {});
              return;
            }
          }
          bridge.then((joined) => joined?.receive(data));
        },
        onClose() {
          forget();
          bridge.then((joined) => joined?.close(graceMs)).catch(() => {});
        },
      };
    }),
  );
  app.get("/api/pty", upgradeRequired);
}
