/**
 * Who may talk to the dashboard: loopback detection, the browser origins the
 * dashboard calls its own, CORS, the Host guard against DNS rebinding, and
 * the WebSocket origin guard.
 *
 * @module
 */

import type { BindAddress } from "./deps.ts";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** True for a loopback host name or address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return LOOPBACK_NAMES.has(name) || /^127(\.\d{1,3}){3}$/.test(name) || name === "::1";
}

/** The http origins the dashboard itself is served from. */
export function dashboardOrigins(bind: BindAddress): string[] {
  const names = isLoopbackHost(bind.host) || bind.host === "0.0.0.0" || bind.host === "::"
    ? ["127.0.0.1", "localhost", "[::1]"]
    : [];
  if (!isLoopbackHost(bind.host) && bind.host !== "0.0.0.0" && bind.host !== "::") {
    names.push(
      bind.host.includes(":") && !bind.host.startsWith("[") ? `[${bind.host}]` : bind.host,
    );
  }
  return names.map((name) => `http://${name}:${bind.port}`);
}

/** The value of Access-Control-Allow-Origin for a request's Origin, or null to send none. */
export function corsOrigin(origin: string | undefined, bind: BindAddress): string | null {
  if (origin === undefined) return null;
  if (origin === "null") return "null";
  return dashboardOrigins(bind).includes(origin) ? origin : null;
}

/**
 * The Host-header guard: on a loopback bind only loopback host names are
 * accepted, so a rebound DNS name cannot reach the dashboard (or its token).
 */
export function hostAllowed(hostHeader: string | undefined, bind: BindAddress): boolean {
  if (!isLoopbackHost(bind.host)) return true;
  if (!hostHeader) return false;
  if (hostHeader.startsWith("127.0.0.1:") || hostHeader.startsWith("localhost:")) return true;
  const host = hostHeader.replace(/:\d+$/, "");
  return isLoopbackHost(host);
}

/** True for origins a web page has (http and https); everything else is a non-web origin. */
export function isWebOrigin(origin: string): boolean {
  return /^https?:\/\//i.test(origin);
}

/**
 * The WebSocket origin guard. On loopback binds non-web origins (file, null,
 * app schemes, or none) are trusted, because the token still authenticates;
 * cross-site http(s) origins are rejected on every bind; public binds also
 * reject non-web origins.
 */
export function webSocketOriginAllowed(origin: string | undefined, bind: BindAddress): boolean {
  if (origin === undefined || origin === "" || !isWebOrigin(origin)) {
    return isLoopbackHost(bind.host);
  }
  return dashboardOrigins(bind).includes(origin.toLowerCase());
}
