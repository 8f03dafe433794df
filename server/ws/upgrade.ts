/**
 * What a WebSocket endpoint answers to a plain HTTP request.
 *
 * @module
 */

import type { Context } from "hono";
import { errorResponse } from "../errors.ts";

/** 426 for a request to a WebSocket endpoint that is not an upgrade. */
export function upgradeRequired(c: Context): Response {
  c.header("Upgrade", "websocket");
  return errorResponse(
    c,
    426,
    "upgrade_required",
    `${c.req.path} is a WebSocket endpoint: connect with a WebSocket client`,
  );
}
