/**
 * The dashboard app: `createApp(deps)` returns a Hono app and never listens
 * (only cli/ calls Deno.serve). Every request first passes one guard (Host,
 * then for /api paths CORS and the token, plus the origin check for
 * WebSocket upgrades, on every path but /api/status), then the route
 * families; unknown /api paths get 404 JSON and everything else the page.
 *
 * @module
 */

import { Hono } from "hono";
import { EventBus } from "../core/events/mod.ts";
import type { RouteDeps, ServerDeps } from "./deps.ts";
import { presentedToken, redactTokens, tokenChecker } from "./auth.ts";
import { errorResponse, handleError } from "./errors.ts";
import { BODY_TOO_LARGE_MESSAGE, MAX_REQUEST_BODY_BYTES } from "./limits.ts";
import { corsOrigin, hostAllowed, isLoopbackHost, webSocketOriginAllowed } from "./origin.ts";
import { routedPath } from "./request_path.ts";
import { uiHandler } from "./spa.ts";
import { API_ROUTES } from "./routes/mod.ts";

const CORS_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
const CORS_HEADERS = "Content-Type, X-Herald-Session-Token, Authorization";

/** Paths under /api that answer without the token. */
export const PUBLIC_API_PATHS: ReadonlySet<string> = new Set(["/api/status"]);

/** True for the paths the token guards: `/api` and everything under it. */
export function isApiPath(path: string): boolean {
  return path.startsWith("/api/") || path === "/api";
}

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
  // One event bus for the app: every route and connection publishes to and watches the same one.
  const routeDeps: RouteDeps = { ...deps, events: deps.events ?? new EventBus() };
  const app = new Hono();
  app.onError(handleError);
  for (const register of API_ROUTES) register(app, routeDeps);

  const ui = uiHandler({ token: isLoopbackHost(deps.bind.host) ? deps.token : undefined });
  app.notFound((c) => {
    if (isApiPath(c.req.path)) {
      return errorResponse(
        c,
        404,
        "no_such_endpoint",
        `No such API endpoint: ${c.req.method} ${c.req.path}`,
      );
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      return errorResponse(c, 404, "not_found", `Nothing to ${c.req.method} at ${c.req.path}`);
    }
    return ui.respond(c.req.path, c.req.raw);
  });

  // The guard runs in front of Hono's dispatch rather than as a middleware:
  // a middleware layer costs every request, the status probe included, about
  // a fifth of its throughput.
  const dispatch = app.fetch;
  const guard = requestGuard(deps);
  app.fetch = async (request, env, executionCtx) => {
    try {
      const verdict = guard(request);
      if (verdict instanceof Response) return verdict;
      const response = await dispatch(request, env, executionCtx);
      if (verdict.api && response.status !== 101) {
        try {
          // API answers carry the profile's data (a transcript, a SKILL.md, config):
          // never kept by a cache, never sniffed into something else.
          response.headers.set("Cache-Control", "no-store");
          response.headers.set("X-Content-Type-Options", "nosniff");
          if (verdict.corsOrigin !== null) {
            response.headers.set("Access-Control-Allow-Origin", verdict.corsOrigin);
            response.headers.append("Vary", "Origin");
          }
        } catch {
          // An immutable response (a redirect) goes out as it is.
        }
      }
      return response;
    } catch (error) {
      // Nothing escapes to Deno.serve, whose default handler would log the
      // request URL (and a WebSocket's ?token=) with the stack.
      const message = redactTokens(error instanceof Error ? error.message : String(error));
      console.error(`herald dashboard: internal error: ${message}`);
      return jsonError(500, "internal_error", message || "internal error");
    }
  };
  return app;
}

function jsonError(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ error: { code, message } }, {
    status,
    headers: { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", ...headers },
  });
}

/**
 * The checks every request passes before routing: the Host guard, the
 * routed path (ambiguous forms are a 400, so the guard and routing judge
 * one path), the origin guard for WebSocket upgrades on every path, then
 * for /api paths CORS (preflights answered here), the body size and, except
 * on public paths, the token.
 */
function requestGuard(
  deps: ServerDeps,
): (request: Request) => Response | { api: boolean; corsOrigin: string | null } {
  const tokenMatches = tokenChecker(deps.token);
  const pass = { api: false, corsOrigin: null };
  const apiPass = { api: true, corsOrigin: null };
  // Host values already found good: nearly every request repeats one of a few.
  const goodHosts = new Set<string>();
  const hostOk = (host: string | undefined) => {
    if (host === undefined || goodHosts.has(host)) return host !== undefined;
    if (!hostAllowed(host, deps.bind)) return false;
    if (goodHosts.size < 64) goodHosts.add(host);
    return true;
  };
  return (request) => {
    const headers = request.headers;
    const host = headers.get("host") ?? undefined;
    if (!hostOk(host)) {
      return jsonError(
        403,
        "host_rejected",
        isLoopbackHost(deps.bind.host)
          ? "This dashboard only answers to loopback host names (127.0.0.1, localhost, [::1])"
          : "The Host header is not a host name with an optional port",
      );
    }
    const routed = routedPath(request);
    if (!routed.ok) {
      return jsonError(
        400,
        "ambiguous_path",
        `Refused ${routed.reason}; send the path plainly (no encoded "/", "%", dot segments or "//")`,
      );
    }
    const path = routed.path;
    const origin = headers.get("origin") ?? undefined;
    const upgrade = isWebSocketUpgrade(request);
    if (upgrade && !webSocketOriginAllowed(origin, deps.bind, host)) {
      return jsonError(403, "origin_rejected", "WebSocket origin not allowed for this dashboard");
    }
    if (!isApiPath(path)) return pass;
    const allowedOrigin = corsOrigin(origin, deps.bind);
    if (request.method === "OPTIONS" && headers.has("access-control-request-method")) {
      if (allowedOrigin === null) return new Response(null, { status: 403 });
      return new Response(null, {
        status: 204,
        headers: {
          "Access-Control-Allow-Origin": allowedOrigin,
          "Access-Control-Allow-Methods": CORS_METHODS,
          "Access-Control-Allow-Headers": CORS_HEADERS,
          "Access-Control-Max-Age": "600",
          Vary: "Origin",
        },
      });
    }
    const verdict = allowedOrigin === null ? apiPass : { api: true, corsOrigin: allowedOrigin };
    const cors = allowedOrigin ? { "Access-Control-Allow-Origin": allowedOrigin } : undefined;
    if (
      request.method !== "GET" &&
      Number(headers.get("content-length") ?? 0) > MAX_REQUEST_BODY_BYTES
    ) {
      return jsonError(413, "body_too_large", BODY_TOO_LARGE_MESSAGE, cors);
    }
    if (PUBLIC_API_PATHS.has(path)) return verdict;
    if (!tokenMatches(presentedToken(request, upgrade))) {
      return jsonError(
        401,
        "unauthorized",
        "Missing or wrong session token: send X-Herald-Session-Token (WebSockets: ?token=)",
        {
          "WWW-Authenticate": 'Bearer realm="herald"',
          ...cors,
        },
      );
    }
    return verdict;
  };
}
