/**
 * The dashboard app: `createApp(deps)` returns a Hono app and never listens
 * (only cli/ calls Deno.serve). Middleware order: Host guard, CORS, token
 * (and, for WebSocket upgrades, the origin guard) on every /api path but
 * /api/status, then the route families, then 404 JSON for unknown /api
 * paths and the page for everything else.
 *
 * @module
 */

import { Hono } from "hono";
import type { ServerDeps } from "./deps.ts";
import { presentedToken, tokenChecker } from "./auth.ts";
import { errorResponse, handleError } from "./errors.ts";
import { corsOrigin, hostAllowed, isLoopbackHost, webSocketOriginAllowed } from "./origin.ts";
import { placeholderPage } from "./spa.ts";
import { API_ROUTES } from "./routes/mod.ts";

const CORS_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
const CORS_HEADERS = "Content-Type, X-Herald-Session-Token, Authorization";

/** Paths under /api that answer without the token. */
export const PUBLIC_API_PATHS: ReadonlySet<string> = new Set(["/api/status"]);

function isWebSocketUpgrade(request: Request): boolean {
  return request.headers.get("upgrade")?.toLowerCase() === "websocket";
}

/**
 * Builds the dashboard app.
 *
 * @example
 * ```ts
 * const app = createApp(deps);
 * const response = await app.request("/api/status");
 * ```
 */
export function createApp(deps: ServerDeps): Hono {
  const app = new Hono();
  const tokenMatches = tokenChecker(deps.token);
  app.onError(handleError);

  // One guard for every request (a single middleware keeps the per-request cost low):
  // the Host check, then for /api paths CORS and the token (plus the origin check for
  // WebSocket upgrades) except on the public paths.
  app.use("*", async (c, next) => {
    if (!hostAllowed(c.req.header("host"), deps.bind)) {
      return errorResponse(
        c,
        403,
        "host_rejected",
        "This dashboard only answers to loopback host names",
      );
    }
    const path = c.req.path;
    if (!path.startsWith("/api/")) return await next();
    const origin = c.req.header("origin");
    const allowedOrigin = corsOrigin(origin, deps.bind);
    if (allowedOrigin !== null) {
      c.header("Access-Control-Allow-Origin", allowedOrigin);
      c.header("Vary", "Origin");
    }
    if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method")) {
      if (allowedOrigin === null) return c.body(null, 403);
      c.header("Access-Control-Allow-Methods", CORS_METHODS);
      c.header("Access-Control-Allow-Headers", CORS_HEADERS);
      c.header("Access-Control-Max-Age", "600");
      return c.body(null, 204);
    }
    if (PUBLIC_API_PATHS.has(path)) return await next();
    const upgrade = isWebSocketUpgrade(c.req.raw);
    if (upgrade && !webSocketOriginAllowed(origin, deps.bind)) {
      return errorResponse(
        c,
        403,
        "origin_rejected",
        "WebSocket origin not allowed for this dashboard",
      );
    }
    if (!tokenMatches(presentedToken(c.req.raw, upgrade))) {
      c.header("WWW-Authenticate", 'Bearer realm="herald"');
      return errorResponse(
        c,
        401,
        "unauthorized",
        "Missing or wrong session token: send X-Herald-Session-Token (WebSockets: ?token=)",
      );
    }
    await next();
  });

  for (const register of API_ROUTES) register(app, deps);

  app.all(
    "/api/*",
    (c) =>
      errorResponse(
        c,
        404,
        "no_such_endpoint",
        `No such API endpoint: ${c.req.method} ${c.req.path}`,
      ),
  );

  const page = placeholderPage({
    version: deps.version,
    token: isLoopbackHost(deps.bind.host) ? deps.token : undefined,
  });
  app.get("*", (c) => {
    c.header("Cache-Control", "no-store");
    return c.html(page);
  });
  return app;
}
