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
  app.onError(handleError);
  for (const register of API_ROUTES) register(app, deps);

  const page = placeholderPage({
    version: deps.version,
    token: isLoopbackHost(deps.bind.host) ? deps.token : undefined,
  });
  app.notFound((c) => {
    if (c.req.path.startsWith("/api/") || c.req.path === "/api") {
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
    c.header("Cache-Control", "no-store");
    return c.html(page);
  });

  // The guard runs in front of Hono's dispatch rather than as a middleware:
  // a middleware layer costs every request, the status probe included, about
  // a fifth of its throughput.
  const dispatch = app.fetch;
  const guard = requestGuard(deps);
  app.fetch = async (request, env, executionCtx) => {
    const verdict = guard(request);
    if (verdict instanceof Response) return verdict;
    const response = await dispatch(request, env, executionCtx);
    if (verdict.corsOrigin !== null && response.status !== 101) {
      try {
        response.headers.set("Access-Control-Allow-Origin", verdict.corsOrigin);
        response.headers.append("Vary", "Origin");
      } catch {
        // An immutable response (a redirect) goes out without CORS headers.
      }
    }
    return response;
  };
  return app;
}

function jsonError(
  status: number,
  code: string,
  message: string,
  headers: HeadersInit = {},
): Response {
  return Response.json({ error: { code, message } }, { status, headers });
}

/** The path of a request URL without parsing all of it. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.search(/[?#]/);
  return url.slice(start, end === -1 || end < start ? undefined : end);
}

/**
 * The checks every request passes before routing: the Host guard, then for
 * /api paths CORS (preflights answered here) and, except on public paths,
 * the origin guard for WebSocket upgrades and the token.
 */
function requestGuard(
  deps: ServerDeps,
): (request: Request) => Response | { corsOrigin: string | null } {
  const tokenMatches = tokenChecker(deps.token);
  const pass = { corsOrigin: null };
  return (request) => {
    const headers = request.headers;
    if (!hostAllowed(headers.get("host") ?? undefined, deps.bind)) {
      return jsonError(403, "host_rejected", "This dashboard only answers to loopback host names");
    }
    const path = pathOf(request.url);
    if (!path.startsWith("/api/")) return pass;
    const origin = headers.get("origin") ?? undefined;
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
    const verdict = allowedOrigin === null ? pass : { corsOrigin: allowedOrigin };
    if (PUBLIC_API_PATHS.has(path)) return verdict;
    const upgrade = isWebSocketUpgrade(request);
    if (upgrade && !webSocketOriginAllowed(origin, deps.bind)) {
      return jsonError(403, "origin_rejected", "WebSocket origin not allowed for this dashboard");
    }
    if (!tokenMatches(presentedToken(request, upgrade))) {
      return jsonError(
        401,
        "unauthorized",
        "Missing or wrong session token: send X-Herald-Session-Token (WebSockets: ?token=)",
        {
          "WWW-Authenticate": 'Bearer realm="herald"',
          ...(allowedOrigin ? { "Access-Control-Allow-Origin": allowedOrigin } : {}),
        },
      );
    }
    return verdict;
  };
}
